package provider_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// importedObject is one object of the import test: its resource name, its
// host record and the configuration that created it.
type importedObject struct {
	resource, typ, name string
	config              func(ns string) string
}

// importedObjects are written with jsonencode (HTML characters, numbers)
// and yamlencode.
var importedObjects = []importedObject{
	{"json", "configmaps", "page", func(ns string) string {
		return fmt.Sprintf(`
resource "kubefed_federated_object" "json" {
  type = kubefed_federated_type.configmaps.name
  template = jsonencode({
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "page", namespace = %q, labels = { tier = "web" } }
    data       = { "index.html" = "<p>Tom & Jerry</p>", zeta = "z", alpha = "a" }
  })
  placement  = { cluster_selector = {} }
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
	}},
	{"yaml", "configmaps", "settings", func(ns string) string {
		return fmt.Sprintf(`
resource "kubefed_federated_object" "yaml" {
  type = kubefed_federated_type.configmaps.name
  template = yamlencode({
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "settings", namespace = %q }
    data       = { LOG_LEVEL = "info", b = "2" }
  })
  # A map-typed selector, an explicit op and JSON spaced by hand: the
  # import writes them otherwise, and the plan keeps what it imported.
  placement = { cluster_selector = { match_labels = tomap({
    fotest = kubefed_federation_cluster.sf.labels.fotest, region = kubefed_federation_cluster.sf.labels.region }) } }
  overrides = [
    { cluster_selector = { match_expressions = [{ key = "region", operator = "Exists" }] },
      patches = [{ op = "replace", path = "/data/b", value = "\"3\"" }] },
    { cluster = kubefed_federation_cluster.sf.name, patches = [{ path = "/metadata/labels", op = "add", value = "{ \"tier\" : \"web\" }" }] },
  ]
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
	}},
	{"service", "services", "web", func(ns string) string {
		return fmt.Sprintf(`
resource "kubefed_federated_object" "service" {
  type = kubefed_federated_type.services.name
  template = jsonencode({
    apiVersion = "v1"
    kind       = "Service"
    metadata   = { name = "web", namespace = %q }
    spec = {
      selector = { app = "web" }
      ports    = [{ name = "http", port = 80, targetPort = 8080.0, protocol = "TCP" }]
    }
  })
  placement  = { clusters = [kubefed_federation_cluster.berlin.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
	}},
}

const servicesType = `
resource "kubefed_federated_type" "services" {
  target_api_version = "v1"
  target_kind        = "Service"
}
`

// importSteps forget the objects from the state (removed blocks), then
// import them again, by ID or by identity, with the configuration that
// created them: the plan imports each and changes nothing.
func importSteps(base, ns string, byIdentity bool, objects ...importedObject) []resource.TestStep {
	var kept, forget, imports strings.Builder
	checks := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	for _, o := range objects {
		address := "kubefed_federated_object." + o.resource
		kept.WriteString(o.config(ns))
		fmt.Fprintf(&forget, "\nremoved {\n  from = %s\n  lifecycle { destroy = false }\n}\n", address)
		if byIdentity {
			fmt.Fprintf(&imports, "\nimport {\n  to       = %s\n  identity = { type = %q, namespace = %q, name = %q }\n}\n", address, o.typ, ns, o.name)
		} else {
			fmt.Fprintf(&imports, "\nimport {\n  to = %s\n  id = %q\n}\n", address, o.typ+"/"+ns+"/"+o.name)
		}
		checks = append(checks, expectImported{address})
	}
	var others strings.Builder
	for _, o := range importedObjects {
		if !strings.Contains(kept.String(), `"kubefed_federated_object" "`+o.resource+`"`) {
			others.WriteString(o.config(ns))
		}
	}
	return []resource.TestStep{
		{Config: base + others.String() + forget.String()},
		{
			Config:           base + others.String() + kept.String() + imports.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: checks},
		},
	}
}

// expectImported checks that the plan imports the resource.
type expectImported struct{ address string }

func (e expectImported) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address == e.address && rc.Change != nil && rc.Change.Importing != nil {
			return
		}
	}
	resp.Error = fmt.Errorf("the plan does not import %s", e.address)
}

// editHostRecord changes a Federated<Kind> in the host, as kubectl would.
func editHostRecord(t *testing.T, gvr schema.GroupVersionResource, ns, name string, edit func(*unstructured.Unstructured)) {
	t.Helper()
	client := newHostClients(t).dynamic.Resource(gvr).Namespace(ns)
	u, err := client.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edit(u)
	if _, err := client.Update(context.Background(), u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Objects created with jsonencode and yamlencode templates are imported,
// by ID and by identity, into a state without them, with the same
// configuration: the plan is empty. A record without the configuration's
// text (written by kubectl or KubeFed) imports in jsonencode's form, which
// a jsonencode configuration matches. A record edited in the host is still
// drift, which the next apply undoes.
func TestAccFederatedObject_importIntoEmptyPlan(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "foimp", uniqueName("foimp")
	cleanupObjectTest(t, prefix, ns)
	base := acctest.HostProviderConfig(t) + objectTestTypes + servicesType + objectTestClusters(t, prefix) + federatedNamespace(ns)
	all := base
	for _, o := range importedObjects {
		all += o.config(ns)
	}
	steps := []resource.TestStep{{
		Config:           all,
		ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
	}}
	steps = append(steps, importSteps(base, ns, false, importedObjects...)...)
	if major, minor := cliVersion(t, os.Getenv("TF_ACC_TERRAFORM_PATH")); major > 1 || minor >= 12 {
		steps = append(steps, importSteps(base, ns, true, importedObjects...)...)
	}
	withoutText := importSteps(base, ns, false, importedObjects[0], importedObjects[2])
	withoutText[1].PreConfig = func() {
		for _, record := range []struct {
			gvr  schema.GroupVersionResource
			name string
		}{{federatedCMsGVR, "page"}, {federatedServicesGVR, "web"}} {
			editHostRecord(t, record.gvr, ns, record.name, func(u *unstructured.Unstructured) {
				annotations := u.GetAnnotations()
				if _, ok := annotations[registry.TemplateTextAnnotation]; !ok {
					t.Errorf("the record %s holds no %s", record.name, registry.TemplateTextAnnotation)
				}
				delete(annotations, registry.TemplateTextAnnotation)
				u.SetAnnotations(annotations)
			})
		}
	}
	steps = append(steps, withoutText...)
	steps = append(steps, resource.TestStep{
		PreConfig: func() {
			editHostRecord(t, federatedCMsGVR, ns, "settings", func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "debug", "spec", "template", "data", "LOG_LEVEL")
			})
		},
		Config: all,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("kubefed_federated_object.yaml", plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction("kubefed_federated_object.json", plancheck.ResourceActionNoop),
			},
			PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		},
		Check: checkHostField(newHostClients(t), federatedCMsGVR, ns, "settings", "info", "spec", "template", "data", "LOG_LEVEL"),
	})
	// The steps forget the objects with removed blocks, which Terraform
	// reads from 1.7 on.
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: protoV6ProviderFactories, Steps: steps,
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_7_0)}})
}
