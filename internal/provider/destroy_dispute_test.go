package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// Removing an object never needs to win a field: after another tool takes
// a field with a forced server-side apply, the plan warns, and destroy
// removes the object from every member.
func TestAccDestroy_underAFieldDispute(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "dispute", uniqueName("dispute")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	ws.Write(acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "disputed", namespace = %q }, data = { color = "blue" } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns))
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	claim := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"disputed"},"data":{"color":"red"}}`)
	force := true
	if _, err := memberClient(t, "new-york").Resource(configMapsGVR).Namespace(ns).Patch(context.Background(), "disputed",
		types.ApplyPatchType, claim, metav1.PatchOptions{FieldManager: "other-tool", Force: &force}); err != nil {
		t.Fatal(err)
	}
	plan := ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if !strings.Contains(plan, fmt.Sprintf("Another tool manages fields of the object on cluster %q", prefix+"-ny")) {
		t.Fatalf("the plan does not name the dispute:\n%s", plan)
	}
	out := ws.MustRun(0, "destroy", "-auto-approve", "-input=false", "-no-color")
	if strings.Contains(out, "Error") {
		t.Fatalf("destroy reported an error:\n%s", out)
	}
	for _, member := range []string{"san-francisco", "new-york"} {
		if err := checkMemberAbsent(t, member, configMapsGVR, ns, "disputed")(nil); err != nil {
			t.Errorf("destroy left the object on %s: %v", member, err)
		}
	}
}
