# By namespace and name (Terraform or OpenTofu 1.12 or later).
import {
  to       = kubefed_replica_scheduling_preference.web
  identity = { namespace = "shop", name = "web" }
}
