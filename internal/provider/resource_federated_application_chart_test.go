package provider_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

var (
	podsGVR            = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	serviceAccountsGVR = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
)

// upstreamCharts are two charts as their authors publish them, rendered by
// the pinned helm: the one `helm create` writes (a ServiceAccount, a
// Service and a Deployment that name no namespace, a test Pod), and the
// MariaDB chart Helm's own tests carry in its module, of which the test
// Pod named with randAlphaNum and the ConfigMap it reads are rendered (its
// StatefulSets use an API version today's clusters no longer serve).
type upstreamCharts struct {
	t             *testing.T
	helm, scratch string
	created       string
	mariadb       string
}

func newUpstreamCharts(t *testing.T) *upstreamCharts {
	t.Helper()
	c := &upstreamCharts{t: t, helm: helmBinary(t), scratch: t.TempDir()}
	c.run(c.scratch, "create", "mychart")
	c.created = filepath.Join(c.scratch, "mychart")
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "helm.sh/helm/v4")
	cmd.Dir = filepath.Join(repoRoot(t), "tools", "helm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("finding the helm module of tools/helm (scripts/tool.sh helm downloads it): %v", err)
	}
	c.mariadb = filepath.Join(strings.TrimSpace(string(out)), "pkg", "action", "testdata", "charts",
		"chart-with-uncompressed-dependencies", "charts", "mariadb")
	return c
}

func (c *upstreamCharts) run(dir string, args ...string) string {
	c.t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(c.helm, args...)
	cmd.Dir, cmd.Stderr = dir, &stderr
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("helm %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// render runs helm template on both charts with their default values and
// writes each output to a file named after round; it returns the files.
func (c *upstreamCharts) render(round string) (created, mariadb string) {
	c.t.Helper()
	created = filepath.Join(c.scratch, "mychart-"+round+".yaml")
	mariadb = filepath.Join(c.scratch, "mariadb-"+round+".yaml")
	for file, text := range map[string]string{
		created: c.run(c.scratch, "template", "rel", c.created),
		mariadb: c.run(c.scratch, "template", "db", c.mariadb, "--show-only", "templates/test-runner.yaml", "--show-only", "templates/tests.yaml"),
	} {
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			c.t.Fatal(err)
		}
	}
	return created, mariadb
}

// A chart as helm template prints it: `helm create`'s, whose templates name
// no namespace, and a test Pod whose name is random on each rendering.
// Without default_namespace, validate names every namespace-less object of
// a namespaced kind; with it, every member runs the chart in that
// namespace, the plan warns of the tests and federates none; rendered
// again, twice, with the same values, the chart plans nothing.
func TestAccFederatedApplication_upstreamChart(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-chart", uniqueName("app-chart")
	cleanupObjectTest(t, prefix, ns)
	charts := newUpstreamCharts(t)
	ws := acctest.NewWorkspace(t)
	all := []string{"san-francisco", "new-york", "berlin"}
	config := func(defaultNamespace string, files ...string) string {
		if defaultNamespace != "" {
			defaultNamespace = fmt.Sprintf("default_namespace = %q", defaultNamespace)
		}
		return acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + objectTestClusters(t, prefix) + fmt.Sprintf(`
resource "kubefed_federated_type" "serviceaccounts" {
  target_api_version = "v1"
  target_kind        = "ServiceAccount"
}

resource "kubefed_federated_application" "chart" {
  name = %[1]q
  %[2]s
  manifests = [yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %[3]q } }), file(%[4]q), file(%[5]q)]
  placement = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name] }
  timeouts  = { create = "3m", update = "3m" }
  depends_on = [kubefed_federated_type.configmaps, kubefed_federated_type.namespaces, kubefed_federated_type.deployments,
    kubefed_federated_type.services, kubefed_federated_type.serviceaccounts]
}
`, prefix, defaultNamespace, ns, files[0], files[1])
	}
	created, mariadb := charts.render("first")
	t.Cleanup(func() {
		ws.Write(config(ns, created, mariadb))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
		_ = newHostClients(t).dynamic.Resource(schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1",
			Resource: "federatedserviceaccounts"}).Namespace(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	})

	ws.Write(config("", created, mariadb))
	out := flat(ws.MustRun(1, "validate", "-no-color"))
	for _, want := range []string{"Missing namespace", "manifests[1]: element 1, document 0 (from line 2) (ServiceAccount rel-mychart): " +
		"metadata.namespace is required: ServiceAccount is namespaced. Set default_namespace", "(Deployment rel-mychart)",
		"(Service rel-mychart)", "manifests[2]", "(ConfigMap db-mariadb-tests)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("validate does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "test-connection") || strings.Contains(out, "db-mariadb-test-") {
		t.Fatalf("validate asks a namespace of a test, which is left out:\n%s", out)
	}

	ws.Write(config(ns, created, mariadb))
	out = flat(ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color"))
	for _, want := range []string{"Helm hooks and tests left out", "Pod " + ns + "/rel-mychart-test-connection (helm.sh/hook: test) (manifests[1])",
		"Pod " + ns + "/db-mariadb-test-", "(helm.sh/hook: test-success) (manifests[2])", `"/v1/ServiceAccount/` + ns + `/rel-mychart"`,
		`"apps/v1/Deployment/` + ns + `/rel-mychart"`, `"/v1/ConfigMap/` + ns + `/db-mariadb-tests"`} {
		if !strings.Contains(out, want) {
			t.Fatalf("the apply does not say %q:\n%s", want, out)
		}
	}
	for _, m := range all {
		for _, check := range []func() error{
			func() error {
				return checkMemberField(t, m, serviceAccountsGVR, ns, "rel-mychart", "rel", "metadata", "labels", "app.kubernetes.io/instance")(nil)
			},
			func() error {
				return checkMemberField(t, m, deploymentsGVR, ns, "rel-mychart", 1, "status", "availableReplicas")(nil)
			},
			func() error {
				return checkMemberField(t, m, servicesGVR, ns, "rel-mychart", "ClusterIP", "spec", "type")(nil)
			},
			func() error {
				return checkMemberField(t, m, configMapsGVR, ns, "db-mariadb-tests", ns, "metadata", "namespace")(nil)
			},
			func() error { return noTestPods(t, m, ns) },
		} {
			if err := check(); err != nil {
				t.Fatal(err)
			}
		}
	}

	before := readFile(t, mariadb)
	for _, round := range []string{"second", "third"} {
		created, mariadb = charts.render(round)
		if readFile(t, mariadb) == before {
			t.Fatalf("the %s rendering gives the test Pod the same name as the first, which this test is about", round)
		}
		ws.Write(config(ns, created, mariadb))
		out = flat(ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color"))
		name := regexp.MustCompile(`db-mariadb-test-[a-z0-9]+`).FindString(readFile(t, mariadb))
		if !strings.Contains(out, "No changes") || !strings.Contains(out, "Pod "+ns+"/"+name+" (helm.sh/hook: test-success)") {
			t.Fatalf("the %s rendering with the same values plans a change, or does not warn of its tests:\n%s", round, out)
		}
	}
}

// noTestPods checks that no test Pod of the charts runs on a member.
func noTestPods(t *testing.T, member, ns string) error {
	pods, err := memberClient(t, member).Resource(podsGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", member, err)
	}
	for _, p := range pods.Items {
		if name := p.GetName(); name == "rel-mychart-test-connection" || strings.HasPrefix(name, "db-mariadb-test-") {
			return fmt.Errorf("%s runs the test Pod %s", member, name)
		}
	}
	return nil
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// flat is the CLI's output with its line breaks and box drawing as single
// spaces, so that a sentence wrapped across lines is found whole.
func flat(out string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " ")
}
