package provider_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// A second resource for an object another resource manages is refused at
// plan, for each of the four resources, and the first one's objects are
// left as they are.
func TestAccAdoption_secondResourceIsRefused(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "adopt", uniqueName("adopt")
	cleanupObjectTest(t, prefix, ns)
	sf := prefix + "-sf"
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "owned", namespace = %[1]q }, data = { owner = "first" } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = %[1]q
  name           = "web"
  total_replicas = 3
  depends_on     = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin]
}
`, ns)
	refused := func(extra string, phrases ...string) resource.TestStep {
		return resource.TestStep{Config: base + extra, ExpectError: acctest.ErrorMatching(append([]string{"Already exists in the host"}, phrases...)...)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			refused(memberBlock("dup", sf, "new-york", "")(t), "KubeFedCluster kube-federation-system/"+sf, "import it"),
			refused(`
resource "kubefed_federated_type" "dup" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
}
`, "FederatedTypeConfig kube-federation-system/configmaps"),
			refused(fmt.Sprintf(`
resource "kubefed_federated_object" "dup" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "owned", namespace = %q }, data = { owner = "second" } })
  placement  = { clusters = [kubefed_federation_cluster.ny.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns), "FederatedConfigMap "+ns+"/owned", "configmaps/"+ns+"/owned"),
			refused(fmt.Sprintf(`
resource "kubefed_replica_scheduling_preference" "dup" {
  namespace      = %q
  name           = "web"
  total_replicas = 5
}
`, ns), "ReplicaSchedulingPreference "+ns+"/web"),
			{
				// Nothing of the refused resources was written: the first
				// ones hold what they held, and plan empty.
				Config:   base,
				PlanOnly: true,
				ConfigPlanChecks: checksAtPlan(
					checkMemberField(t, "san-francisco", configMapsGVR, ns, "owned", "first", "data", "owner"),
					checkMemberAbsent(t, "new-york", configMapsGVR, ns, "owned"),
				),
			},
		},
	})
}

// Two new resources for one object in one configuration: the plan cannot
// tell (the host has neither yet), so the apply refuses the second before it
// writes anything.
func TestAccAdoption_twoCreatesOfOneObject(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "adopt2", uniqueName("adopt2")
	cleanupObjectTest(t, prefix, ns)
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns)
	object := func(name, data string) string {
		return fmt.Sprintf(`
resource "kubefed_federated_object" %q {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "twice", namespace = %q }, data = { by = %q } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns%s]
}
`, name, ns, data, map[bool]string{true: ", kubefed_federated_object.first", false: ""}[name == "second"])
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				Config:      base + object("first", "first") + object("second", "second"),
				ExpectError: acctest.ErrorMatching("Already exists in the host", "FederatedConfigMap "+ns+"/twice"),
			},
			{
				Config: base + object("first", "first"),
				Check:  checkMemberField(t, "san-francisco", configMapsGVR, ns, "twice", "first", "data", "by"),
			},
		},
	})
}
