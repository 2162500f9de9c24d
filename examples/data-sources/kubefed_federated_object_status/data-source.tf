# Gate a pipeline stage on a Deployment another configuration federates:
# the stage fails unless it is ready on every cluster it is placed on.
data "kubefed_federated_object_status" "web" {
  type      = "deployments.apps"
  namespace = "shop"
  name      = "web"
}

output "web_ready" {
  value = data.kubefed_federated_object_status.web.ready
}

check "web_is_running_everywhere" {
  assert {
    condition     = data.kubefed_federated_object_status.web.ready
    error_message = "web is not ready on every cluster: ${jsonencode(data.kubefed_federated_object_status.web.cluster_health)}"
  }
}
