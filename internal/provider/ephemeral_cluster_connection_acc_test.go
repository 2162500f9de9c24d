package provider_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/provider"
)

// supportsEphemeralValues reports whether the CLI takes ephemeral resources
// and write-only attributes: Terraform 1.11 or later, OpenTofu 1.11 or later.
func supportsEphemeralValues(t *testing.T, cli string) bool {
	major, minor := cliVersion(t, cli)
	return major > 1 || (major == 1 && minor >= 11)
}

// berlinTokenVariable is the environment variable that gives berlin's token
// to the configuration, as an ephemeral variable: a literal would be kept in
// the configuration that a saved plan holds.
const berlinTokenVariable = "TF_VAR_berlin_token"

// registeredWithTokenWO registers berlin as name, with its token written
// only to the host's credential Secret.
func registeredWithTokenWO(t *testing.T, name string) string {
	berlin := acctest.Lab(t).Cluster("berlin")
	return acctest.HostProviderConfig(t) + fmt.Sprintf(`
variable "berlin_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "kubefed_federation_cluster" "berlin" {
  name             = %q
  api_endpoint     = %q
  ca_bundle        = %s
  token_wo         = var.berlin_token
  token_wo_version = 1
}
`, name, berlin.URL, acctest.Quote(string(berlin.CAPEM)))
}

// consumingConnection opens the connection of the cluster called name and
// hands it to a second provider configuration, whose data source reads
// berlin, and to a registration of berlin under copyName, whose token_wo
// is the connection's token.
func consumingConnection(t *testing.T, name, copyName string) string {
	berlin := acctest.Lab(t).Cluster("berlin")
	return fmt.Sprintf(`
ephemeral "kubefed_cluster_connection" "berlin" {
  name = %q
}

provider "kubefed" {
  alias                  = "member"
  host                   = ephemeral.kubefed_cluster_connection.berlin.host
  cluster_ca_certificate = ephemeral.kubefed_cluster_connection.berlin.cluster_ca_certificate
  token                  = ephemeral.kubefed_cluster_connection.berlin.token
}

data "kubefed_clusters" "on_member" {
  provider = kubefed.member
}

resource "kubefed_federation_cluster" "copy" {
  name             = %q
  api_endpoint     = %q
  ca_bundle        = %s
  token_wo         = ephemeral.kubefed_cluster_connection.berlin.token
  token_wo_version = 1
}

output "member_clusters" {
  value = data.kubefed_clusters.on_member.names
}

output "copy_ready" {
  value = kubefed_federation_cluster.copy.ready
}
`, name, copyName, berlin.URL, acctest.Quote(string(berlin.CAPEM)))
}

// The connection of a registered cluster, read from the host's registry,
// configures another provider block and a write-only token; the token
// reaches neither the state, nor the saved plan, nor anything the CLI
// prints.
func TestAccClusterConnection_configuresAnotherProvider(t *testing.T) {
	lab := acctest.Lab(t)
	t.Setenv(berlinTokenVariable, lab.Cluster("berlin").Token)
	ws := acctest.NewWorkspace(t)
	if cli := os.Getenv("TF_ACC_TERRAFORM_PATH"); !supportsEphemeralValues(t, cli) {
		t.Skipf("ephemeral resources and write-only attributes need Terraform or OpenTofu 1.11 or later, and %s is older", cli)
	}
	host := newHostClients(t)
	name, copyName := uniqueName("conn-berlin"), uniqueName("conn-copy")
	t.Cleanup(func() { deleteClusters(t, host, name, copyName) })
	t.Cleanup(func() {
		ws.Write(registeredWithTokenWO(t, name))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	token := lab.Cluster("berlin").Token
	provider.MemberAsFederationHost(t, "berlin")

	ws.Write(registeredWithTokenWO(t, name))
	printed := ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	ws.Write(registeredWithTokenWO(t, name) + consumingConnection(t, name, copyName))
	printed += ws.MustRun(0, "plan", "-out=tfplan", "-input=false", "-no-color")
	savedPlan := ws.MustRun(0, "show", "-json", "tfplan")
	printed += ws.MustRun(0, "apply", "-input=false", "-no-color", "tfplan")
	outputs := ws.MustRun(0, "output", "-json")
	printed += ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	shownState := ws.MustRun(0, "show", "-json")

	var values struct {
		MemberClusters struct{ Value []string } `json:"member_clusters"`
		CopyReady      struct{ Value bool }     `json:"copy_ready"`
	}
	if err := json.Unmarshal([]byte(outputs), &values); err != nil {
		t.Fatalf("output -json: %v\n%s", err, outputs)
	}
	if !values.CopyReady.Value {
		t.Error("the registration whose token_wo is the connection's token is not ready")
	}
	for _, registered := range values.MemberClusters.Value {
		if registered == name {
			t.Errorf("the member provider lists %s, a registration in the host: it reached the host, not berlin", name)
		}
	}

	state, err := os.ReadFile(filepath.Join(ws.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{
		"the state file": string(state), "the saved plan": savedPlan, "show -json": shownState,
		"output -json": outputs, "the CLI's output": printed,
	} {
		if strings.Contains(text, token) {
			t.Errorf("%s holds berlin's token", what)
		}
	}
}

// A name that is not registered is refused at plan, with the clusters that
// are.
func TestAccClusterConnection_unregisteredName(t *testing.T) {
	t.Setenv(berlinTokenVariable, acctest.Lab(t).Cluster("berlin").Token)
	ws := acctest.NewWorkspace(t)
	if cli := os.Getenv("TF_ACC_TERRAFORM_PATH"); !supportsEphemeralValues(t, cli) {
		t.Skipf("ephemeral resources need Terraform or OpenTofu 1.11 or later, and %s is older", cli)
	}
	host := newHostClients(t)
	name := uniqueName("conn-listed")
	t.Cleanup(func() { deleteClusters(t, host, name) })
	t.Cleanup(func() {
		ws.Write(registeredWithTokenWO(t, name))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	ws.Write(registeredWithTokenWO(t, name))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	ws.Write(registeredWithTokenWO(t, name) + `
ephemeral "kubefed_cluster_connection" "nowhere" {
  name = "nowhere"
}
`)
	out := ws.MustRun(1, "plan", "-input=false", "-no-color")
	if !acctest.ErrorMatching("No such registered cluster", `No KubeFedCluster called "nowhere"`, "Registered clusters:", name).MatchString(out) {
		t.Fatalf("the plan does not say that nowhere is not registered, and which clusters are:\n%s", out)
	}
}

// A cluster registered with a client certificate instead of a token hands
// on its certificate and key, with which another provider block reaches it.
func TestAccClusterConnection_clientCertificate(t *testing.T) {
	berlin := acctest.Lab(t).Cluster("berlin")
	ws := acctest.NewWorkspace(t)
	if cli := os.Getenv("TF_ACC_TERRAFORM_PATH"); !supportsEphemeralValues(t, cli) {
		t.Skipf("ephemeral resources need Terraform or OpenTofu 1.11 or later, and %s is older", cli)
	}
	host := newHostClients(t)
	name := uniqueName("conn-cert")
	t.Cleanup(func() { deleteClusters(t, host, name) })
	registered := acctest.HostProviderConfig(t) + fmt.Sprintf(`
resource "kubefed_federation_cluster" "berlin" {
  name               = %q
  api_endpoint       = %q
  ca_bundle          = file(%q)
  client_certificate = file(%q)
  client_key         = file(%q)
}
`, name, berlin.URL, berlin.CAFile, berlin.ClientCertFile, berlin.ClientKeyFile)
	t.Cleanup(func() {
		ws.Write(registered)
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	provider.MemberAsFederationHost(t, "berlin")
	ws.Write(registered)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	ws.Write(registered + fmt.Sprintf(`
ephemeral "kubefed_cluster_connection" "berlin" {
  name = %q
}

provider "kubefed" {
  alias                  = "member"
  host                   = ephemeral.kubefed_cluster_connection.berlin.host
  cluster_ca_certificate = ephemeral.kubefed_cluster_connection.berlin.cluster_ca_certificate
  token                  = ephemeral.kubefed_cluster_connection.berlin.token
  client_certificate     = ephemeral.kubefed_cluster_connection.berlin.client_certificate
  client_key             = ephemeral.kubefed_cluster_connection.berlin.client_key
}

data "kubefed_clusters" "on_member" {
  provider = kubefed.member
}

output "member_clusters" {
  value = data.kubefed_clusters.on_member.names
}
`, name))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	var names []string
	if err := json.Unmarshal([]byte(ws.MustRun(0, "output", "-json", "member_clusters")), &names); err != nil {
		t.Fatal(err)
	}
	for _, registered := range names {
		if registered == name {
			t.Errorf("the member provider lists %s, a registration in the host: it reached the host, not berlin", name)
		}
	}
}
