package provider_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// interruptMembers are the lab members the interrupted objects go to.
var interruptMembers = []string{"san-francisco", "new-york", "berlin"}

// An apply interrupted (SIGINT, as Ctrl-C sends it) while it creates 20
// objects leaves a state that says what each cluster really holds: the next
// plan shows exactly the objects not finished, an apply converges, a second
// plan is empty, and shrinking the configuration removes everything.
func TestAccInterrupt_createOfTwentyObjects(t *testing.T) {
	lab := acctest.Lab(t)
	prefix, ns := "intr", uniqueName("intr")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	config := func(objects int) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  count      = %d
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "c${count.index}", namespace = %q }, data = { i = tostring(count.index) } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, objects, ns)
	}
	t.Cleanup(func() {
		ws.Write(config(0))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	ws.Write(config(0))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	// Far-away members keep each create in flight long enough to be cut.
	setLatency := func(d time.Duration) {
		for _, m := range interruptMembers {
			if err := lab.SetLatency(context.Background(), m, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() { setLatency(0) })
	setLatency(400 * time.Millisecond)
	ws.Write(config(20))
	interruptApply(t, ws, 5)
	setLatency(0)

	truth := memberTruth(t, ns, 20)
	assertCutInFlight(t, ws)
	assertStateIsTrue(t, ws, truth)
	assertPlanIsTheRemainingWork(t, ws, truth)

	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if done := memberTruth(t, ns, 20); len(done.missing()) > 0 {
		t.Fatalf("after the apply, still missing: %v", done.missing())
	}

	ws.Write(config(0))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	for i := range 20 {
		for _, m := range interruptMembers {
			if err := checkMemberAbsent(t, m, configMapsGVR, ns, fmt.Sprintf("c%d", i))(nil); err != nil {
				t.Error(err)
			}
		}
	}
}

// interruptApply starts an apply and sends it SIGINT while the creates of
// the first `after` objects are in flight, then waits for it.
func interruptApply(t *testing.T, ws *acctest.Workspace, after int) {
	t.Helper()
	cmd := ws.Command("apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=5")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	scanner := bufio.NewScanner(out)
	started, created := 0, 0
	for scanner.Scan() {
		line := scanner.Text()
		log.WriteString(line + "\n")
		if !strings.Contains(line, "kubefed_federated_object.cm[") {
			continue
		}
		switch {
		case strings.Contains(line, "Creating..."):
			if started++; started == after {
				// Their requests to the members are on the wire for a round
				// trip of 800 ms.
				time.AfterFunc(300*time.Millisecond, func() { _ = cmd.Process.Signal(syscall.SIGINT) })
			}
		case strings.Contains(line, "Creation complete"):
			created++
		}
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	t.Logf("interrupted apply:\n%s", log.String())
	if err == nil {
		t.Fatal("the interrupted apply succeeded: nothing was cut off, the test proves nothing")
	}
	if created >= 20 {
		t.Fatal("every object was created before the interrupt took effect")
	}
}

// truth is, for each object index, the members that hold it.
type truth map[int]map[string]bool

func (tr truth) missing() []int {
	var out []int
	for i := range len(tr) {
		if len(tr[i]) < len(interruptMembers) {
			out = append(out, i)
		}
	}
	return out
}

func memberTruth(t *testing.T, ns string, n int) truth {
	t.Helper()
	tr := truth{}
	for i := range n {
		tr[i] = map[string]bool{}
		for _, m := range interruptMembers {
			_, err := memberObject(t, m, configMapsGVR, ns, fmt.Sprintf("c%d", i))
			switch {
			case err == nil:
				tr[i][m] = true
			case !apierrors.IsNotFound(err):
				t.Fatal(err)
			}
		}
	}
	return tr
}

type stateResource struct {
	Address string `json:"address"`
	Index   *int   `json:"index"`
	Tainted bool   `json:"tainted"`
	Values  struct {
		Rendered      any `json:"rendered"`
		ClusterStatus map[string]struct {
			Status string `json:"status"`
		} `json:"cluster_status"`
	} `json:"values"`
}

// stateObjects reads the objects the state records, by index.
func stateObjects(t *testing.T, ws *acctest.Workspace) map[int]stateResource {
	t.Helper()
	var state struct {
		Values struct {
			RootModule struct {
				Resources []stateResource `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(ws.MustRun(0, "show", "-json", "-no-color")), &state); err != nil {
		t.Fatal(err)
	}
	out := map[int]stateResource{}
	for _, r := range state.Values.RootModule.Resources {
		if strings.HasPrefix(r.Address, "kubefed_federated_object.cm[") && r.Index != nil {
			out[*r.Index] = r
		}
	}
	return out
}

// memberOf is the lab member a test cluster name stands for.
func memberOf(cluster string) string {
	for suffix, m := range map[string]string{"-sf": "san-francisco", "-ny": "new-york", "-berlin": "berlin"} {
		if strings.HasSuffix(cluster, suffix) {
			return m
		}
	}
	return ""
}

// assertCutInFlight makes sure the interrupt cut a create while it wrote:
// some object says it does not know what a cluster holds.
func assertCutInFlight(t *testing.T, ws *acctest.Workspace) {
	t.Helper()
	for _, r := range stateObjects(t, ws) {
		for _, s := range r.Values.ClusterStatus {
			if s.Status == "Unknown" {
				return
			}
		}
	}
	t.Fatal("no create was cut in flight (no cluster is Unknown): the interrupt came too late for this test to prove anything")
}

// assertStateIsTrue checks that the state never claims a cluster lacks an
// object it holds, or holds one it lacks: each cluster is recorded as
// holding it, as not knowing (Unknown), or as not holding it.
func assertStateIsTrue(t *testing.T, ws *acctest.Workspace, tr truth) {
	t.Helper()
	for i, r := range stateObjects(t, ws) {
		texts, err := renderedTexts(r.Values.Rendered)
		if err != nil {
			t.Fatalf("object %d: %v", i, err)
		}
		for cluster, status := range r.Values.ClusterStatus {
			m := memberOf(cluster)
			rendered, recorded := texts[cluster]
			holds := tr[i][m]
			switch {
			case status.Status == "Unknown":
			case holds && (!recorded || rendered == ""):
				t.Errorf("object %d: state says %s (%s) lacks it, but %s holds it", i, cluster, status.Status, m)
			case !holds && recorded && rendered != "":
				t.Errorf("object %d: state says %s holds it, but %s does not", i, cluster, m)
			}
		}
	}
}

// assertPlanIsTheRemainingWork checks that the next plan touches exactly
// the objects some member lacks, and those whose create failed (Terraform
// replaces them; here in place, re-applying what the members hold).
func assertPlanIsTheRemainingWork(t *testing.T, ws *acctest.Workspace, tr truth) {
	t.Helper()
	state := stateObjects(t, ws)
	ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color", "-out=remaining.tfplan")
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Index   *int   `json:"index"`
			Change  struct {
				Actions []string `json:"actions"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(ws.MustRun(0, "show", "-json", "-no-color", "remaining.tfplan")), &plan); err != nil {
		t.Fatal(err)
	}
	planned := map[int]bool{}
	for _, c := range plan.ResourceChanges {
		if strings.HasPrefix(c.Address, "kubefed_federated_object.cm[") && c.Index != nil && c.Change.Actions[0] != "no-op" {
			planned[*c.Index] = true
		}
	}
	for i := range len(tr) {
		if want := len(tr[i]) < len(interruptMembers) || state[i].Tainted; planned[i] != want {
			t.Errorf("object %d: planned = %v, but members holding it: %v (tainted: %v)", i, planned[i], tr[i], state[i].Tainted)
		}
	}
}
