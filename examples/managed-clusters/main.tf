# Members on EKS, GKE or AKS, joined with their cloud's credential plugin.
# The plugin's short-lived token is used at apply only, to create the
# federation's ServiceAccount on the member; the host stores that
# ServiceAccount's token, which does not expire. The endpoints and CAs come
# from the cloud providers' data sources of the calling configuration (the
# managed clusters guide shows them for each cloud).
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
  description = "A kubeconfig with a context for the host cluster."
}

variable "host_context" {
  type        = string
  default     = "host"
  description = "The kubeconfig context of the host cluster."
}

variable "members" {
  type = map(object({
    endpoint       = string # https URL of the member's API server
    ca_certificate = string # PEM of the CA of the member's API server
    region         = string
    exec = object({
      api_version = string
      command     = string
      args        = list(string)
    })
  }))
  description = "The member clusters by name, with the credential plugin that logs in to each as an admin."
}

provider "kubefed" {
  config_path    = var.kubeconfig
  config_context = var.host_context
}

resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federation_cluster" "member" {
  for_each = var.members
  name     = each.key
  labels   = { region = each.value.region }
  join = {
    host                   = each.value.endpoint
    cluster_ca_certificate = each.value.ca_certificate
    exec                   = each.value.exec
    federated_types        = [kubefed_federated_type.deployments.name]
  }
}

output "ready" {
  value       = { for name, cluster in kubefed_federation_cluster.member : name => cluster.ready }
  description = "Whether each member answered the last probe, made with the token the host stores."
}
