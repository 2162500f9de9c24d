# The provider talks to the host cluster: the federation's control plane,
# which stores the registry of member clusters and the federated objects.
provider "kubefed" {
  config_path    = "~/.kube/config"
  config_context = "federation-host"
}

# Or inline, with the names and environment variables of the
# hashicorp/kubernetes provider (KUBE_HOST, KUBE_TOKEN, ...).
provider "kubefed" {
  alias                  = "inline"
  host                   = "https://federation-host.example.com:6443"
  token                  = var.host_token
  cluster_ca_certificate = file("${path.module}/host-ca.pem")

  federation_namespace     = "kube-federation-system"
  max_requests_per_cluster = 32
  request_timeout          = "30s"
}

variable "host_token" {
  type      = string
  sensitive = true
}
