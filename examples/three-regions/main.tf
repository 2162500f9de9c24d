# The federation of the demo: three regions registered in the host, four
# types enabled, and one application, a shop, spread over them and rolled
# out to berlin first.
terraform {
  required_version = ">= 1.5.0"
  required_providers {
    kubefed = {
      source  = "tf-kubefed/kubefed"
      version = ">= 0.0.1, < 1.0.0"
    }
  }
}

variable "kubeconfig" {
  type        = string
  description = "A kubeconfig with a context per cluster: the host and each member (the lab's .lab/kubeconfig)."
}

provider "kubefed" {
  config_path    = var.kubeconfig
  config_context = "host"
}

locals {
  regions = {
    "san-francisco" = { region = "us-west", env = "production" }
    "new-york"      = { region = "us-east", env = "production" }
    "berlin"        = { region = "eu-central", env = "production" }
  }
  # The members' endpoints and credentials, read from the kubeconfig.
  kubeconfig = yamldecode(file(var.kubeconfig))
  servers    = { for c in local.kubeconfig.clusters : c.name => c.cluster }
  users      = { for u in local.kubeconfig.users : u.name => u.user }

  # Settings added to the shop's ConfigMap on the clusters of one region.
  regional_config = {
    "eu-central" = { CURRENCY = "EUR", GDPR_MODE = "strict" }
    "us-west"    = { CURRENCY = "USD" }
    "us-east"    = { CURRENCY = "USD" }
  }
}

resource "kubefed_federation_cluster" "member" {
  for_each     = local.regions
  name         = each.key
  api_endpoint = local.servers[each.key].server
  ca_bundle    = base64decode(local.servers[each.key]["certificate-authority-data"])
  token        = local.users[each.key].token
  labels       = each.value
}

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

# 9 replicas of the shop's Deployment, weighted towards the US, berlin
# capped at 2.
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = "shop"
  name           = "web"
  total_replicas = 9
  clusters = {
    "*"    = { weight = 2 }
    berlin = { weight = 1, max_replicas = 2 }
  }
  depends_on = [kubefed_federation_cluster.member]
}

# The shop: its namespace, its settings, a Deployment that reads them and a
# Service in front of it, shipped together. Each member receives them in
# dependency order; berlin receives a change first, the others once it runs
# there.
resource "kubefed_federated_application" "shop" {
  name = "shop"
  manifests = [
    yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = "shop" } }),
    yamlencode({
      apiVersion = "v1"
      kind       = "ConfigMap"
      metadata   = { name = "web", namespace = "shop" }
      data       = { LOG_LEVEL = "info" }
    }),
    yamlencode({
      apiVersion = "apps/v1"
      kind       = "Deployment"
      metadata   = { name = "web", namespace = "shop" }
      spec = {
        selector = { matchLabels = { app = "web" } }
        template = {
          metadata = { labels = { app = "web" } }
          spec = {
            containers = [{
              name    = "web"
              image   = "nginx:1.27"
              envFrom = [{ configMapRef = { name = "web" } }]
            }]
          }
        }
      }
    }),
    yamlencode({
      apiVersion = "v1"
      kind       = "Service"
      metadata   = { name = "web", namespace = "shop" }
      spec = {
        selector = { app = "web" }
        ports    = [{ port = 80 }]
      }
    }),
  ]
  placement = { cluster_selector = {} } # every registered cluster
  overrides = [for region, settings in local.regional_config : {
    object           = { kind = "ConfigMap", name = "web" }
    cluster_selector = { match_labels = { region = region } }
    patches          = [for key, value in settings : { op = "add", path = "/data/${key}", value = jsonencode(value) }]
  }]
  replicas_object  = { kind = "Deployment", name = "web" }
  cluster_replicas = kubefed_replica_scheduling_preference.web.replicas
  rollout_strategy = { stages = [[kubefed_federation_cluster.member["berlin"].name], ["*"]] }

  # Applied after the clusters and types, so the plan renders the set for
  # every member and no warning says it is known only at apply.
  depends_on = [
    kubefed_federation_cluster.member,
    kubefed_federated_type.namespaces,
    kubefed_federated_type.configmaps,
    kubefed_federated_type.deployments,
    kubefed_federated_type.services,
  ]
}

output "replicas" {
  value = kubefed_replica_scheduling_preference.web.replicas
}

output "registered_clusters" {
  value = [for c in kubefed_federation_cluster.member : c.name]
}

output "rollout_plan" {
  value = kubefed_federated_application.shop.rollout_plan
}
