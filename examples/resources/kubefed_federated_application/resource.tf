resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}

resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
}

resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_type" "services" {
  target_api_version = "v1"
  target_kind        = "Service"
}

# One application: the namespace, the configuration the Deployment reads,
# the Deployment and its Service. Each cluster receives them in that order,
# and a change of the ConfigMap rolls out with the Deployment, stage by stage.
resource "kubefed_federated_application" "web" {
  name = "web"
  manifests = [
    yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = "web" } }),
    yamlencode({
      apiVersion = "v1"
      kind       = "ConfigMap"
      metadata   = { name = "web-config", namespace = "web" }
      data       = { GREETING = "hello" }
    }),
    yamlencode({
      apiVersion = "apps/v1"
      kind       = "Deployment"
      metadata   = { name = "web", namespace = "web" }
      spec = {
        replicas = 2
        selector = { matchLabels = { app = "web" } }
        template = {
          metadata = { labels = { app = "web" } }
          spec = {
            containers = [{
              name    = "web"
              image   = "nginx:1.27"
              envFrom = [{ configMapRef = { name = "web-config" } }]
            }]
          }
        }
      }
    }),
    # Several documents in one element, as `helm template` or a file gives them.
    <<-EOT
    apiVersion: v1
    kind: Service
    metadata:
      name: web
      namespace: web
    spec:
      selector: {app: web}
      ports:
      - port: 80
    EOT
  ]

  placement = { cluster_selector = { match_labels = { tier = "gold" } } }

  # Each rule patches one object of the set.
  overrides = [{
    object  = { kind = "ConfigMap", name = "web-config" }
    cluster = "berlin"
    patches = [{ path = "/data/GREETING", value = jsonencode("hallo") }]
  }]

  # berlin first; the others once the whole set runs there. A failed stage
  # gives berlin back what it held before the apply.
  rollout_strategy = {
    stages     = [["berlin"], ["*"]]
    on_failure = "rollback"
  }

  depends_on = [
    kubefed_federated_type.namespaces, kubefed_federated_type.configmaps,
    kubefed_federated_type.deployments, kubefed_federated_type.services,
  ]
}
