package provider_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// helmBinary is the pinned helm: KUBEFED_HELM when set, else the build of
// scripts/tool.sh, which make testacc makes before the tests run.
func helmBinary(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("KUBEFED_HELM"); path != "" {
		return path
	}
	out, err := exec.Command(filepath.Join(repoRoot(t), "scripts", "tool.sh"), "--cached", "helm").Output()
	if err != nil {
		t.Fatalf("helm is not built: run scripts/tool.sh helm once (make testacc does), or set KUBEFED_HELM to a helm binary")
	}
	return strings.TrimSpace(string(out))
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// renderWebChart runs `helm template` on examples/charts/web with values
// set, writes its output to a file of the test and returns the file's path.
func renderWebChart(t *testing.T, helm, file string, set ...string) string {
	t.Helper()
	args := []string{"template", "web", filepath.Join(repoRoot(t), "examples", "charts", "web")}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(helm, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template examples/charts/web: %v: %s", err, stderr.String())
	}
	if !hasCommentOnlyDocument(string(out)) {
		t.Fatalf("helm template examples/charts/web wrote no comment-only document, which this test is about:\n%s", out)
	}
	path := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// hasCommentOnlyDocument tells whether a YAML stream holds a document of
// comments and blank lines only.
func hasCommentOnlyDocument(stream string) bool {
	for _, doc := range strings.Split(stream, "\n---") {
		only := true
		for _, line := range strings.Split(doc, "\n") {
			if l := strings.TrimSpace(line); l != "" && l != "---" && !strings.HasPrefix(l, "#") {
				only = false
				break
			}
		}
		if only {
			return true
		}
	}
	return false
}

func TestHasCommentOnlyDocument(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		want         bool
	}{
		{"objects only", "---\n# Source: a\nkind: A\n---\n# Source: b\nkind: B\n", false},
		{"a comment-only document", "---\n# Source: a\nkind: A\n---\n# Source: b\n# off\n", true},
		{"an empty document", "---\nkind: A\n---\n---\nkind: B\n", true},
		{"comment then object", "# header\n---\nkind: A\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hasCommentOnlyDocument(tc.stream); got != tc.want {
				t.Errorf("hasCommentOnlyDocument = %v, want %v", got, tc.want)
			}
		})
	}
}

// helmAppConfig federates the rendered chart in file to the test's
// clusters, as the guide does.
func helmAppConfig(t *testing.T, prefix, file string) string {
	return acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + objectTestClusters(t, prefix) + fmt.Sprintf(`
resource "kubefed_federated_application" "web" {
  name      = %q
  manifests = [file(%q)]
  placement = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name] }
  timeouts  = { create = "3m", update = "3m" }
  depends_on = [kubefed_federated_type.configmaps, kubefed_federated_type.namespaces, kubefed_federated_type.deployments,
    kubefed_federated_type.services]
}
`, prefix, file)
}

// The output of helm template for the example chart, with its "# Source"
// comments and the comment-only document of a disabled template, is
// federated as it is: every member runs it, and the next plan is empty;
// rendered again with other values, the change lands and a template that
// renders nothing any more is pruned from every member.
func TestAccFederatedApplication_helmChart(t *testing.T) {
	acctest.Lab(t)
	helm := helmBinary(t)
	prefix, ns := "app-helm", uniqueName("app-helm")
	cleanupObjectTest(t, prefix, ns)
	first := renderWebChart(t, helm, "web.yaml", "namespace="+ns, "replicas=3", "image=nginx:1.27")
	second := renderWebChart(t, helm, "web-green.yaml", "namespace="+ns, "replicas=3", "image=nginx:1.28",
		"color=green", "service.enabled=false")
	all := []string{"san-francisco", "new-york", "berlin"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: helmAppConfig(t, prefix, first),
				Check: resource.ComposeTestCheckFunc(
					checkRunning(t, ns, "nginx:1.27", all...),
					checkMemberField(t, "berlin", configMapsGVR, ns, "web-config", "blue", "data", "color"),
					checkMemberField(t, "new-york", servicesGVR, ns, "web", "web", "spec", "selector", "app.kubernetes.io/instance"),
					resource.TestCheckResourceAttr("kubefed_federated_application.web", "objects.#", "4"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: helmAppConfig(t, prefix, second),
				Check: resource.ComposeTestCheckFunc(
					checkRunning(t, ns, "nginx:1.28", all...),
					checkMemberField(t, "san-francisco", configMapsGVR, ns, "web-config", "green", "data", "color"),
					checkMemberAbsent(t, "san-francisco", servicesGVR, ns, "web"),
					checkMemberAbsent(t, "new-york", servicesGVR, ns, "web"),
					checkMemberAbsent(t, "berlin", servicesGVR, ns, "web"),
					resource.TestCheckResourceAttr("kubefed_federated_application.web", "objects.#", "3"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federated_application.web", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}
