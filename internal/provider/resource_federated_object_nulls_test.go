package provider_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// A null in a template or a manifest is an absent field: the Gizmo CRD's
// structural schema types spec.colour as a string, so a null sent to a
// member would be refused by its dry run at plan. `cond ? v : null` flipping
// back to null removes the field from the members.
func TestAccFederatedObject_templateNullFieldsAreAbsent(t *testing.T) {
	acctest.Lab(t)
	installGizmos(t)
	prefix, ns := "fo-nulls", uniqueName("fo-nulls")
	cleanupObjectTest(t, prefix, ns)
	sf := prefix + "-sf"
	// The clusters, types and namespace exist before the objects are
	// planned, so that the plan dry-runs the objects on the member.
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + `
resource "kubefed_federated_type" "gizmos" {
  target_api_version = "fotest.example.com/v1"
  target_kind        = "Gizmo"
}
`
	config := func(colour string) string {
		return base + fmt.Sprintf(`
variable "colour" {
  type    = string
  default = %q
}

resource "kubefed_federated_object" "json" {
  type = kubefed_federated_type.gizmos.name
  template = jsonencode({
    apiVersion = "fotest.example.com/v1"
    kind       = "Gizmo"
    metadata   = { name = "json", namespace = %q, annotations = null }
    spec       = { size = 2, colour = var.colour == "" ? null : var.colour }
  })
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_federated_object" "yaml" {
  type = kubefed_federated_type.gizmos.name
  template = yamlencode({
    apiVersion = "fotest.example.com/v1"
    kind       = "Gizmo"
    metadata   = { name = "yaml", namespace = %q }
    spec       = { size = 3, colour = var.colour == "" ? null : var.colour }
  })
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_federated_application" "app" {
  name = %q
  manifests = [yamlencode({
    apiVersion = "fotest.example.com/v1"
    kind       = "Gizmo"
    metadata   = { name = "app", namespace = %q }
    spec       = { size = 4, colour = var.colour == "" ? null : var.colour }
  })]
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns, kubefed_federated_type.gizmos]
}
`, colour, ns, ns, prefix, ns)
	}
	withoutColour := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{
			expectRendered("kubefed_federated_object.json", false, map[string]knownvalue.Check{sf: knownvalue.StringRegexp(regexp.MustCompile(`"spec":\{"size":2\}`))}),
			expectRendered("kubefed_federated_object.yaml", false, map[string]knownvalue.Check{sf: knownvalue.StringRegexp(regexp.MustCompile(`"spec":\{"size":3\}`))}),
		},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
	absent := func() resource.TestCheckFunc {
		return resource.ComposeTestCheckFunc(
			checkMemberField(t, "san-francisco", gizmosGVR, ns, "json", 2, "spec", "size"),
			checkMemberField(t, "san-francisco", gizmosGVR, ns, "yaml", 3, "spec", "size"),
			checkMemberFieldAbsent(t, "san-francisco", gizmosGVR, ns, "json", "spec", "colour"),
			checkMemberFieldAbsent(t, "san-francisco", gizmosGVR, ns, "yaml", "spec", "colour"),
			checkMemberField(t, "san-francisco", gizmosGVR, ns, "app", 4, "spec", "size"),
			checkMemberFieldAbsent(t, "san-francisco", gizmosGVR, ns, "app", "spec", "colour"),
			checkHostTemplateFieldAbsent(t, ns, "json", "spec", "colour"),
			checkHostTemplateFieldAbsent(t, ns, "yaml", "spec", "colour"),
			checkHostTemplateFieldAbsent(t, ns, "app", "spec", "colour"),
		)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{Config: config(""), ConfigPlanChecks: withoutColour, Check: absent()},
			{
				Config: config("teal"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkMemberField(t, "san-francisco", gizmosGVR, ns, "json", "teal", "spec", "colour"),
					checkMemberField(t, "san-francisco", gizmosGVR, ns, "yaml", "teal", "spec", "colour"),
					checkMemberField(t, "san-francisco", gizmosGVR, ns, "app", "teal", "spec", "colour"),
				),
			},
			{Config: config(""), ConfigPlanChecks: withoutColour, Check: absent()},
		},
	})
}

// checkMemberFieldAbsent checks that the object on a member lacks a field.
func checkMemberFieldAbsent(t *testing.T, member string, gvr schema.GroupVersionResource, namespace, name string, fields ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := memberObject(t, member, gvr, namespace, name)
		if err != nil {
			return fmt.Errorf("%s on %s: %w", name, member, err)
		}
		return fieldAbsent(obj.Object, fmt.Sprintf("%s on %s", name, member), fields...)
	}
}

// checkHostTemplateFieldAbsent checks that the host's Federated<Kind> stores
// a template without the field.
func checkHostTemplateFieldAbsent(t *testing.T, namespace, name string, fields ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		gvr := schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federatedgizmos"}
		obj, err := newHostClients(t).dynamic.Resource(gvr).Namespace(namespace).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("federated %s in the host: %w", name, err)
		}
		template, _ := nested(obj, "spec", "template").(map[string]any)
		if template == nil {
			return fmt.Errorf("federated %s in the host has no spec.template", name)
		}
		return fieldAbsent(template, "the host's template of "+name, fields...)
	}
}

func fieldAbsent(obj map[string]any, what string, fields ...string) error {
	parent := obj
	for _, f := range fields[:len(fields)-1] {
		next, ok := parent[f].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: no mapping at %s", what, f)
		}
		parent = next
	}
	if v, ok := parent[fields[len(fields)-1]]; ok {
		return fmt.Errorf("%s: %v holds %v, want the field absent", what, fields, v)
	}
	return nil
}

// render_object shows what the resource would send: a null field is absent,
// so a template with it renders byte for byte as one without it.
func TestAccFunctionRenderObject_nullFieldsAreAbsent(t *testing.T) {
	acctest.Lab(t)
	const want = `{"apiVersion":"fotest.example.com/v1","kind":"Gizmo","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"g","namespace":"shop"},"spec":{"size":2}}`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   functionsSupported,
		Steps: []resource.TestStep{{
			Config: `
output "json" {
  value = provider::kubefed::render_object(jsonencode({
    apiVersion = "fotest.example.com/v1", kind = "Gizmo", metadata = { name = "g", namespace = "shop", labels = null }
    spec = { size = 2, colour = null }
  }), [], { name = "berlin" })
}
output "yaml" {
  value = provider::kubefed::render_object(yamlencode({
    apiVersion = "fotest.example.com/v1", kind = "Gizmo", metadata = { name = "g", namespace = "shop" }
    spec = { size = 2, colour = null }
  }), [], { name = "berlin" })
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("json", knownvalue.StringExact(want)),
				statecheck.ExpectKnownOutputValue("yaml", knownvalue.StringExact(want)),
			},
		}},
	})
}
