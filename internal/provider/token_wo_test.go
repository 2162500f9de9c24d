package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// writeOnlyCLI is the Terraform that supports write-only attributes, when
// the machine has one.
const writeOnlyCLI = "/usr/local/bin/terraform"

// cliVersion is a CLI's version, from `version -json`.
func cliVersion(t *testing.T, cli string) (major, minor int) {
	t.Helper()
	out, err := exec.Command(cli, "version", "-json").Output()
	if err != nil {
		t.Fatalf("%s version -json: %v", cli, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s version -json: %v", cli, err)
	}
	parts := strings.SplitN(v.Version, ".", 3)
	if len(parts) < 2 {
		t.Fatalf("%s version -json: cannot read version %q", cli, v.Version)
	}
	major, _ = strconv.Atoi(parts[0])
	minor, _ = strconv.Atoi(parts[1])
	return major, minor
}

// supportsWriteOnly reports whether the CLI takes write-only attributes:
// Terraform 1.11 or OpenTofu 1.11, or later.
func supportsWriteOnly(t *testing.T, cli string) bool {
	major, minor := cliVersion(t, cli)
	return major > 1 || (major == 1 && minor >= 11)
}

// writeOnlyCLIFor is the CLI that runs a write-only test: the one under
// test when it takes write-only attributes, else writeOnlyCLI when the
// machine has it, else empty.
func writeOnlyCLIFor(t *testing.T) string {
	if cli := os.Getenv("TF_ACC_TERRAFORM_PATH"); cli != "" && supportsWriteOnly(t, cli) {
		return cli
	}
	if _, err := os.Stat(writeOnlyCLI); err == nil && supportsWriteOnly(t, writeOnlyCLI) {
		return writeOnlyCLI
	}
	return ""
}

// tokenWOConfig registers berlin with a write-only token.
func tokenWOConfig(t *testing.T, name, token string, version int) string {
	c := acctest.Lab(t).Cluster("berlin")
	return acctest.HostProviderConfig(t) + fmt.Sprintf(`
resource "kubefed_federation_cluster" "berlin" {
  name             = %q
  api_endpoint     = %q
  ca_bundle        = %s
  token_wo         = %s
  token_wo_version = %d
  require_ready    = false
}

output "ready" {
  value = kubefed_federation_cluster.berlin.ready
}
`, name, c.URL, acctest.Quote(string(c.CAPEM)), acctest.Quote(token), version)
}

// token_wo registers a cluster whose token reaches the host's credential
// Secret and never the state; token_wo_version makes a new token written.
func TestAccFederationCluster_tokenWriteOnly(t *testing.T) {
	lab := acctest.Lab(t)
	cli := writeOnlyCLIFor(t)
	if cli == "" {
		t.Skipf("write-only attributes need Terraform or OpenTofu 1.11 or later: neither the CLI under test nor %s is", writeOnlyCLI)
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", cli)
	ws := acctest.NewWorkspace(t)
	host := newHostClients(t)
	const name = "wo-berlin"
	t.Cleanup(func() { deleteClusters(t, host, name) })
	const wrong = "not-the-token-of-berlin"
	right := lab.Cluster("berlin").Token
	stateHolds := func(step string) {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join(ws.Dir, "terraform.tfstate"))
		if err != nil {
			t.Fatal(err)
		}
		for _, token := range []string{wrong, right} {
			if strings.Contains(string(raw), token) {
				t.Fatalf("%s: the state holds a token given as token_wo", step)
			}
		}
	}
	secretHolds := func(step, want string) {
		t.Helper()
		s, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), registry.SecretNameFor(name), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(s.Data[registry.SecretKeyToken]); got != want {
			t.Fatalf("%s: the credential Secret holds another token than token_wo", step)
		}
	}
	ready := func() string {
		return strings.TrimSpace(ws.MustRun(0, "output", "-raw", "ready"))
	}
	t.Cleanup(func() {
		ws.Write(tokenWOConfig(t, name, right, 2))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})

	ws.Write(tokenWOConfig(t, name, wrong, 1))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	secretHolds("create", wrong)
	stateHolds("create")
	if got := ready(); got != "false" {
		t.Fatalf("berlin is ready = %s with a wrong token", got)
	}

	// A new token with the same version: the provider cannot see it.
	ws.Write(tokenWOConfig(t, name, right, 1))
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")

	// A new version writes it.
	ws.Write(tokenWOConfig(t, name, right, 2))
	ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	secretHolds("update", right)
	stateHolds("update")
	if got := ready(); got != "true" {
		t.Fatalf("berlin is ready = %s with its token", got)
	}
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
}

// A CLI without write-only attributes refuses token_wo at validate, with a
// message that names the attribute and the version it needs, before
// anything is written.
func TestAccFederationCluster_tokenWriteOnlyOlderCLI(t *testing.T) {
	acctest.Lab(t)
	ws := acctest.NewWorkspace(t)
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if supportsWriteOnly(t, cli) {
		t.Skipf("%s supports write-only attributes: TestAccFederationCluster_tokenWriteOnly covers it", cli)
	}
	host := newHostClients(t)
	const name = "wo-old-berlin"
	t.Cleanup(func() { deleteClusters(t, host, name) })
	ws.Write(tokenWOConfig(t, name, acctest.Lab(t).Cluster("berlin").Token, 1))
	for _, args := range [][]string{{"validate", "-no-color"}, {"apply", "-auto-approve", "-input=false", "-no-color"}} {
		out := ws.MustRun(1, args...)
		if !acctest.ErrorMatching("token_wo", "Write-only attributes are only supported in Terraform 1.11 and later").MatchString(out) {
			t.Fatalf("%s with token_wo does not say it needs Terraform 1.11:\n%s", args[0], out)
		}
	}
	if _, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), registry.SecretNameFor(name), metav1.GetOptions{}); err == nil {
		t.Fatal("a refused token_wo wrote the credential Secret")
	}
}
