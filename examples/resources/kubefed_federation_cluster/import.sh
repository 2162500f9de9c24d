# A cluster registered by KubeFed (or by hand) is imported by the name of its
# KubeFedCluster in the federation namespace; its credentials come from the
# Secret that spec.secretRef names.
terraform import kubefed_federation_cluster.berlin berlin
