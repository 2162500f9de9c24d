package provider_test

import (
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// An application imported from the host's records into a fresh state, with
// the configuration that created it (one heredoc of several documents),
// plans nothing: the imported manifests hold the same objects, and the
// imported override rules mean the configuration's, written otherwise
// (objects in another order, a map-typed selector, an explicit op).
func TestAccFederatedApplication_importIntoAnEmptyPlan(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-imp", uniqueName("app-imp")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	overrides := `  overrides = [
    { object = { kind = "Service", name = "web" }, cluster = kubefed_federation_cluster.sf.name,
      patches = [{ op = "add", path = "/metadata/labels", value = "{ \"edge\": \"yes\" }" }] },
    { object = { kind = "ConfigMap", name = "web-config" }, cluster_selector = { match_labels = tomap({ region = "us-east" }) },
      patches = [{ path = "/data/color", value = jsonencode("green") }] },
    { object = { kind = "ConfigMap", name = "web-config" }, cluster = kubefed_federation_cluster.berlin.name,
      patches = [{ op = "replace", path = "/data/color", value = "\"red\"" }] },
  ]`
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	for _, extra := range []string{"", overrides} {
		// timeouts are the configuration's alone: no import can know them.
		config := strings.Replace(applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", true), extra),
			`  timeouts  = { create = "3m", update = "3m" }`+"\n", "", 1)
		ws.Write(config)
		ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
		ws.MustRun(0, "state", "rm", "kubefed_federated_application.web")
		ws.MustRun(0, "import", "-input=false", "-no-color", "kubefed_federated_application.web", prefix)
		ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	}
}
