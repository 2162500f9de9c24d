# By the name of the FederatedTypeConfig: <plural>.<group>, or <plural> for
# the core group.
import {
  to = kubefed_federated_type.deployments
  id = "deployments.apps"
}

import {
  to = kubefed_federated_type.namespaces
  id = "namespaces"
}
