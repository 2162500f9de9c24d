package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
