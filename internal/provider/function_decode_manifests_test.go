package provider_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// Documents as helm template prints them become objects keyed by kind,
// namespace and name, with their null fields left out and their numbers
// numbers.
func TestAccFunctionDecodeManifests(t *testing.T) {
	acctest.Lab(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   functionsSupported,
		Steps: []resource.TestStep{{
			Config: `
output "objects" {
  value = provider::kubefed::decode_manifests(<<-EOT
    ---
    # Source: web/templates/deployment.yaml
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: shop
      creationTimestamp: null
    spec:
      replicas: 3
    ---
    apiVersion: v1
    kind: Namespace
    metadata: {name: shop}
    EOT
  )
}
output "nothing" {
  value = provider::kubefed::decode_manifests("# no objects\n")
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("objects", knownvalue.ObjectExact(map[string]knownvalue.Check{
					"Deployment.apps/shop/web": knownvalue.ObjectExact(map[string]knownvalue.Check{
						"apiVersion": knownvalue.StringExact("apps/v1"),
						"kind":       knownvalue.StringExact("Deployment"),
						"metadata":   knownvalue.ObjectExact(map[string]knownvalue.Check{"name": knownvalue.StringExact("web"), "namespace": knownvalue.StringExact("shop")}),
						"spec":       knownvalue.ObjectExact(map[string]knownvalue.Check{"replicas": knownvalue.Int64Exact(3)}),
					}),
					"Namespace/shop": knownvalue.ObjectPartial(map[string]knownvalue.Check{"kind": knownvalue.StringExact("Namespace")}),
				})),
				statecheck.ExpectKnownOutputValueAtPath("objects", tfjsonpath.New("Deployment.apps/shop/web").AtMapKey("spec").AtMapKey("replicas"),
					knownvalue.Int64Exact(3)),
				statecheck.ExpectKnownOutputValue("nothing", knownvalue.ObjectExact(map[string]knownvalue.Check{})),
			},
		}},
	})
}

func TestAccFunctionDecodeManifests_badInput(t *testing.T) {
	acctest.Lab(t)
	for name, tc := range map[string]struct{ text, want string }{
		"an object twice": {`"apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"`,
			`Namespace a`},
		"not YAML":                 {`"kind: [unclosed"`, `document 0`},
		"an object without a kind": {`"apiVersion: v1\nmetadata: {name: a}\n"`, `kind`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				TerraformVersionChecks:   functionsSupported,
				Steps: []resource.TestStep{{
					Config:      `output "x" { value = provider::kubefed::decode_manifests(` + tc.text + `) }`,
					ExpectError: regexp.MustCompile(regexp.QuoteMeta(tc.want)),
				}},
			})
		})
	}
}
