package provider_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
)

// An application's Secret, given in sensitive_manifests, and a Deployment
// reading it, staged berlin first with on_failure = "rollback": a change of
// the Secret's value that fails on berlin gives berlin the old value back
// and leaves the other clusters with it; neither value ever shows in what
// the CLI prints, the error included; after the fix one apply converges
// and the next plan is empty. Run by the CLI, so that what is checked is
// the text a user reads.
func TestAccFederatedApplication_secretRollback(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-secret", uniqueName("app-secret")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	const oldValue, newValue = "old-hunter2-staple", "new-battery-horse"
	others := []string{"san-francisco", "new-york"}
	all := append([]string{"berlin"}, others...)
	config := func(value string, failOnBerlin bool) string {
		extra := ""
		if failOnBerlin {
			extra = failDeploymentOnBerlin()
		}
		return acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + objectTestClusters(t, prefix) + fmt.Sprintf(`
resource "kubefed_federated_type" "secrets" {
  target_api_version = "v1"
  target_kind        = "Secret"
}

locals {
  password = %[3]q
}

resource "kubefed_federated_application" "web" {
  name      = %[1]q
  manifests = [<<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: %[2]s
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: %[2]s
    spec:
      replicas: 2
      selector:
        matchLabels: {app: web}
      template:
        metadata:
          labels: {app: web}
        spec:
          containers:
          - name: web
            image: nginx:1.27
            envFrom:
            - secretRef: {name: web-secret}
    EOT
  ]
  sensitive_manifests = [yamlencode({
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "web-secret", namespace = %[2]q }
    type       = "Opaque"
    data       = { password = base64encode(local.password) }
  })]
  placement = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name] }
  timeouts  = { create = "3m", update = "3m" }
%[4]s
%[5]s
  depends_on = [kubefed_federated_type.namespaces, kubefed_federated_type.deployments, kubefed_federated_type.secrets]
}
`, prefix, ns, value, stagedStrategy("rollback"), extra)
	}
	hidden := func(step, out string) {
		t.Helper()
		for _, v := range []string{oldValue, newValue} {
			for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
				if strings.Contains(out, form) {
					t.Fatalf("%s prints a Secret value (%q) in clear text:\n%s", step, form, out)
				}
			}
		}
	}
	secretIs := func(value string, members ...string) {
		t.Helper()
		for _, m := range members {
			checkSecretValue(t, m, ns, "web-secret", "password", value)
		}
	}
	t.Cleanup(func() {
		ws.Write(config(newValue, false))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})

	ws.Write(config(oldValue, false))
	hidden("first apply", ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color"))
	secretIs(oldValue, all...)

	// A new value, and berlin, the first stage, made to fail.
	versions := map[string]string{}
	for _, m := range all {
		versions[m] = secretVersion(t, m, ns)
	}
	ws.Write(config(newValue, true))
	out := ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	hidden("plan of the change", out)
	if !strings.Contains(out, "sensitive_manifests") || !strings.Contains(out, "(sensitive value)") {
		t.Fatalf("the plan does not show the Secret's change as hidden:\n%s", out)
	}
	code, out := ws.Run("apply", "-auto-approve", "-input=false", "-no-color")
	hidden("failed apply", out)
	if code != 1 || !strings.Contains(out, "Rolled back after a failed stage") || !strings.Contains(out, `"`+prefix+`-berlin"`) {
		t.Fatalf("the apply that fails on berlin exited %d, want 1 and a rollback of berlin:\n%s", code, out)
	}
	// berlin's failure is told as rolled back, not as left applied.
	if text := strings.Join(strings.Fields(out), " "); !strings.Contains(text, "CrashLoopBackOff") ||
		!strings.Contains(text, "rolled back: the cluster holds the object as the state recorded it before this apply") ||
		strings.Contains(text, "stays applied") {
		t.Fatalf("the error does not say that berlin's failed Deployment was rolled back:\n%s", out)
	}
	// berlin's Secret was written, and written back; the others were never
	// reached: the stage stopped the rollout.
	secretIs(oldValue, all...)
	for _, m := range all {
		if written := secretVersion(t, m, ns) != versions[m]; written != (m == "berlin") {
			t.Fatalf("the Secret on %s was written: %v, want %v", m, written, m == "berlin")
		}
	}
	if err := checkImage(t, ns, "nginx:1.27", all...)(nil); err != nil {
		t.Fatal(err)
	}
	if err := checkMemberField(t, "berlin", deploymentsGVR, ns, "web", nil, "spec", "template", "metadata", "labels", lab.FailLabel)(nil); err != nil {
		t.Fatalf("berlin's Deployment keeps the failing pod template after the rollback: %v", err)
	}
	hidden("show after the rollback", ws.MustRun(0, "show", "-no-color"))
	hidden("plan after the rollback", ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color"))

	// Fixed: one apply converges, and the next plan is empty.
	ws.Write(config(newValue, false))
	hidden("apply of the fix", ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color"))
	secretIs(newValue, all...)
	hidden("plan after the fix", ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color"))
}

// secretVersion is the resourceVersion of the test's Secret on a member.
func secretVersion(t *testing.T, member, namespace string) string {
	t.Helper()
	obj, err := memberObject(t, member, secretsGVR, namespace, "web-secret")
	if err != nil {
		t.Fatal(err)
	}
	return obj.GetResourceVersion()
}
