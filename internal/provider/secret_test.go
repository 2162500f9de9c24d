package provider_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// A federated Secret's values never show in what the CLI prints: not in
// validate, plan, apply or show, not in a plan of drift, not in an import,
// whether the template is inline (yamlencode, jsonencode) or a file. Run by
// the CLI, so that what is checked is the text a user reads.
func TestAccFederatedObject_secretValuesStayHidden(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-secret", uniqueName("fo-secret")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	const password, token, drifted = "hunter2-correct-horse", "token-battery-staple", "drifted-by-hand-42"
	secretFile := fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\n  namespace: %s\nstringData:\n  token: %s\n", ns, token)
	if err := os.WriteFile(filepath.Join(ws.Dir, "secret.yaml"), []byte(secretFile), 0o600); err != nil {
		t.Fatal(err)
	}
	config := func(attribute string) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_type" "secrets" {
  target_api_version = "v1"
  target_kind        = "Secret"
}

locals {
  password = %[3]q
}

resource "kubefed_federated_object" "db" {
  type = kubefed_federated_type.secrets.name
  %[2]s = yamlencode({
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "db", namespace = %[1]q }
    type       = "Opaque"
    data       = { password = base64encode(local.password) }
  })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name] }
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_federated_object" "api" {
  type       = kubefed_federated_type.secrets.name
  %[2]s = file("secret.yaml")
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns, attribute, password)
	}
	hidden := func(step, out string, values ...string) {
		t.Helper()
		for _, v := range values {
			for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
				if strings.Contains(out, form) {
					t.Fatalf("%s prints a Secret value (%q) in clear text:\n%s", step, form, out)
				}
			}
		}
	}
	t.Cleanup(func() {
		ws.Write(config("sensitive_template"))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})

	// The template attribute refuses a Secret, before any value is shown,
	// and names the attribute to use.
	ws.Write(config("template"))
	for _, args := range [][]string{{"validate", "-no-color"}, {"plan", "-input=false", "-no-color"}} {
		code, out := ws.Run(args...)
		if code != 1 || !strings.Contains(out, "sensitive_template") {
			t.Fatalf("%s of a Secret given as template exited %d, want 1 and a message naming sensitive_template:\n%s", args[0], code, out)
		}
		hidden(args[0]+" of template", out, password, token)
	}

	ws.Write(config("sensitive_template"))
	out := ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	hidden("plan", out, password, token)
	if !strings.Contains(out, "sha256:") || !strings.Contains(out, "(sensitive value)") {
		t.Fatalf("the plan shows neither the rendered digests nor a hidden template:\n%s", out)
	}
	hidden("apply", ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color"), password, token)
	hidden("show", ws.MustRun(0, "show", "-no-color"), password, token)
	hidden("second plan", ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color"), password, token)
	checkSecretValue(t, "new-york", ns, "db", "password", password)
	checkSecretValue(t, "san-francisco", ns, "api", "token", token)

	// Drift: someone changes the value on a member. The plan shows that the
	// Secret changes, and neither value; apply puts the configured one back.
	sf := memberClient(t, "san-francisco").Resource(secretsGVR).Namespace(ns)
	patch := fmt.Sprintf(`{"data":{"password":%q}}`, base64.StdEncoding.EncodeToString([]byte(drifted)))
	if _, err := sf.Patch(context.Background(), "db", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	out = ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	hidden("plan of drift", out, password, token, drifted)
	if !strings.Contains(out, "kubefed_federated_object.db") {
		t.Fatalf("the plan does not show the drifted Secret:\n%s", out)
	}
	hidden("apply of drift", ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color"), password, token, drifted)
	checkSecretValue(t, "san-francisco", ns, "db", "password", password)

	// Import: the host's record fills sensitive_template. The next plan
	// writes the configuration's text of it (the host keeps JSON), hidden,
	// and changes nothing on the clusters.
	ws.MustRun(0, "state", "rm", "kubefed_federated_object.db")
	hidden("import", ws.MustRun(0, "import", "-input=false", "-no-color", "kubefed_federated_object.db", "secrets/"+ns+"/db"), password, token)
	hidden("show after import", ws.MustRun(0, "show", "-no-color"), password, token)
	out = ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	hidden("plan after import", out, password, token)
	if !strings.Contains(out, "~ sensitive_template = (sensitive value)") || strings.Contains(out, "rendered") {
		t.Fatalf("the plan after import changes more than the template's text:\n%s", out)
	}
	hidden("apply after import", ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color"), password, token)
	hidden("plan after import and apply", ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color"), password, token)
}

// checkSecretValue fails the test unless the member's Secret holds want
// under key.
func checkSecretValue(t *testing.T, member, namespace, name, key, want string) {
	t.Helper()
	if err := checkMemberSecret(t, member, namespace, name, key, want)(nil); err != nil {
		t.Fatal(err)
	}
}
