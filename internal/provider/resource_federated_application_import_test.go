package provider_test

import (
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// An application imported from the host's records into a fresh state, with
// the configuration that created it (one heredoc of several documents),
// plans nothing: the imported manifests hold the same objects.
func TestAccFederatedApplication_importIntoAnEmptyPlan(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-imp", uniqueName("app-imp")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	// timeouts are the configuration's alone: no import can know them.
	config := strings.Replace(applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", true), ""),
		`  timeouts  = { create = "3m", update = "3m" }`+"\n", "", 1)
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	ws.Write(config)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRun(0, "state", "rm", "kubefed_federated_application.web")
	ws.MustRun(0, "import", "-input=false", "-no-color", "kubefed_federated_application.web", prefix)
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
}
