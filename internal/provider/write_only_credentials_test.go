package provider_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// writeOnlyWorkspace is a workspace run by a CLI that takes write-only
// attributes; the test skips when the machine has none.
func writeOnlyWorkspace(t *testing.T) *acctest.Workspace {
	t.Helper()
	acctest.Lab(t)
	cli := writeOnlyCLIFor(t)
	if cli == "" {
		t.Skipf("write-only attributes need Terraform or OpenTofu 1.11 or later: neither the CLI under test nor %s is", writeOnlyCLI)
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", cli)
	return acctest.NewWorkspace(t)
}

// stateLacks fails t when the workspace's state holds any of secrets.
func stateLacks(t *testing.T, ws *acctest.Workspace, step string, secrets ...[]byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ws.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(raw), strings.TrimSpace(string(s))) {
			t.Fatalf("%s: the state holds a credential given write-only", step)
		}
	}
}

// clientKeyWOConfig registers berlin with a client certificate whose key is
// write-only.
func clientKeyWOConfig(t *testing.T, name string, cert, key []byte, version int) string {
	c := acctest.Lab(t).Cluster("berlin")
	return acctest.HostProviderConfig(t) + fmt.Sprintf(`
resource "kubefed_federation_cluster" "berlin" {
  name                  = %q
  api_endpoint          = %q
  ca_bundle             = %s
  client_certificate    = %s
  client_key_wo         = %s
  client_key_wo_version = %d
}

output "ready" {
  value = kubefed_federation_cluster.berlin.ready
}
`, name, c.URL, acctest.Quote(string(c.CAPEM)), acctest.Quote(string(cert)), acctest.Quote(string(key)), version)
}

// client_key_wo registers a cluster whose key reaches the host's credential
// Secret and never the state; a new key comes with a new version.
func TestAccFederationCluster_clientKeyWriteOnly(t *testing.T) {
	ws := writeOnlyWorkspace(t)
	lab := acctest.Lab(t)
	host := newHostClients(t)
	const name = "wo-key-berlin"
	t.Cleanup(func() { deleteClusters(t, host, name) })
	cert1, key1, err := lab.ClientCertificate("berlin", "kubefed-wo-key-1", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	cert2, key2, err := lab.ClientCertificate("berlin", "kubefed-wo-key-2", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	secretHolds := func(step string, want []byte) {
		t.Helper()
		s, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), registry.SecretNameFor(name), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if string(s.Data[registry.SecretKeyClientKey]) != string(want) {
			t.Fatalf("%s: the credential Secret holds another key than client_key_wo", step)
		}
	}
	ready := func(step string) {
		t.Helper()
		if got := strings.TrimSpace(ws.MustRun(0, "output", "-raw", "ready")); got != "true" {
			t.Fatalf("%s: berlin is ready = %s with its client certificate", step, got)
		}
	}
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })

	ws.Write(clientKeyWOConfig(t, name, cert1, key1, 1))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	secretHolds("create", key1)
	stateLacks(t, ws, "create", key1)
	ready("create")
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")

	ws.Write(clientKeyWOConfig(t, name, cert2, key2, 2))
	ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	secretHolds("update", key2)
	stateLacks(t, ws, "update", key1, key2)
	ready("update")
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
}

// join with a write-only admin token joins the member without the token
// reaching the state; destroy, which no configuration reaches, removes the
// registration and says what stays on the member.
func TestAccFederationCluster_joinWriteOnlyToken(t *testing.T) {
	ws := writeOnlyWorkspace(t)
	sf := acctest.Lab(t).Cluster("san-francisco")
	const name = "jwo-sf"
	names := member.NewJoinNames(federationNamespace, name, "host")
	cleanupJoin(t, "san-francisco", names)
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, name) })
	ws.Write(acctest.HostProviderConfig(t) + fmt.Sprintf(`
resource "kubefed_federation_cluster" "sf" {
  name = %q
  join = {
    host                   = %q
    token_wo               = %s
    cluster_ca_certificate = %s
    host_cluster_name      = "host"
  }
}

output "ready" {
  value = kubefed_federation_cluster.sf.ready
}
`, name, sf.URL, acctest.Quote(sf.Token), acctest.Quote(string(sf.CAPEM))))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	stateLacks(t, ws, "join", []byte(sf.Token))
	if got := strings.TrimSpace(ws.MustRun(0, "output", "-raw", "ready")); got != "true" {
		t.Fatalf("the joined cluster is ready = %s", got)
	}
	if err := checkJoinedAccount(t, "san-francisco", names)(nil); err != nil {
		t.Fatal(err)
	}
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")

	out := ws.MustRun(0, "destroy", "-auto-approve", "-input=false", "-no-color")
	if !acctest.ErrorMatching(fmt.Sprintf("Cluster %q is unjoined without reaching it", name), "given write-only", "Remove by hand").MatchString(out) {
		t.Fatalf("destroy does not say the join stays on the member:\n%s", out)
	}
	// The Secret stays, holding no credential and the join's record: the
	// next plans name what the member keeps until it is removed.
	secret, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), registry.SecretNameFor(name), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("destroy took the join's record with the registration: %v", err)
	}
	if len(secret.Data) > 0 || !strings.Contains(secret.Annotations[registry.JoinAnnotation], names.ServiceAccount) {
		t.Fatalf("the Secret left holds %d credential keys and the record %q; want none and the join's account",
			len(secret.Data), secret.Annotations[registry.JoinAnnotation])
	}
	t.Cleanup(func() {
		_ = host.kube.CoreV1().Secrets(federationNamespace).Delete(context.Background(), registry.SecretNameFor(name), metav1.DeleteOptions{})
	})
	ws.Write(acctest.HostProviderConfig(t) + joinTypes)
	if out := ws.MustRun(0, "plan", "-input=false", "-no-color"); !strings.Contains(out, fmt.Sprintf("The join of cluster %q is left on its member", name)) {
		t.Fatalf("the plan after the destroy does not name the join left on the member:\n%s", out)
	}
	if err := checkJoinedAccount(t, "san-francisco", names)(nil); err != nil {
		t.Fatalf("the warning says the join stays on the member, but: %v", err)
	}
}

// A CLI without write-only attributes refuses client_key_wo and join's
// token_wo at validate, naming the attribute and the version it needs.
func TestAccFederationCluster_writeOnlyCredentialsOlderCLI(t *testing.T) {
	lab := acctest.Lab(t)
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if supportsWriteOnly(t, cli) {
		t.Skipf("%s supports write-only attributes: the write-only tests cover it", cli)
	}
	cert, key, err := lab.ClientCertificate("berlin", "kubefed-wo-old", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	sf := lab.Cluster("san-francisco")
	for attribute, config := range map[string]string{
		"client_key_wo": clientKeyWOConfig(t, "wo-old-key", cert, key, 1),
		"join.token_wo": acctest.HostProviderConfig(t) + fmt.Sprintf(`
resource "kubefed_federation_cluster" "sf" {
  name = "wo-old-join"
  join = { host = %q, token_wo = %s, cluster_ca_certificate = %s }
}
`, sf.URL, acctest.Quote(sf.Token), acctest.Quote(string(sf.CAPEM))),
	} {
		t.Run(attribute, func(t *testing.T) {
			ws := acctest.NewWorkspace(t)
			ws.Write(config)
			out := ws.MustRun(1, "validate", "-no-color")
			if !acctest.ErrorMatching(attribute, "Write-only attributes are only supported in Terraform 1.11 and later").MatchString(out) {
				t.Fatalf("validate with %s does not say it needs Terraform 1.11:\n%s", attribute, out)
			}
		})
	}
}
