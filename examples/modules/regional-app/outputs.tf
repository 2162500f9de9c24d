output "replicas" {
  description = "Replicas per cluster, as planned."
  value       = kubefed_replica_scheduling_preference.app.replicas
}

output "excluded_clusters" {
  description = "Clusters left out of the split because they were not ready, with the reason."
  value       = kubefed_replica_scheduling_preference.app.excluded_clusters
}

output "placed_clusters" {
  description = "Clusters that receive the Deployment."
  value       = kubefed_federated_object.app.placed_clusters
}

output "config_overrides" {
  description = "The ConfigMap's override rules, for provider::kubefed::render_object."
  value       = local.config_overrides
}
