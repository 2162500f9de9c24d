# <type>/<namespace>/<name>, or <type>/<name> for a cluster-scoped type.
import {
  to = kubefed_federated_object.web
  id = "deployments.apps/web/web"
}
