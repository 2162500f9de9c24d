# 9 replicas of shop/web across the regions: Berlin at most 2, the US clusters
# weighted twice as heavy. The split is computed at plan time; clusters that are
# not ready get nothing and their share moves to the others.
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = "shop"
  name           = "web"
  total_replicas = 9

  clusters = {
    "*"    = { weight = 2 }
    berlin = { weight = 1, max_replicas = 2 }
  }
}

# The counts reach the members through the federated object of the same
# namespace and name: its plan shows spec.replicas for each cluster.
resource "kubefed_federated_object" "web" {
  type = "deployments.apps"
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = "shop" }
    spec = {
      selector = { matchLabels = { app = "web" } }
      template = {
        metadata = { labels = { app = "web" } }
        spec     = { containers = [{ name = "web", image = "nginx:1.27" }] }
      }
    }
  })
  cluster_replicas = kubefed_replica_scheduling_preference.web.replicas
}
