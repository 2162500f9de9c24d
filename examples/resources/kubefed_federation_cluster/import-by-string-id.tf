# By the name of the KubeFedCluster in the federation namespace; the
# credentials come from the Secret that its spec.secretRef names.
import {
  to = kubefed_federation_cluster.berlin
  id = "berlin"
}
