package provider_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest/roundtrips"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// requestObjects is how many objects the request-counting test plans: far
// more than the handful of requests a plan may make per cluster.
const requestObjects = 20

// A no-change plan of many objects of one type reads each cluster with one
// list of the type, not one get per object, and the host likewise (a list
// in every namespace, which the type's refresh starts); every
// cluster is reached over one connection for the whole plan. The
// provider's request trace counts what it sent; the API servers' counters
// of the type (PodTemplates, which only controllers read otherwise) check
// that the trace misses nothing.
func TestAccRequests_noChangePlanListsOncePerCluster(t *testing.T) {
	lab := acctest.Lab(t)
	prefix, ns := "req", uniqueName("req")
	cleanupObjectTest(t, prefix, ns)
	host := newHostClients(t)
	t.Cleanup(func() {
		ctx := context.Background()
		gvr := schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federatedpodtemplates"}
		_ = host.dynamic.Resource(gvr).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		if t.Failed() {
			_ = host.dynamic.Resource(federatedTypeConfigs).Namespace(federationNamespace).Delete(ctx, "podtemplates", metav1.DeleteOptions{})
			_ = host.dynamic.Resource(crds).Delete(ctx, "federatedpodtemplates.types.kubefed.io", metav1.DeleteOptions{})
		}
	})
	ws := acctest.NewWorkspace(t)
	config := func(objects int) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_type" "podtemplates" {
  target_api_version = "v1"
  target_kind        = "PodTemplate"
}

resource "kubefed_federated_object" "pt" {
  count    = %d
  type     = kubefed_federated_type.podtemplates.name
  template = yamlencode({
    apiVersion = "v1", kind = "PodTemplate", metadata = { name = "p${count.index}", namespace = %q }
    template   = { spec = { containers = [{ name = "app", image = "registry.example/app:1" }] } }
  })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, objects, ns)
	}
	t.Cleanup(func() {
		ws.Write(config(0))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	ws.Write(config(requestObjects))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	clusters := append([]string{"host"}, interruptMembers...)
	before := map[string]requestCounts{}
	connections := map[string]int64{}
	for _, c := range clusters {
		before[c] = readRequestCounts(t, c)
		n, err := lab.Connections(c)
		if err != nil {
			t.Fatal(err)
		}
		connections[c] = n
	}
	trace := filepath.Join(t.TempDir(), "requests.jsonl")
	ws.MustRunWith(0, []string{kube.RequestTraceEnv + "=" + trace}, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	requests, err := roundtrips.Read(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clusters {
		n, err := lab.Connections(c)
		if err != nil {
			t.Fatal(err)
		}
		// The plan's own provider process, and none per resource.
		if opened := n - connections[c]; opened < 1 || opened > 2 {
			t.Errorf("cluster %s: the plan opened %d connections, want 1 (2 at most)", c, opened)
		}
		// The provider's own trace counts its requests; the API server's
		// counters count others' too (the namespace controller lists every
		// resource of a namespace being deleted), so they only bound it.
		sent := tracedCounts(requests, lab.Cluster(c).URL, countedResource(c))
		served := readRequestCounts(t, c).minus(before[c])
		if served.lists < sent.lists || served.everyNamespace < sent.everyNamespace || served.gets < sent.gets {
			t.Errorf("cluster %s: the trace holds %+v, more than the API server answered (%+v): the trace is wrong", c, sent, served)
		}
		// One list, which the type's refresh started in every namespace, so
		// the objects' refresh listed no namespace of its own.
		if sent.lists != 1 || sent.everyNamespace != 1 || sent.gets > 1 {
			t.Errorf("cluster %s: the no-change plan of %d objects made %d lists (%d in every namespace) and %d gets of %s; "+
				"want the one list in every namespace, started by the type's refresh, and no gets",
				c, requestObjects, sent.lists, sent.everyNamespace, sent.gets, countedResource(c))
			logRequestsOf(t, requests, lab.Cluster(c).URL, countedResource(c))
		}
	}
}

// tracedCounts counts the traced gets and lists of resource sent to the
// server at url.
func tracedCounts(requests []kube.TracedRequest, url, resource string) requestCounts {
	var counts requestCounts
	for _, r := range requests {
		if r.Method != http.MethodGet || !strings.HasSuffix(url, "//"+r.Server) {
			continue
		}
		segments := strings.Split(strings.Trim(r.Path, "/"), "/")
		at := slices.Index(segments, resource)
		switch {
		case at < 0:
		case at == len(segments)-1:
			counts.lists++
			if at < 2 || segments[at-2] != "namespaces" {
				counts.everyNamespace++
			}
		case at == len(segments)-2:
			counts.gets++
		}
	}
	return counts
}

// logRequestsOf logs the traced requests to the server at url whose path
// names resource: which of them were sent ahead, and which a read sent.
func logRequestsOf(t *testing.T, requests []kube.TracedRequest, url, resource string) {
	for _, r := range requests {
		if strings.HasSuffix(url, "//"+r.Server) && strings.HasSuffix(r.Path, "/"+resource) {
			t.Logf("pid %d %s %s %s start %s took %s status %d ahead %t", r.Process, r.Server, r.Method, r.Path,
				r.Start.Format("15:04:05.000"), r.End.Sub(r.Start), r.Status, r.Ahead)
		}
	}
}

// requestCounts are an API server's counts of gets and lists of the
// resource the request-counting test federates, and of the lists those
// that were in every namespace.
type requestCounts struct{ gets, lists, everyNamespace int }

func (a requestCounts) minus(b requestCounts) requestCounts {
	return requestCounts{gets: a.gets - b.gets, lists: a.lists - b.lists, everyNamespace: a.everyNamespace - b.everyNamespace}
}

// countedResource is what the test counts on a cluster: the Federated<Kind>
// in the host, the PodTemplates on the members.
func countedResource(cluster string) string {
	if cluster == "host" {
		return "federatedpodtemplates"
	}
	return "podtemplates"
}

var requestTotal = regexp.MustCompile(`^apiserver_request_total\{(.*)\} (\d+)`)

// readRequestCounts reads the cluster's apiserver_request_total counters
// for its counted resource.
func readRequestCounts(t *testing.T, cluster string) requestCounts {
	t.Helper()
	cs, err := kubernetes.NewForConfig(acctest.Lab(t).Cluster(cluster).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatalf("reading the metrics of %s: %v", cluster, err)
	}
	resource := fmt.Sprintf(`resource="%s"`, countedResource(cluster))
	var counts requestCounts
	scanner := bufio.NewScanner(bytes.NewReader(raw))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		m := requestTotal.FindStringSubmatch(scanner.Text())
		if m == nil || !strings.Contains(m[1], resource) || !strings.Contains(m[1], `subresource=""`) {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		switch {
		case strings.Contains(m[1], `verb="GET"`):
			counts.gets += n
		case strings.Contains(m[1], `verb="LIST"`):
			counts.lists += n
			if strings.Contains(m[1], `scope="cluster"`) {
				counts.everyNamespace += n
			}
		}
	}
	return counts
}
