package provider_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// Adding a region to a running federation: objects placed by a selector
// take in the new cluster, and the apply that registers it never stops as
// inconsistent, whatever order the CLI applies the cluster and the objects
// in, with a saved plan or without one.
func TestAccClusterAdded_anyOrder(t *testing.T) {
	acctest.Lab(t)
	for _, c := range []struct {
		name  string
		order clusterAddedOrder
		saved bool
	}{
		{"objects applied first, saved plan", objectsFirst, true},
		{"objects applied first", objectsFirst, false},
		{"cluster applied first, saved plan", clusterFirst, true},
		{"cluster applied first", clusterFirst, false},
		{"no order, saved plan", noOrder, true},
		{"no order", noOrder, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			prefix := uniqueName("add")
			w := newClusterAddedWorkspace(t, prefix)
			w.write(c.order, "")
			out := w.apply(c.saved, 0)
			if strings.Contains(out, "inconsistent") {
				t.Fatalf("the apply that registers the cluster reports an inconsistency:\n%s", out)
			}
			if err := checkMemberAbsent(t, "berlin", configMapsGVR, w.ns, "settings")(nil); err != nil {
				t.Fatalf("the object landed on the new cluster in the apply that registered it, which its plan did not show: %v", err)
			}
			// The next plan shows the new placement as its only change.
			code, plan := w.ws.Run("plan", "-detailed-exitcode", "-input=false", "-no-color")
			if code != 2 || !strings.Contains(plan, "0 to add, 2 to change, 0 to destroy") {
				t.Fatalf("the plan after the registration exited %d, want the two objects' update only:\n%s", code, plan)
			}
			w.apply(false, 0)
			if err := checkMemberField(t, "berlin", configMapsGVR, w.ns, "settings", "on", "data", "feature")(nil); err != nil {
				t.Fatalf("the next apply did not place the object on the new cluster: %v", err)
			}
			w.emptyPlan("after the object took in the new cluster")
		})
	}
}

// A registration whose endpoint or credentials are wrong is refused by the
// plan when they are known then, before anything is written; when they are
// known at apply only, it fails its own resource alone: the objects whose
// selectors would match it, and a good registration beside it, apply.
func TestAccClusterAdded_failingRegistrationBesideAGoodOne(t *testing.T) {
	lab := acctest.Lab(t)
	berlin := lab.Cluster("berlin")
	wrongCluster := func(token string) string {
		return fmt.Sprintf(`
resource "terraform_data" "token" {
  input = "not-a-token-of-berlin"
}

resource "kubefed_federation_cluster" "wrong" {
  name         = "%%[1]s-wrong"
  api_endpoint = %q
  ca_bundle    = %s
  token        = %s
  labels       = { addtest = "%%[1]s" }
}
`, berlin.URL, acctest.Quote(string(berlin.CAPEM)), token)
	}
	for _, c := range []struct {
		name, cluster string
		atPlan        bool
		applyExit     int
	}{
		{"a token the member refuses, known at plan", wrongCluster(`"not-a-token-of-berlin"`), true, 1},
		{"a token the member refuses, known at apply only", wrongCluster("terraform_data.token.output"), false, 1},
		{"an endpoint that refuses connections, registered anyway", `
resource "kubefed_federation_cluster" "wrong" {
  name          = "%[1]s-wrong"
  api_endpoint  = "https://127.0.0.1:1"
  token         = "any"
  require_ready = false
  labels        = { addtest = "%[1]s" }
}
`, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			prefix := uniqueName("addbad")
			w := newClusterAddedWorkspace(t, prefix)
			w.write(noOrder, fmt.Sprintf(c.cluster, prefix))
			if c.atPlan {
				out := w.ws.MustRun(1, "plan", "-input=false", "-no-color")
				if !strings.Contains(out, fmt.Sprintf("Cluster %q is not ready", prefix+"-wrong")) || !strings.Contains(out, "token") {
					t.Fatalf("the plan does not name the refused registration and its token:\n%s", out)
				}
			} else {
				out := w.apply(false, c.applyExit)
				if strings.Contains(out, "inconsistent") {
					t.Fatalf("a failing registration made the apply inconsistent:\n%s", out)
				}
				if c.applyExit != 0 && !strings.Contains(out, fmt.Sprintf("Cluster %q is not ready", prefix+"-wrong")) {
					t.Fatalf("the apply does not say the registration failed:\n%s", out)
				}
				if !strings.Contains(out, "kubefed_federation_cluster.berlin: Creation complete") {
					t.Fatalf("the good registration beside the failing one did not complete:\n%s", out)
				}
			}
			w.write(noOrder, "")
			w.apply(false, 0)
			w.apply(false, 0)
			if err := checkMemberField(t, "berlin", configMapsGVR, w.ns, "settings", "on", "data", "feature")(nil); err != nil {
				t.Fatalf("the objects did not take in the good cluster: %v", err)
			}
			w.emptyPlan("after the failing registration was removed")
		})
	}
}

// clusterAddedOrder is how the configuration orders the new cluster and
// the objects that its selector-placed objects would take in.
type clusterAddedOrder int

const (
	noOrder clusterAddedOrder = iota
	objectsFirst
	clusterFirst
)

// clusterAddedWorkspace is a federation of san-francisco and new-york with
// a namespace and a ConfigMap placed by label selector, to which a test
// adds berlin.
type clusterAddedWorkspace struct {
	t      *testing.T
	ws     *acctest.Workspace
	prefix string
	ns     string
}

func newClusterAddedWorkspace(t *testing.T, prefix string) *clusterAddedWorkspace {
	w := &clusterAddedWorkspace{t: t, ws: acctest.NewWorkspace(t), prefix: prefix, ns: prefix}
	cleanupObjectTest(t, prefix, w.ns)
	t.Cleanup(func() {
		w.write(clusterFirst, "")
		w.ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	w.ws.Write(w.config(false, noOrder, ""))
	w.apply(false, 0)
	w.emptyPlan("before the new cluster")
	return w
}

// write adds berlin, ordered as asked, and extra configuration.
func (w *clusterAddedWorkspace) write(order clusterAddedOrder, extra string) {
	w.ws.Write(w.config(true, order, extra))
}

func (w *clusterAddedWorkspace) config(withBerlin bool, order clusterAddedOrder, extra string) string {
	t := w.t
	labels := fmt.Sprintf("  labels = { addtest = %q }", w.prefix)
	objectsAfter, clusterAfter := "", ""
	switch order {
	case clusterFirst:
		objectsAfter = ", kubefed_federation_cluster.berlin"
	case objectsFirst:
		clusterAfter = "\n  depends_on = [kubefed_federated_object.settings]"
	}
	config := acctest.HostProviderConfig(t) + objectTestTypes +
		memberBlock("sf", w.prefix+"-sf", "san-francisco", labels)(t) +
		memberBlock("ny", w.prefix+"-ny", "new-york", labels)(t)
	if withBerlin {
		config += memberBlock("berlin", w.prefix+"-berlin", "berlin", labels+clusterAfter)(t)
	}
	return config + extra + fmt.Sprintf(`
resource "kubefed_federated_object" "ns" {
  type       = kubefed_federated_type.namespaces.name
  template   = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %[1]q } })
  placement  = { cluster_selector = { match_labels = { addtest = %[2]q } } }
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny%[3]s]
}

resource "kubefed_federated_object" "settings" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings", namespace = %[1]q }, data = { feature = "on" } })
  placement  = { cluster_selector = { match_labels = { addtest = %[2]q } } }
  depends_on = [kubefed_federated_object.ns%[3]s]
}
`, w.ns, w.prefix, objectsAfter)
}

// apply applies, from a saved plan or directly, and returns the output.
func (w *clusterAddedWorkspace) apply(saved bool, want int) string {
	w.t.Helper()
	if !saved {
		return w.ws.MustRun(want, "apply", "-auto-approve", "-input=false", "-no-color")
	}
	w.ws.MustRun(0, "plan", "-out=next.tfplan", "-input=false", "-no-color")
	return w.ws.MustRun(want, "apply", "-input=false", "-no-color", "next.tfplan")
}

func (w *clusterAddedWorkspace) emptyPlan(why string) {
	w.t.Helper()
	if code, out := w.ws.Run("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		w.t.Fatalf("%s: plan exited %d, want an empty plan:\n%s", why, code, out)
	}
}
