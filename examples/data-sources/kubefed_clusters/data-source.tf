# Every registered member cluster.
data "kubefed_clusters" "all" {}

# Only the clusters of the production environment outside the EU.
data "kubefed_clusters" "production_outside_eu" {
  cluster_selector = {
    match_labels = { env = "production" }
    match_expressions = [{
      key      = "region"
      operator = "NotIn"
      values   = ["eu-central"]
    }]
  }
}

output "production_outside_eu" {
  value = data.kubefed_clusters.production_outside_eu.names
}

# Ready clusters only, with their versions.
output "ready_versions" {
  value = {
    for c in data.kubefed_clusters.all.clusters : c.name => c.kubernetes_version if c.ready
  }
}
