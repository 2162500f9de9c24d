# A member cluster reached with a service-account token.
resource "kubefed_federation_cluster" "berlin" {
  name         = "berlin"
  api_endpoint = "https://berlin.example.com:6443"
  ca_bundle    = file("${path.module}/berlin-ca.pem")
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
  ca_bundle          = file("${path.module}/new-york-ca.pem")
  client_certificate = file("${path.module}/federation.crt")
  client_key         = var.new_york_client_key
  require_ready      = false

  labels = {
    region = "us-east"
    env    = "production"
  }
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
