variable "name" {
  type        = string
  description = "Name of the application: its Deployment, ConfigMap and replica scheduling preference."
}

variable "namespace" {
  type        = string
  description = "Namespace federated to every cluster, holding the application."
}

variable "image" {
  type        = string
  description = "Container image of the application."
}

variable "total_replicas" {
  type        = number
  description = "Replicas across all clusters."
}

variable "cluster_preferences" {
  type = map(object({
    min_replicas = optional(number)
    max_replicas = optional(number)
    weight       = optional(number)
  }))
  default     = {}
  description = "Replica preferences by cluster name or \"*\"; empty spreads evenly."
}

variable "config" {
  type        = map(string)
  default     = {}
  description = "Data of the application's ConfigMap, the same everywhere."
}

variable "regional_config" {
  type        = map(map(string))
  default     = {}
  description = "ConfigMap data by value of the clusters' `region` label: added to the clusters of that region only."
}

variable "types" {
  type = object({
    namespaces  = string
    configmaps  = string
    deployments = string
  })
  description = "Names of the enabled federated types (the kubefed_federated_type resources' name)."
}
