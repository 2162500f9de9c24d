package provider_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// planSizeTypes enables the kinds of the shop's production overlay that
// the other tests do not.
const planSizeTypes = `
resource "kubefed_federated_type" "serviceaccounts" {
  target_api_version = "v1"
  target_kind        = "ServiceAccount"
}

resource "kubefed_federated_type" "volumeclaims" {
  target_api_version = "v1"
  target_kind        = "PersistentVolumeClaim"
}

resource "kubefed_federated_type" "autoscalers" {
  target_api_version = "autoscaling/v2"
  target_kind        = "HorizontalPodAutoscaler"
}
`

// asText gives the overlay's files as manifests; asObjects as
// manifest_objects, decoded by the provider's function.
const (
	asText    = `manifests = [for f in sort(fileset(%[1]q, "*.yaml")) : file("%[1]s/${f}")]`
	asObjects = `manifest_objects = merge([for f in sort(fileset(%[1]q, "*.yaml")) : provider::kubefed::decode_manifests(file("%[1]s/${f}"))]...)`
)

// planSizeApplication federates the overlay's files in dir, as a user
// would with fileset, with the given override rules.
func planSizeApplication(prefix, dir, overrides string) string {
	return planSizeApplicationAs(asText, prefix, dir, overrides)
}

// planSizeApplicationAs is planSizeApplication with the files given as
// form says.
func planSizeApplicationAs(form, prefix, dir, overrides string) string {
	return fmt.Sprintf(`
resource "kubefed_federated_application" "shop" {
  name      = %[1]q
  %[2]s
  placement = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name] }
  overrides = [%[3]s]
  timeouts  = { create = "5m", update = "5m" }
  depends_on = [kubefed_federated_type.configmaps, kubefed_federated_type.namespaces, kubefed_federated_type.deployments,
    kubefed_federated_type.services, kubefed_federated_type.serviceaccounts, kubefed_federated_type.volumeclaims,
    kubefed_federated_type.autoscalers]
}
`, prefix, fmt.Sprintf(form, dir), overrides)
}

// writeOverlay copies the shop's production overlay into dir with its
// namespace renamed to ns; edit, when set, changes one file's text.
func writeOverlay(t *testing.T, dir, ns string, edit func(name, text string) string) {
	t.Helper()
	files, err := filepath.Glob("testdata/shop-production/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("the overlay's files: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(data), "shop-prod", ns)
		if edit != nil {
			text = edit(filepath.Base(f), text)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// planDiffLines counts the lines a plan prints to show its changes: from
// the first resource's header to the summary, blank lines left out.
func planDiffLines(out string) int {
	n, in := 0, false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "  # "):
			in = true
		case strings.HasPrefix(line, "Plan: "):
			return n
		}
		if in && strings.TrimSpace(line) != "" {
			n++
		}
	}
	return n
}

// planComputedLines is planDiffLines without the lines that show the named
// attributes of the configuration: what the provider adds to the plan.
func planComputedLines(out string, configured ...string) int {
	n, in, top, skipping := 0, false, -1, false
	for _, line := range strings.Split(out, "\n") {
		col := len(line) - len(strings.TrimLeft(line, " +-~"))
		switch {
		case strings.HasPrefix(line, "  # "):
			in = true
		case strings.HasPrefix(line, "Plan: "):
			return n
		case !in || strings.TrimSpace(line) == "":
			continue
		case top < 0 && strings.HasPrefix(strings.TrimSpace(line[col:]), "resource "):
			top = col + 4
		case skipping:
			skipping = col > top || !strings.ContainsAny(line[col:col+1], "]})")
			continue
		case col == top && slices.Contains(configured, strings.Fields(line[col:])[0]):
			skipping = strings.HasSuffix(line, "[") || strings.HasSuffix(line, "{") || strings.HasSuffix(line, "(") ||
				strings.HasSuffix(line, "EOT")
			continue
		}
		n++
	}
	return n
}

func TestPlanComputedLines(t *testing.T) {
	const plan = `  # a.b will be updated in-place
  ~ resource "a" "b" {
      ~ manifests = [
            <<-EOT
                - name: x
            EOT,
          ~ <<-EOT
              - a: 1
              + a: 2
            EOT,
        ]
        id        = "b"
      ~ overrides = [
          + {
              + cluster = "x"
            },
        ]
      ~ rendered  = {
          ~ "x" = "1" -> "2"
        }
      ~ name      = "a" -> "b"
    }

Plan: 0 to add, 1 to change, 0 to destroy.
`
	if got, want := planComputedLines(plan, "manifests", "overrides"), 8; got != want {
		t.Errorf("planComputedLines = %d, want %d (the header, the resource, id, rendered's three lines, name, the end)", got, want)
	}
	if got, want := planComputedLines(plan), planDiffLines(plan); got != want {
		t.Errorf("planComputedLines with nothing left out = %d, planDiffLines = %d", got, want)
	}
}

func TestPlanDiffLines(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      int
	}{
		{"no changes", "No changes. Your infrastructure matches the configuration.\n", 0},
		{"one resource", "OpenTofu will perform the following actions:\n\n  # a.b will be updated in-place\n  ~ resource \"a\" \"b\" {\n" +
			"      ~ x = 1 -> 2\n    }\n\nPlan: 0 to add, 1 to change, 0 to destroy.\n", 4},
		{"warnings after the summary", "  # a.b will be created\n  + resource \"a\" \"b\" {}\n\nPlan: 1 to add\n\nWarning: x\n  # y\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := planDiffLines(tc.out); got != tc.want {
				t.Errorf("planDiffLines = %d, want %d", got, tc.want)
			}
		})
	}
}

// A 25-object production overlay federated to three clusters as one
// application: the lines of plan diff for its create, for one field of
// one object on one cluster changed by an override, and for one field of
// one object changed for every cluster. After each apply the next plan is
// empty.
func TestAccFederatedApplication_planSize(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-size", uniqueName("app-size")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	dir := filepath.Join(ws.Dir, "shop")
	base := acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + planSizeTypes + objectTestClusters(t, prefix)
	const oneCluster = `{
    object  = { kind = "Deployment", name = "frontend" }
    cluster = kubefed_federation_cluster.berlin.name
    patches = [{ op = "add", path = "/spec/minReadySeconds", value = "5" }]
  }`
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	writeOverlay(t, dir, ns, nil)
	ws.Write(base)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	type figure struct{ total, computed int }
	figures := map[string]figure{}
	step := func(name, config string) {
		t.Helper()
		ws.Write(base + config)
		out := ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
		f := figure{planDiffLines(out), planComputedLines(out, "manifests", "overrides")}
		figures[name] = f
		t.Logf("%s: %d lines of plan diff, %d of them the provider's (without manifests and overrides)", name, f.total, f.computed)
		if os.Getenv("KUBEFED_PLAN_SIZE_SHOW") != "" {
			t.Logf("the plan of %s:\n%s", name, out)
		}
		if name != "create" {
			onlyChanged(t, name, out, ns, "apps/v1/Deployment/"+ns+"/frontend")
		}
		ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
		ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	}
	step("create", planSizeApplication(prefix, dir, ""))
	step("override on one cluster", planSizeApplication(prefix, dir, oneCluster))
	writeOverlay(t, dir, ns, func(name, text string) string {
		if name != "03-deployments.yaml" {
			return text
		}
		return strings.Replace(text, "revisionHistoryLimit: 5", "revisionHistoryLimit: 7", 1)
	})
	step("template on every cluster", planSizeApplication(prefix, dir, oneCluster))
	if f := figures["create"]; f.total > 2500 {
		t.Errorf("the create takes %d lines of plan, want 2,500 at most", f.total)
	}
	if f := figures["override on one cluster"]; f.total > 80 {
		t.Errorf("one field of one object on one cluster takes %d lines of plan, want 80 at most", f.total)
	}
	// The CLI prints the changed element of manifests whole, a file of six
	// Deployments here; what the provider adds is held to the goal.
	if f := figures["template on every cluster"]; f.computed > 40+10*3 {
		t.Errorf("one field of one object's template takes %d lines of the provider's plan, want 70 at most", f.computed)
	}
}

// onlyChanged fails the test when a plan names an object of the namespace
// other than the one changed: the status and health of the others stay
// as they were, so the CLI hides them.
func onlyChanged(t *testing.T, name, out, ns string, changed ...string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		names := slices.ContainsFunc(changed, func(c string) bool { return strings.Contains(line, `"`+c+`"`) })
		if strings.Contains(line, "/"+ns) && strings.Contains(line, `" `) && !names && !strings.Contains(line, "namespace:") {
			t.Errorf("the plan of %s shows an object it does not change: %s", name, strings.TrimSpace(line))
		}
	}
}

// The same overlay given as manifest_objects, decoded by the provider's
// function: a change of one field of the template shows as that field,
// where the CLI prints a changed element of manifests whole, so the whole
// plan is held to the goal. A second plan after each apply is empty.
func TestAccFederatedApplication_planSizeOfObjectsAsValues(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-values", uniqueName("app-values")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	if !cliHasFunctions(t, ws) {
		t.Skip("provider-defined functions need OpenTofu or Terraform 1.8 or later")
	}
	dir := filepath.Join(ws.Dir, "shop")
	base := acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + planSizeTypes + objectTestClusters(t, prefix)
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	writeOverlay(t, dir, ns, nil)
	ws.Write(base + planSizeApplicationAs(asObjects, prefix, dir, ""))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	writeOverlay(t, dir, ns, func(name, text string) string {
		if name != "03-deployments.yaml" {
			return text
		}
		return strings.Replace(text, "revisionHistoryLimit: 5", "revisionHistoryLimit: 7", 1)
	})
	out := ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	total := planDiffLines(out)
	t.Logf("template on every cluster, objects as values: %d lines of plan diff", total)
	if os.Getenv("KUBEFED_PLAN_SIZE_SHOW") != "" {
		t.Logf("the plan:\n%s", out)
	}
	onlyChanged(t, "template on every cluster", out, ns, "apps/v1/Deployment/"+ns+"/frontend", "Deployment.apps/"+ns+"/frontend")
	if !strings.Contains(out, "revisionHistoryLimit = 5 -> 7") {
		t.Errorf("the plan does not show the changed field:\n%s", out)
	}
	if total > 40+10*3 {
		t.Errorf("one field of one object's template takes %d lines of plan, want 70 at most", total)
	}
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
}

// cliHasFunctions reports whether the workspace's CLI runs provider-defined
// functions: OpenTofu or Terraform 1.8 or later.
func cliHasFunctions(t *testing.T, ws *acctest.Workspace) bool {
	t.Helper()
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal([]byte(ws.MustRun(0, "version", "-json")), &v); err != nil {
		t.Fatal(err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(v.Version, "%d.%d", &major, &minor); err != nil {
		t.Fatalf("CLI version %q: %v", v.Version, err)
	}
	return major > 1 || minor >= 8
}
