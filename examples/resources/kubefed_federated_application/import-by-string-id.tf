# By the application's name: the host's records labelled
# kubefed.terraform.io/application=web make up the set.
import {
  to = kubefed_federated_application.web
  id = "web"
}
