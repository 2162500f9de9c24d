# The demo's configuration: the provider pointed at the lab's host cluster
# through the lab's kubeconfig.
terraform {
  required_providers {
    kubefed = {
      source = "tf-kubefed/kubefed"
    }
  }
}

variable "kubeconfig" {
  type        = string
  description = "Path to the lab's kubeconfig (.lab/kubeconfig)."
}

provider "kubefed" {
  config_path    = var.kubeconfig
  config_context = "host"
}

data "kubefed_clusters" "all" {}

output "registered_clusters" {
  value = data.kubefed_clusters.all.names
}
