resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}

resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_object" "shop" {
  type      = kubefed_federated_type.namespaces.name
  template  = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = "shop" } })
  placement = { cluster_selector = {} }
}

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
  type = kubefed_federated_type.deployments.name
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
  depends_on       = [kubefed_federated_object.shop]
}

# 12 replicas of shop/api where they fit: each member's nodes and pods are read
# when refreshing, no cluster is planned more than it can hold, and the plan shows
# the figures in estimated_capacity. The requests come from the same template
# the federated object takes; the replicas span at least two regions.
locals {
  api = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "api", namespace = "shop" }
    spec = {
      selector = { matchLabels = { app = "api" } }
      template = {
        metadata = { labels = { app = "api" } }
        spec = {
          containers = [{
            name      = "api"
            image     = "nginx:1.27"
            resources = { requests = { cpu = "500m", memory = "256Mi" } }
          }]
        }
      }
    }
  })
}

resource "kubefed_replica_scheduling_preference" "api" {
  namespace      = "shop"
  name           = "api"
  total_replicas = 12
  rebalance      = true

  capacity            = "auto"
  template            = local.api
  unschedulable_after = "2m"
  weight_by           = "available_capacity"
  spread              = { by_label = "region", min_groups = 2 }
}

resource "kubefed_federated_object" "api" {
  type             = kubefed_federated_type.deployments.name
  template         = local.api
  cluster_replicas = kubefed_replica_scheduling_preference.api.replicas
  depends_on       = [kubefed_federated_object.shop]
}
