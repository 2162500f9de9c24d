package provider_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// The status data source reads the host's record of an object and the
// object on each cluster the record names: every one recorded OK and
// ready, and so the object is ready.
func TestAccFederatedObjectStatus_readsTheRecordAndTheMembers(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-status", uniqueName("fo-status")
	cleanupObjectTest(t, prefix, ns)
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings", namespace = %q }, data = { a = "b" } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.berlin.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
	status := fmt.Sprintf(`
data "kubefed_federated_object_status" "cm" {
  type      = "configmaps"
  namespace = %q
  name      = "settings"
}
`, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				Config: base + status,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("data.kubefed_federated_object_status.cm", "id", "configmaps/"+ns+"/settings"),
					resource.TestCheckResourceAttr("data.kubefed_federated_object_status.cm", "clusters.#", "2"),
					resource.TestCheckResourceAttr("data.kubefed_federated_object_status.cm", "cluster_status."+prefix+"-berlin", "OK"),
					resource.TestCheckResourceAttr("data.kubefed_federated_object_status.cm", "cluster_health."+prefix+"-sf.ready", "true"),
					resource.TestCheckResourceAttr("data.kubefed_federated_object_status.cm", "ready", "true"),
				),
			},
		},
	})
}
