# By the name of the KubeFedCluster in the federation namespace (Terraform
# or OpenTofu 1.12 or later).
import {
  to       = kubefed_federation_cluster.berlin
  identity = { name = "berlin" }
}
