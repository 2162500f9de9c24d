resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}

resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

# The namespace goes to the same clusters first.
resource "kubefed_federated_object" "web_namespace" {
  type      = kubefed_federated_type.namespaces.name
  template  = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = "web" } })
  placement = { cluster_selector = { match_labels = { tier = "gold" } } }
}

# One Deployment on every cluster labelled tier = gold, with a different
# image in Europe. The plan shows the object each cluster receives.
resource "kubefed_federated_object" "web" {
  type = kubefed_federated_type.deployments.name
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = "web" }
    spec = {
      replicas = 2
      selector = { matchLabels = { app = "web" } }
      template = {
        metadata = { labels = { app = "web" } }
        spec     = { containers = [{ name = "web", image = "nginx:1.27" }] }
      }
    }
  })

  placement = {
    cluster_selector = {
      match_labels = { tier = "gold" }
    }
  }

  overrides = [
    {
      cluster_selector = {
        match_expressions = [{ key = "region", operator = "In", values = ["eu-central", "eu-west"] }]
      }
      patches = [{ path = "/spec/template/spec/containers/0/image", value = jsonencode("registry.eu.example.com/nginx:1.27") }]
    },
    {
      cluster = "berlin"
      patches = [{ path = "/spec/replicas", value = jsonencode(5) }]
    }
  ]

  depends_on = [kubefed_federated_object.web_namespace]
}

resource "kubefed_federated_type" "secrets" {
  target_api_version = "v1"
  target_kind        = "Secret"
}

variable "db_password" {
  type      = string
  sensitive = true
}

# A Secret goes in sensitive_template, which the CLI hides; rendered shows
# sha256 digests of its values, so the plan still says which clusters change.
resource "kubefed_federated_object" "db_credentials" {
  type = kubefed_federated_type.secrets.name
  sensitive_template = yamlencode({
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "db-credentials", namespace = "web" }
    type       = "Opaque"
    stringData = { password = var.db_password }
  })

  placement = {
    cluster_selector = {
      match_labels = { tier = "gold" }
    }
  }
}
