# How the federation reaches its member berlin, read from the host's registry.
# Terraform reads it at plan and again at apply, and writes it neither to the
# state nor to the plan file.
ephemeral "kubefed_cluster_connection" "berlin" {
  name = "berlin"
}

# The hashicorp/kubernetes provider on berlin, with the federation's identity
# there. A cluster registered with a client certificate has a null token and
# sets client_certificate and client_key instead.
provider "kubernetes" {
  alias                  = "berlin"
  host                   = ephemeral.kubefed_cluster_connection.berlin.host
  cluster_ca_certificate = ephemeral.kubefed_cluster_connection.berlin.cluster_ca_certificate
  token                  = ephemeral.kubefed_cluster_connection.berlin.token
  client_certificate     = ephemeral.kubefed_cluster_connection.berlin.client_certificate
  client_key             = ephemeral.kubefed_cluster_connection.berlin.client_key
}
