package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// incompleteCreate is the host annotation that marks an unfinished create.
const incompleteCreate = "kubefed.terraform.io/incomplete-create"

// A create cut off right after it wrote the object's host record (the
// provider killed at that moment, as the test hook does) leaves a record no
// state holds. A plan of other content is refused, naming who wrote the
// record; the plan of the same content says it completes the create, the
// apply does, and the plan after it is empty. A finished record is refused
// to a second resource, naming who wrote it.
func TestAccInterruptedCreate_completedByTheNextApply(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "icr", uniqueName("icr")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns)
	object := func(resourceName, color string) string {
		return fmt.Sprintf(`
resource "kubefed_federated_object" %q {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings", namespace = %q }, data = { color = %q } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, resourceName, ns, color)
	}
	t.Cleanup(func() {
		ws.Write(base)
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	ws.Write(base)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	ws.Write(base + object("cm", "blue"))
	id := "configmaps/" + ns + "/settings"
	if code, out := ws.RunWith([]string{"KUBEFED_TEST_EXIT_AFTER_HOST_WRITE=" + id}, "apply", "-auto-approve", "-input=false", "-no-color"); code == 0 {
		t.Fatalf("the apply with the provider killed after its host write succeeded:\n%s", out)
	}
	mark := func() (string, bool) {
		t.Helper()
		record, err := newHostClients(t).dynamic.Resource(federatedCMsGVR).Namespace(ns).Get(context.Background(), "settings", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the host holds no record of the object: %v", err)
		}
		value, marked := record.GetAnnotations()[incompleteCreate]
		return value, marked
	}
	if value, marked := mark(); !marked || !strings.HasPrefix(value, "sha256:") {
		t.Fatalf("the cut-off create's record carries %s = %q (marked %v), want a sha256 digest", incompleteCreate, value, marked)
	}
	if list := ws.MustRun(0, "state", "list", "-no-color"); strings.Contains(list, "kubefed_federated_object.cm") {
		t.Fatalf("the cut-off create reached the state, so this test proves nothing:\n%s", list)
	}

	// Other content: the record is not this create's own.
	ws.Write(base + object("cm", "red"))
	out := ws.MustRun(1, "plan", "-input=false", "-no-color")
	if !acctest.ErrorMatching("Already exists in the host", "FederatedConfigMap "+ns+"/settings",
		"unfinished create from another template, placement or overrides", "written by field manager terraform-provider-kubefed").MatchString(out) {
		t.Fatalf("a create of other content was not refused, naming who wrote the record:\n%s", out)
	}

	// The same content: the plan says it completes the create, and the
	// apply does.
	ws.Write(base + object("cm", "blue"))
	out = ws.MustRun(0, "plan", "-input=false", "-no-color", "-out=complete.tfplan")
	if !acctest.ErrorMatching("Completes an interrupted create", "FederatedConfigMap "+ns+"/settings").MatchString(out) {
		t.Fatalf("the plan does not say it completes the interrupted create:\n%s", out)
	}
	ws.MustRun(0, "apply", "-input=false", "-no-color", "complete.tfplan")
	if value, marked := mark(); marked {
		t.Errorf("the completed create left the unfinished mark %q", value)
	}
	for _, m := range []string{"san-francisco", "new-york"} {
		if err := checkMemberField(t, m, configMapsGVR, ns, "settings", "blue", "data", "color")(nil); err != nil {
			t.Error(err)
		}
	}
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")

	// A finished record is refused to a second resource.
	ws.Write(base + object("cm", "blue") + object("again", "blue"))
	out = ws.MustRun(1, "plan", "-input=false", "-no-color")
	if !acctest.ErrorMatching("Already exists in the host", "FederatedConfigMap "+ns+"/settings exists already",
		"written by field manager terraform-provider-kubefed").MatchString(out) {
		t.Fatalf("a second create of a finished record was not refused, naming who wrote it:\n%s", out)
	}
}

// A create that fails on one cluster leaves its host record unfinished and
// the object tainted; fixed in the configuration before the next apply,
// the tainted object's replacement is of other content than the record,
// and takes it over all the same: the refresh shows the record is the
// state's own.
func TestAccInterruptedCreate_taintedReplacedWithOtherContent(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "icr-taint", uniqueName("icr-taint")
	cleanupObjectTest(t, prefix, ns)
	restartAfterTest(t, "new-york")
	ny := prefix + "-ny"
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns)
	config := func(color string) string {
		return base + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "c", namespace = %q }, data = { color = %q } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns, color)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				// new-york goes down between plan and apply of the create.
				Config:           config("blue"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{stopAtPlan{t: t, member: "new-york"}}},
				ExpectError:      acctest.ErrorMatching("failed on 1 cluster(s)", `cluster "`+ny+`" (CreationFailed)`),
			},
			{
				PreConfig: func() {
					if err := acctest.Lab(t).Start(context.Background(), "new-york"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("green"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkMemberField(t, "san-francisco", configMapsGVR, ns, "c", "green", "data", "color"),
					checkMemberField(t, "new-york", configMapsGVR, ns, "c", "green", "data", "color"),
				),
			},
		},
	})
}
