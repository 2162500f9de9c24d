# By the application's name.
terraform import kubefed_federated_application.web web
