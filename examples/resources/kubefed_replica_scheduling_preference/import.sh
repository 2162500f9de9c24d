# A ReplicaSchedulingPreference is imported by namespace/name, KubeFed's own included.
terraform import kubefed_replica_scheduling_preference.web shop/web
