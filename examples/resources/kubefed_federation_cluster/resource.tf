# A member cluster joined as `kubefedctl join` does: with the admin
# credentials of a kubeconfig context, apply creates on it the federation's
# ServiceAccount, a long-lived token and a ClusterRole that grants the listed
# types, and registers the cluster with that token. api_endpoint and
# ca_bundle come from the context.
resource "kubefed_federation_cluster" "san_francisco" {
  name = "san-francisco"
  join = {
    config_path     = "~/.kube/config"
    config_context  = "san-francisco-admin"
    federated_types = [kubefed_federated_type.configmaps.name]
  }

  labels = {
    region = "us-west"
    env    = "production"
  }
}

resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
}

# A member cluster reached with a service-account token.
resource "kubefed_federation_cluster" "berlin" {
  name         = "berlin"
  api_endpoint = "https://berlin.example.com:6443"
  ca_bundle    = var.berlin_ca
  token        = var.berlin_token

  labels = {
    region = "eu-central"
    env    = "production"
  }
}

# A member cluster reached with a client certificate, registered even while
# it is not up yet.
resource "kubefed_federation_cluster" "new_york" {
  name               = "new-york"
  api_endpoint       = "https://new-york.example.com:6443"
  ca_bundle          = var.new_york_ca
  client_certificate = var.new_york_client_certificate
  client_key         = var.new_york_client_key
  require_ready      = false

  labels = {
    region = "us-east"
    env    = "production"
  }
}

# PEM text, e.g. file("berlin-ca.pem") in the calling module.
variable "berlin_ca" {
  type = string
}

variable "new_york_ca" {
  type = string
}

variable "new_york_client_certificate" {
  type = string
}

variable "berlin_token" {
  type      = string
  sensitive = true
}

variable "new_york_client_key" {
  type      = string
  sensitive = true
}

output "berlin_ready" {
  value = kubefed_federation_cluster.berlin.ready
}
