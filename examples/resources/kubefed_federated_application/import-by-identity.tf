# By the application's name (Terraform or OpenTofu 1.12 or later).
import {
  to       = kubefed_federated_application.web
  identity = { name = "web" }
}
