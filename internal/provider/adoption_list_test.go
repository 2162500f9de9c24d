package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// An application adopts only the objects adopt_objects lists: one that a
// member holds already and the list leaves out is refused at plan, naming
// it and adopt_objects; an element naming no object of the set is an error
// at that element; listed, both are adopted and marked, and the object the
// member did not hold is not marked.
func TestAccAdoption_applicationAdoptsTheObjectsItLists(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "adopt-l", uniqueName("adopt-l")
	cleanupObjectTest(t, prefix, ns)
	ny := prefix + "-ny"
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns)
	app := func(adopt string) string {
		return base + fmt.Sprintf(`
resource "kubefed_federated_application" "web" {
  name      = %[1]q
  manifests = [for n in ["first", "second", "third"] : yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = n, namespace = %[1]q }, data = { color = "blue" } })]
  placement = { clusters = [kubefed_federation_cluster.ny.name] }
  %[2]s
  depends_on = [kubefed_federated_object.ns, kubefed_federated_type.configmaps]
}
`, ns, adopt)
	}
	existing := func() {
		for _, name := range []string{"first", "second"} {
			createOnMember(t, "new-york", configMapsGVR, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": name, "namespace": ns}, "data": map[string]any{"color": "red", "keep": "yes"}})
		}
	}
	t.Cleanup(func() {
		_ = memberClient(t, "new-york").Resource(namespacesGVR).Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	adopted := func(name string, mark any) resource.TestCheckFunc {
		return checkMemberField(t, "new-york", configMapsGVR, ns, name, mark, "metadata", "annotations", federation.AdoptedAnnotation)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				PreConfig: existing,
				Config:    app(`adopt_objects = [{ kind = "ConfigMap", name = "first" }]`),
				ExpectError: acctest.ErrorMatching(fmt.Sprintf("Cluster %q already holds", ny), "ConfigMap "+ns+"/second",
					"list it in adopt_objects"),
			},
			{
				Config:      app(`adopt_objects = [{ kind = "ConfigMap", name = "first" }, { kind = "ConfigMap", name = "fourth" }]`),
				ExpectError: acctest.ErrorMatching("No such object in the set", "no object of the set is ConfigMap fourth"),
			},
			{
				Config: app(`adopt_objects = [{ kind = "ConfigMap", name = "first" }, { kind = "ConfigMap", name = "second" }]`),
				Check: resource.ComposeTestCheckFunc(
					adopted("first", "true"), adopted("second", "true"), adopted("third", nil),
					checkMemberField(t, "new-york", configMapsGVR, ns, "second", "yes", "data", "keep"),
					checkMemberField(t, "new-york", configMapsGVR, ns, "third", "blue", "data", "color"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
		CheckDestroy: resource.ComposeTestCheckFunc(
			checkGivenBack(t, "new-york", configMapsGVR, ns, "first", "yes", "data", "keep"),
			checkGivenBack(t, "new-york", configMapsGVR, ns, "second", "yes", "data", "keep"),
		),
	})
}
