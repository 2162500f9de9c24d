package provider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// envPriorProviderBinary names a provider binary built from an earlier
// version, whose state this build must take over.
const envPriorProviderBinary = "KUBEFED_PRIOR_PROVIDER_BINARY"

// A state the earlier build wrote, health entries of ConfigMaps, Services
// and Namespaces included, plans no change with this build; its apply
// keeps it so.
func TestAccUpgrade_priorStatePlansNoChange(t *testing.T) {
	acctest.Lab(t)
	prior := os.Getenv(envPriorProviderBinary)
	if prior == "" {
		t.Skip("needs " + envPriorProviderBinary + ": a provider binary of the earlier version, built with -tags kubefedtest")
	}
	prefix, ns := "upgrade", uniqueName("upgrade")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	rc := filepath.Join(ws.Dir, "prior.tfrc")
	if err := os.WriteFile(rc, []byte(fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/tf-kubefed/kubefed" = %[1]q
    "registry.opentofu.org/tf-kubefed/kubefed" = %[1]q
  }
  direct {}
}
`, filepath.Dir(prior))), 0o600); err != nil {
		t.Fatal(err)
	}
	withPrior := []string{"TF_CLI_CONFIG_FILE=" + rc}
	ws.Write(applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", true), "") + fmt.Sprintf(`
resource "kubefed_federated_object" "extra" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "extra", namespace = %q }, data = { a = "b" } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name] }
  depends_on = [kubefed_federated_application.web]
}
`, ns))
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	ws.MustRunWith(0, withPrior, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRunWith(0, withPrior, "plan", "-detailed-exitcode", "-input=false", "-no-color")

	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
}
