package provider_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// A placement that leaves new-york while new-york is down cannot remove
// the object there: the apply fails for new-york, the state keeps it in
// rendered, and once new-york is back the next plan shows the removal and
// the apply carries it out.
func TestAccFederatedObject_removalOwedWhileAMemberIsDown(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-owed", uniqueName("fo-owed")
	cleanupObjectTest(t, prefix, ns)
	t.Cleanup(func() { startMember(t, "new-york") })
	ny := prefix + "-ny"
	config := func(clusters string) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type      = kubefed_federated_type.configmaps.name
  template  = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "c", namespace = %q }, data = { color = "blue" } })
  placement = { clusters = %s }
  depends_on = [kubefed_federated_object.ns]
}
`, ns, clusters)
	}
	withNewYork := config(`[kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name]`)
	withoutNewYork := config(`[kubefed_federation_cluster.sf.name]`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: withNewYork, Check: checkMemberField(t, "new-york", configMapsGVR, ns, "c", "blue", "data", "color")},
			{
				PreConfig:   func() { stopMember(t, "new-york") },
				Config:      withoutNewYork,
				ExpectError: regexp.MustCompile(`(?s)failed on 1 cluster.*` + ny),
			},
			{
				// new-york is back: the removal it still owes is planned, and
				// nothing was removed meanwhile.
				PreConfig:          func() { startMember(t, "new-york") },
				Config:             withoutNewYork,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   checksAtPlan(checkMemberField(t, "new-york", configMapsGVR, ns, "c", "blue", "data", "color")),
			},
			{
				Config: withoutNewYork,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("placed_clusters"),
							knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(prefix + "-sf")})),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkGone(t, configMapsGVR, ns, "c", "new-york"),
			},
		},
	})
}
