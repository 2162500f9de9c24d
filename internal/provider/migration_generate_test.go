package provider_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// importBlocks are the import blocks that take the installation over,
// with no resource blocks: the CLI writes those.
func (k kubeFedInstallation) importBlocks() string {
	return fmt.Sprintf(`
import {
  to = kubefed_federation_cluster.sf
  id = "%[1]s-sf"
}

import {
  to = kubefed_federation_cluster.berlin
  id = "%[1]s-berlin"
}

import {
  to = kubefed_federated_type.deployments
  id = "deployments.apps"
}

import {
  to = kubefed_federated_object.web
  id = "deployments.apps/%[2]s/web"
}
`, k.prefix, k.namespace)
}

// The configuration `plan -generate-config-out` writes for a KubeFed
// installation is usable: it leaves out what the provider computes, its
// only gap is the clusters' credentials, which are sensitive, and after
// the guide's fix-ups (credentials, references instead of names) it
// validates, plans the imports with no change on the members but the
// template's annotations, applies, plans empty and destroys.
func TestAccMigration_generateConfig(t *testing.T) {
	k := writeKubeFedInstallation(t, "migen")
	prefix := k.prefix
	w := acctest.NewWorkspace(t)
	w.Write(acctest.HostProviderConfig(t) + k.importBlocks())

	out := w.MustRun(1, "plan", "-no-color", "-input=false", "-generate-config-out=generated.tf")
	if got := strings.Count(out, "Error: Invalid credentials"); got != 2 || strings.Count(out, "Error:") != 2 {
		t.Fatalf("the plan that generates the configuration fails otherwise than on the two clusters' missing credentials:\n%s", out)
	}
	if !acctest.ErrorMatching("Invalid credentials", "-generate-config-out wrote for an imported cluster leaves them null", "credential Secret in the host").MatchString(out) {
		t.Errorf("the error does not say where the generated configuration's credentials are:\n%s", out)
	}
	generated, err := os.ReadFile(filepath.Join(w.Dir, "generated.tf"))
	if err != nil {
		t.Fatalf("no configuration generated: %v\n%s", err, out)
	}
	checkGenerated(t, string(generated))

	fixed := fixUp(t, string(generated), k, map[string]string{
		prefix + "-sf":     acctest.Lab(t).Cluster("san-francisco").Token,
		prefix + "-berlin": acctest.Lab(t).Cluster("berlin").Token,
	})
	if err := os.WriteFile(filepath.Join(w.Dir, "generated.tf"), []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	w.MustRun(0, "validate", "-no-color")
	t.Cleanup(func() { w.MustRun(0, "destroy", "-auto-approve", "-no-color", "-input=false") })
	w.MustRun(0, "plan", "-no-color", "-input=false", "-out=migration.tfplan")
	checkMigrationPlan(t, k, w.MustRun(0, "show", "-json", "-no-color", "migration.tfplan"))
	w.MustRun(0, "apply", "-no-color", "-input=false", "migration.tfplan")
	if code, out := w.Run("plan", "-no-color", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after apply is not empty (exit %d):\n%s", code, out)
	}
}

// checkGenerated checks what the CLI wrote: a block per imported object,
// nothing the provider computes, and null, marked sensitive, for the
// credentials.
func checkGenerated(t *testing.T, generated string) {
	t.Helper()
	for _, block := range []string{
		`resource "kubefed_federation_cluster" "sf"`, `resource "kubefed_federation_cluster" "berlin"`,
		`resource "kubefed_federated_type" "deployments"`, `resource "kubefed_federated_object" "web"`,
	} {
		if !strings.Contains(generated, block) {
			t.Errorf("generated.tf lacks %s:\n%s", block, generated)
		}
	}
	for _, computed := range []string{"rendered", "placed_clusters", "cluster_status", "cluster_health", "rollout_plan", "id"} {
		if regexp.MustCompile(`(?m)^\s*` + computed + `\s*=`).MatchString(generated) {
			t.Errorf("generated.tf sets the computed attribute %s:\n%s", computed, generated)
		}
	}
	if got := len(regexp.MustCompile(`(?m)^\s*token\s*= null # sensitive$`).FindAllString(generated, -1)); got != 2 {
		t.Errorf("generated.tf has %d tokens left null as sensitive, want 2:\n%s", got, generated)
	}
}

// fixUp does what the migration guide asks of the user: it sets each
// generated cluster's token, and makes the federated object refer to its
// type and clusters instead of naming them, so that Terraform orders
// creates and destroys.
func fixUp(t *testing.T, generated string, k kubeFedInstallation, tokens map[string]string) string {
	t.Helper()
	addresses := map[string]string{k.prefix + "-sf": "kubefed_federation_cluster.sf", k.prefix + "-berlin": "kubefed_federation_cluster.berlin"}
	blocks := strings.Split(generated, "\n# __generated__")
	for i, block := range blocks {
		for name, token := range tokens {
			if regexp.MustCompile(`(?m)^\s*name\s*= "` + regexp.QuoteMeta(name) + `"$`).MatchString(block) {
				block = regexp.MustCompile(`(?m)^(\s*token\s*=) null # sensitive$`).ReplaceAllString(block, "${1} "+acctest.Quote(token))
			}
		}
		if strings.Contains(block, `resource "kubefed_federated_object"`) {
			block = strings.Replace(block, `"deployments.apps"`, "kubefed_federated_type.deployments.name", 1)
			for name, address := range addresses {
				block = strings.ReplaceAll(block, `"`+name+`"`, address+".name")
			}
		}
		blocks[i] = block
	}
	fixed := strings.Join(blocks, "\n# __generated__")
	if regexp.MustCompile(`(?m)^\s*token\s*= null`).MatchString(fixed) || strings.Count(fixed, "kubefed_federation_cluster.berlin.name") != 2 {
		t.Fatalf("the fix-ups did not apply:\n%s", fixed)
	}
	return fixed
}

// planJSON is the part of `show -json` of a plan the migration looks at.
type planJSON struct {
	ResourceChanges []struct {
		Address string `json:"address"`
		Change  struct {
			Actions   []string        `json:"actions"`
			Before    map[string]any  `json:"before"`
			After     map[string]any  `json:"after"`
			Importing json.RawMessage `json:"importing"`
		} `json:"change"`
	} `json:"resource_changes"`
}

// checkMigrationPlan checks that the plan imports all four objects, changes
// nothing of the clusters and the type, and changes each member's object
// by the template's annotations alone.
func checkMigrationPlan(t *testing.T, k kubeFedInstallation, shown string) {
	t.Helper()
	var plan planJSON
	if err := json.Unmarshal([]byte(shown), &plan); err != nil {
		t.Fatalf("show -json: %v", err)
	}
	want := map[string]string{
		"kubefed_federation_cluster.sf":      "no-op",
		"kubefed_federation_cluster.berlin":  "no-op",
		"kubefed_federated_type.deployments": "no-op",
		"kubefed_federated_object.web":       "update",
	}
	annotations := onlyAnnotationsChange{clusters: slices.Sorted(maps.Keys(k.members)), added: map[string]any{"team": "web"}}
	for _, rc := range plan.ResourceChanges {
		action, ok := want[rc.Address]
		if !ok {
			t.Errorf("unexpected change of %s: %v", rc.Address, rc.Change.Actions)
			continue
		}
		delete(want, rc.Address)
		if len(rc.Change.Importing) == 0 || !slices.Equal(rc.Change.Actions, []string{action}) {
			t.Errorf("%s: actions %v, importing %s; want an import and %s", rc.Address, rc.Change.Actions, rc.Change.Importing, action)
		}
		if rc.Address != "kubefed_federated_object.web" {
			continue
		}
		before, errBefore := renderedTexts(rc.Change.Before["rendered"])
		after, errAfter := renderedTexts(rc.Change.After["rendered"])
		if err := errors.Join(errBefore, errAfter); err != nil {
			t.Fatal(err)
		}
		for _, cluster := range annotations.clusters {
			if err := annotations.check(cluster, before[cluster], after[cluster]); err != nil {
				t.Error(err)
			}
		}
	}
	for address := range want {
		t.Errorf("%s is not in the plan", address)
	}
}

// The plan of a federated object says where KubeFed's rules apply: a
// replace that adds a missing field and a template's finalizers each warn,
// naming what they are about, and a label that overrides leave as a number
// fails the plan, naming the rule, the label and the cluster.
func TestAccMigration_planDiagnostics(t *testing.T) {
	k := writeKubeFedInstallation(t, "migdiag")
	prefix, ns := k.prefix, k.namespace
	berlin := prefix + "-berlin"
	extra := func(patch string) string {
		return fmt.Sprintf(`
resource "kubefed_federated_object" "extra" {
  type = kubefed_federated_type.deployments.name
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "extra", namespace = %q, labels = { app = "extra" }, finalizers = ["example.com/cleanup"] }
    spec = {
      selector = { matchLabels = { app = "extra" } }
      template = { metadata = { labels = { app = "extra" } }, spec = { containers = [{ name = "extra", image = "nginx:1.27" }] } }
    }
  })
  placement = { clusters = [kubefed_federation_cluster.berlin.name] }
  overrides = [{ cluster = kubefed_federation_cluster.berlin.name, patches = [%s] }]
}
`, ns, patch)
	}
	w := acctest.NewWorkspace(t)
	w.Write(k.configuration(t) + extra(`{ op = "add", path = "/metadata/labels/version", value = jsonencode("2") }`))
	out := w.MustRun(0, "plan", "-no-color", "-input=false")
	for _, phrases := range [][]string{
		{`Warning: Override applied as KubeFed did on cluster "` + berlin + `"`, "override rule 0, patch 1", `"/metadata/labels/tier"`,
			"the field does not exist in this cluster's object, so it is added", `use op "add"`},
		{"Warning: Template field dropped", "dropped metadata.finalizers"},
	} {
		if !acctest.ErrorMatching(phrases...).MatchString(out) {
			t.Errorf("the plan does not warn %q:\n%s", phrases, out)
		}
	}
	planned := regexp.MustCompile(`(?s)\+ rendered\s*= \{(.*?)\n\s*\}\n\s*\+ retain_replicas`).FindStringSubmatch(out)
	if planned == nil || !strings.Contains(planned[1], `version              = "2"`) || strings.Contains(planned[1], "finalizers") {
		t.Errorf("the object planned for Berlin is not the template without its finalizers, with the label added:\n%s", out)
	}

	w.Write(k.configuration(t) + extra(`{ op = "add", path = "/metadata/labels/version", value = "2" }`))
	out = w.MustRun(1, "plan", "-no-color", "-input=false")
	if want := acctest.ErrorMatching("kubefed_federated_object.extra", `override rule 0, patch 0, cluster "`+berlin+`"`,
		`label "version" is a number, but label values are strings; write "2", in JSON quotes`); !want.MatchString(out) {
		t.Errorf("the plan does not fail on the label that is a number:\n%s", out)
	}
}
