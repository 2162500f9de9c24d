# By type, namespace and name; namespace is left out for a cluster-scoped
# type, as in identity = { type = "namespaces", name = "web" } (Terraform or
# OpenTofu 1.12 or later).
import {
  to       = kubefed_federated_object.web
  identity = { type = "deployments.apps", namespace = "web", name = "web" }
}
