# Types the host serves: plural and scope come from its discovery.
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}

# A type whose CRD is installed on the members only: say what the host
# cannot discover.
resource "kubefed_federated_type" "certificates" {
  target_api_version = "cert-manager.io/v1"
  target_kind        = "Certificate"
  target_plural      = "certificates"
  namespaced         = true
}

# Kept in the host, pushed to no member.
resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
  propagation        = "Disabled"
}
