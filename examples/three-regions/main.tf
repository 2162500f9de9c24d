# The federation of the demo: three regions registered in the host, three
# types enabled, and one regional app spread over them.
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

module "shop" {
  source = "../modules/regional-app"

  name           = "web"
  namespace      = "shop"
  image          = "nginx:1.27"
  total_replicas = 9
  cluster_preferences = {
    "*"    = { weight = 2 }
    berlin = { weight = 1, max_replicas = 2 }
  }
  config = { LOG_LEVEL = "info" }
  regional_config = {
    "eu-central" = { CURRENCY = "EUR", GDPR_MODE = "strict" }
    "us-west"    = { CURRENCY = "USD" }
    "us-east"    = { CURRENCY = "USD" }
  }
  types = {
    namespaces  = kubefed_federated_type.namespaces.name
    configmaps  = kubefed_federated_type.configmaps.name
    deployments = kubefed_federated_type.deployments.name
  }

  depends_on = [kubefed_federation_cluster.member]
}

output "replicas" {
  value = module.shop.replicas
}

output "registered_clusters" {
  value = [for c in kubefed_federation_cluster.member : c.name]
}
