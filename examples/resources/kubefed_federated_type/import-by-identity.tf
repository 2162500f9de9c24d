# By the name of the FederatedTypeConfig (Terraform or OpenTofu 1.12 or
# later).
import {
  to       = kubefed_federated_type.deployments
  identity = { name = "deployments.apps" }
}
