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
