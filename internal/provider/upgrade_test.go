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
// and Namespaces included, and selectors and overrides from before they
// were dynamic, plans no change with this build; its apply keeps it so.
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
	// Selectors and overrides as configurations write them: an empty
	// selector, labels from a map-typed value (which the upgrade, not
	// seeing the configuration, writes as an object), an explicit op, JSON
	// spaced otherwise than jsonencode spaces it.
	appOverrides := `  overrides = [{ object = { kind = "ConfigMap", name = "web-config" }, cluster_selector = { match_labels = local.west },
    patches = [{ op = "replace", path = "/data/color", value = "\"green\"" }] }]`
	ws.Write(applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", true), appOverrides) + fmt.Sprintf(`
locals {
  west = tomap({ fotest = kubefed_federation_cluster.sf.labels.fotest, region = kubefed_federation_cluster.sf.labels.region })
}

resource "kubefed_federated_object" "extra" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "extra", namespace = %[1]q }, data = { a = "b" } })
  placement  = { cluster_selector = { match_labels = { fotest = kubefed_federation_cluster.sf.labels.fotest } } }
  overrides = [
    { cluster_selector = {}, patches = [{ op = "add", path = "/metadata/labels", value = "{ \"tier\": \"web\" }" }] },
    { cluster = kubefed_federation_cluster.ny.name, patches = [{ op = "add", path = "/data/b", value = jsonencode("c") }] },
  ]
  depends_on = [kubefed_federated_application.web]
}

resource "kubefed_replica_scheduling_preference" "web" {
  namespace        = %[1]q
  name             = "web"
  total_replicas   = 6
  cluster_selector = { match_labels = local.west }
  depends_on       = [kubefed_federated_application.web]
}
`, ns))
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	ws.MustRunWith(0, withPrior, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRunWith(0, withPrior, "plan", "-detailed-exitcode", "-input=false", "-no-color")

	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
}
