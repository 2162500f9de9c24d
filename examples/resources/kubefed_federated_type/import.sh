# By the name of the FederatedTypeConfig: <plural>.<group>, or <plural> for
# the core group.
terraform import kubefed_federated_type.deployments deployments.apps
terraform import kubefed_federated_type.namespaces namespaces
