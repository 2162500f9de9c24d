# A "regional app": a namespace, a ConfigMap with per-region settings and a
# Deployment whose replicas a scheduling preference spreads across clusters.
terraform {
  required_version = ">= 1.5.0"
  required_providers {
    kubefed = {
      source  = "tf-kubefed/kubefed"
      version = ">= 0.0.1"
    }
  }
}

locals {
  # The per-region settings as override rules: the same value works as the
  # ConfigMap's overrides and as provider::kubefed::render_object's argument.
  config_overrides = [for region, settings in var.regional_config : {
    cluster_selector = { match_labels = { region = region } }
    patches = [for key, value in settings : {
      op    = "add"
      path  = "/data/${key}"
      value = jsonencode(value)
    }]
  }]
}

resource "kubefed_federated_object" "namespace" {
  type      = var.types.namespaces
  template  = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = var.namespace } })
  placement = { cluster_selector = {} }
}

resource "kubefed_federated_object" "config" {
  type = var.types.configmaps
  template = yamlencode({
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = var.name, namespace = var.namespace }
    data       = var.config
  })
  placement  = { cluster_selector = {} }
  overrides  = local.config_overrides
  depends_on = [kubefed_federated_object.namespace]
}

resource "kubefed_replica_scheduling_preference" "app" {
  namespace      = var.namespace
  name           = var.name
  total_replicas = var.total_replicas
  clusters       = length(var.cluster_preferences) == 0 ? null : var.cluster_preferences
}

resource "kubefed_federated_object" "app" {
  type = var.types.deployments
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = var.name, namespace = var.namespace }
    spec = {
      selector = { matchLabels = { app = var.name } }
      template = {
        metadata = { labels = { app = var.name } }
        spec = {
          containers = [{
            name    = var.name
            image   = var.image
            envFrom = [{ configMapRef = { name = var.name } }]
          }]
        }
      }
    }
  })
  cluster_replicas = kubefed_replica_scheduling_preference.app.replicas
  depends_on       = [kubefed_federated_object.namespace]
}
