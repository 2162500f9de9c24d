# <type>/<namespace>/<name>, or <type>/<name> for a cluster-scoped type.
# Federated<Kind> objects written by KubeFed itself import too.
terraform import kubefed_federated_object.web deployments.apps/web/web
