# By namespace/name, KubeFed's own ReplicaSchedulingPreferences included.
import {
  to = kubefed_replica_scheduling_preference.web
  id = "shop/web"
}
