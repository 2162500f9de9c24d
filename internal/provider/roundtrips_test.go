package provider_test

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest/roundtrips"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
)

// roundTripLatency delays each direction to the host and to every member,
// so that a round trip takes 2×roundTripLatency: far longer than the
// scheduling delays of a loaded machine, so two requests sent together
// always overlap in the trace and only requests that wait for each other
// count as a sequence.
const roundTripLatency = 60 * time.Millisecond

// roundTripBudget is how many requests in sequence one provider process of
// an operation may send to the host and to each member, and how many lists
// it may send ahead to each cluster. The requests are listed, with why each
// waits for the one before, in docs/performance.md.
type roundTripBudget struct {
	host, member int
	// ahead is how many requests each cluster may receive sent ahead of
	// the reads they answer: one list per namespaced type the process
	// refreshes.
	ahead int
}

// roundTripBudgets are the budgets of each operation's provider processes,
// in the order the CLI starts them: a plan is one process that refreshes
// and plans; an apply is that, and then the process that applies (which
// plans each resource once more, as the CLI asks, before applying it).
// Sequences are counted as the trace shows them: requests the provider
// sends in the background (the host's API discovery, /api then /apis)
// count when they precede one the run waits for, so a budget is an upper
// bound of what the run waits for. Lists sent ahead (a type's refresh
// starts its objects' lists) are left out of the sequences and counted on
// their own: no request waits for one to start, and a read that waits for
// one waits less than for a list it would start itself, since the type's
// refresh ends before the objects' starts. Counted in, they would chain by
// timing alone with whatever the run sends after they end.
var roundTripBudgets = map[string][]roundTripBudget{
	"create":         {{host: 3, member: 2, ahead: 1}, {host: 4, member: 2}},
	"no-change plan": {{host: 3, member: 2, ahead: 1}},
	"update":         {{host: 4, member: 3, ahead: 1}, {host: 4, member: 2}},
	// A delete's apply confirms each member's identity (one request) before
	// its first write there: a destroy plans nothing that could ask ahead.
	"delete":             {{host: 3, member: 3, ahead: 1}, {host: 5, member: 2}},
	"register a cluster": {{host: 4, member: 3, ahead: 1}, {host: 6, member: 2}},
}

// dialsAhead are the operations whose apply starts the connections to the
// object's members while it reads the host: an update and a delete, whose
// state notes the members' endpoints.
var dialsAhead = map[string]bool{"update": true, "delete": true}

// checkDialledAhead fails unless every request of an apply's process to a
// member went over the connection dialled ahead of the host's answer.
func checkDialledAhead(t *testing.T, op string, requests []kube.TracedRequest, names map[string]string) {
	t.Helper()
	for server, name := range names {
		if name == "host" {
			continue
		}
		toMember := roundtrips.Filter(requests, func(r kube.TracedRequest) bool { return r.Server == server })
		notAhead := roundtrips.Filter(toMember, func(r kube.TracedRequest) bool { return !r.DialledAhead })
		if len(toMember) == 0 || len(notAhead) > 0 {
			t.Errorf("%s: the apply sent %d requests to %s, %d of them over a connection not dialled ahead:\n%s",
				op, len(toMember), name, len(notAhead), roundtrips.Describe(notAhead, names))
		}
	}
}

// Each operation on one object placed on three far members, and the
// registration of a cluster, sends no more requests in sequence to the
// host and to each member than its budget.
func TestAccRoundTrips_withinBudget(t *testing.T) {
	lab := acctest.Lab(t)
	prefix, ns := "rt", uniqueName("rt")
	cleanupObjectTest(t, prefix, ns)
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, prefix+"-extra") })
	ws := acctest.NewWorkspace(t)
	config := func(object bool, data string, extra bool) string {
		c := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns)
		if object {
			c += fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "rt", namespace = %q }, data = { v = %q } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name] }
}
`, ns, data)
		}
		if extra {
			c += memberBlock("extra", prefix+"-extra", "berlin", "")(t)
		}
		return c
	}
	t.Cleanup(func() {
		ws.Write(config(false, "", false))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	ws.Write(config(false, "", false))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	names := clusterServerNames(t, lab)
	setClusterLatency(t, lab, roundTripLatency)

	traceDir := t.TempDir()
	run := func(op string, args ...string) {
		t.Helper()
		trace := filepath.Join(traceDir, op)
		ws.MustRunWith(0, []string{kube.RequestTraceEnv + "=" + trace}, args...)
		requests, err := roundtrips.Read(trace)
		if err != nil {
			t.Fatal(err)
		}
		checkRoundTrips(t, op, requests, names)
	}
	ws.Write(config(true, "1", false))
	run("create", "apply", "-auto-approve", "-input=false", "-no-color")
	run("no-change plan", "plan", "-detailed-exitcode", "-input=false", "-no-color")
	ws.Write(config(true, "2", false))
	run("update", "apply", "-auto-approve", "-input=false", "-no-color")
	ws.Write(config(false, "", false))
	run("delete", "apply", "-auto-approve", "-input=false", "-no-color")
	ws.Write(config(false, "", true))
	run("register a cluster", "apply", "-auto-approve", "-input=false", "-no-color")
}

// checkRoundTrips logs, for each provider process of an operation, the
// longest sequence of requests to each cluster, and fails where one is
// longer than the operation's budget, or a cluster received more requests
// sent ahead than it allows.
func checkRoundTrips(t *testing.T, op string, requests []kube.TracedRequest, names map[string]string) {
	t.Helper()
	checkRoundTripsAgainst(t, op, roundTripBudgets[op], requests, names)
}

// checkRoundTripsAgainst is checkRoundTrips with the budgets given.
func checkRoundTripsAgainst(t *testing.T, op string, budgets []roundTripBudget, requests []kube.TracedRequest, names map[string]string) {
	t.Helper()
	processes := roundtrips.Processes(requests)
	if len(processes) != len(budgets) {
		t.Errorf("%s: %d provider processes sent requests, and %d have a budget", op, len(processes), len(budgets))
	}
	for i, pid := range processes {
		mine := roundtrips.Filter(requests, func(r kube.TracedRequest) bool { return r.Process == pid })
		waited := roundtrips.Filter(mine, func(r kube.TracedRequest) bool { return !r.Ahead })
		all := roundtrips.Sequence(waited)
		t.Logf("%s, provider process %d: %d requests (%d sent ahead), %d in sequence:\n%s", op, i+1, len(mine),
			len(mine)-len(waited), len(all), roundtrips.Describe(all, names))
		if i >= len(budgets) {
			continue
		}
		if i == len(budgets)-1 && dialsAhead[op] {
			checkDialledAhead(t, op, mine, names)
		}
		for server, name := range names {
			onServer := func(r kube.TracedRequest) bool { return r.Server == server }
			limit := budgets[i].member
			if name == "host" {
				limit = budgets[i].host
			}
			if chain := roundtrips.Sequence(roundtrips.Filter(waited, onServer)); len(chain) > limit {
				t.Errorf("%s: provider process %d sent %d requests in sequence to %s, over the budget of %d:\n%s",
					op, i+1, len(chain), name, limit, roundtrips.Describe(chain, names))
			}
			ahead := roundtrips.Filter(mine, func(r kube.TracedRequest) bool { return r.Ahead && onServer(r) })
			if len(ahead) > budgets[i].ahead {
				t.Errorf("%s: provider process %d sent %d requests ahead to %s, over the budget of %d:\n%s",
					op, i+1, len(ahead), name, budgets[i].ahead, roundtrips.Describe(ahead, names))
			}
		}
	}
}

// applicationRoundTripObjects is how many ConfigMaps the application of the
// round-trip test holds, beside their namespace: three times what
// Terraform works on at once as separate resources. The test's provider
// lets twice as many requests wait on one cluster (max_requests_per_cluster),
// so that a turn of them never waits for another request of the run.
const applicationRoundTripObjects = 30

// applicationRoundTripBudgets are roundTripBudgets for the application of
// applicationRoundTripObjects ConfigMaps and their namespace, whose
// configuration enables three namespaced types (one list ahead each). An
// update sends no more in sequence than one object's: its thirty objects'
// records, dry runs and writes each go in one turn. A create writes the
// namespace's tier first (its record, the host namespace, its members),
// then the ConfigMaps'; a delete looks into the member namespace before
// deleting it (discovery, then lists of every namespaced kind, sixteen
// kinds at a time), and then into the host's.
var applicationRoundTripBudgets = map[string][]roundTripBudget{
	"create":         {{host: 3, member: 2, ahead: 3}, {host: 11, member: 4}},
	"no-change plan": {{host: 3, member: 2, ahead: 3}},
	"update":         {{host: 4, member: 4, ahead: 3}, {host: 5, member: 3}},
	"delete":         {{host: 3, member: 3, ahead: 3}, {host: 8, member: 8}},
}

// An application of many objects on three far members sends no more
// requests in sequence than one object does, give or take its tiers: its
// objects' requests go together, not a few objects at a time.
func TestAccRoundTrips_applicationWithinBudget(t *testing.T) {
	lab := acctest.Lab(t)
	prefix, ns := "rta", uniqueName("rta")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	provider := strings.Replace(acctest.HostProviderConfig(t), "\n}", "\n  max_requests_per_cluster = 64\n}", 1)
	base := provider + objectTestTypes + applicationTypes + objectTestClusters(t, prefix)
	withApp := func(generation int) string {
		manifests := fmt.Sprintf("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", ns)
		for i := range applicationRoundTripObjects {
			manifests += fmt.Sprintf("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n  namespace: %s\ndata:\n  generation: \"%d\"\n",
				i, ns, generation)
		}
		return strings.Replace(applicationConfig(t, prefix, manifests, ""), acctest.HostProviderConfig(t), provider, 1)
	}
	t.Cleanup(func() {
		ws.Write(base)
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	ws.Write(base)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	names := clusterServerNames(t, lab)
	setClusterLatency(t, lab, roundTripLatency)
	traceDir := t.TempDir()
	for _, step := range []struct {
		op, config string
		args       []string
	}{
		{"create", withApp(1), []string{"apply", "-auto-approve"}},
		{"no-change plan", withApp(1), []string{"plan", "-detailed-exitcode"}},
		{"update", withApp(2), []string{"apply", "-auto-approve"}},
		{"delete", base, []string{"apply", "-auto-approve"}},
	} {
		trace := filepath.Join(traceDir, step.op)
		ws.Write(step.config)
		ws.MustRunWith(0, []string{kube.RequestTraceEnv + "=" + trace}, append(step.args, "-input=false", "-no-color")...)
		requests, err := roundtrips.Read(trace)
		if err != nil {
			t.Fatal(err)
		}
		checkRoundTripsAgainst(t, "the application's "+step.op, applicationRoundTripBudgets[step.op], requests, names)
	}
}

// clusterServerNames are the lab's clusters by the host:port the trace
// names them with.
func clusterServerNames(t *testing.T, running *lab.Lab) map[string]string {
	t.Helper()
	names := map[string]string{}
	for _, c := range running.Clusters() {
		u, err := url.Parse(c.URL)
		if err != nil {
			t.Fatal(err)
		}
		names[u.Host] = c.Name
	}
	return names
}

// The update and the destroy of an application send every request to a
// member over the connection dialled ahead of the host's answer, from the
// endpoints its refresh noted.
func TestAccFederatedApplication_updateAndDestroyDialMembersAhead(t *testing.T) {
	lab := acctest.Lab(t)
	prefix, ns := "app-ahead", uniqueName("app-ahead")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	base := acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + objectTestClusters(t, prefix)
	withApp := func(color string) string {
		return applicationConfig(t, prefix, fmt.Sprintf(`---
apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: %[1]s
data:
  color: %[2]s
`, ns, color), "")
	}
	t.Cleanup(func() {
		ws.Write(base)
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	ws.Write(withApp("blue"))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	names := clusterServerNames(t, lab)
	for _, step := range []struct{ op, config string }{{"update", withApp("green")}, {"delete", base}} {
		trace := filepath.Join(t.TempDir(), step.op)
		ws.Write(step.config)
		ws.MustRunWith(0, []string{kube.RequestTraceEnv + "=" + trace}, "apply", "-auto-approve", "-input=false", "-no-color")
		requests, err := roundtrips.Read(trace)
		if err != nil {
			t.Fatal(err)
		}
		processes := roundtrips.Processes(requests)
		if len(processes) != 2 {
			t.Fatalf("%s: %d provider processes sent requests, want the plan's and the apply's", step.op, len(processes))
		}
		applying := roundtrips.Filter(requests, func(r kube.TracedRequest) bool { return r.Process == processes[1] })
		checkDialledAhead(t, "the application's "+step.op, applying, names)
	}
}

// setClusterLatency delays each direction to the host and every member of
// the lab, until the test ends.
func setClusterLatency(t *testing.T, lab interface {
	SetLatency(context.Context, string, time.Duration) error
}, d time.Duration) {
	names := append([]string{"host"}, interruptMembers...)
	set := func(d time.Duration) {
		for _, c := range names {
			if err := lab.SetLatency(context.Background(), c, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() { set(0) })
	set(d)
}
