package provider_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

const renderLocals = `
locals {
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = "shop" }
    spec = {
      replicas = 3
      template = { spec = { containers = [{ name = "web", image = "nginx:1.27" }] } }
    }
  })
  overrides = [
    {
      cluster_selector = { match_labels = { region = "eu" } }
      patches = [{ path = "/spec/template/spec/containers/0/image", value = jsonencode("registry.eu/nginx:1.27") }]
    },
    {
      cluster = "berlin"
      patches = [
        { path = "/spec/replicas", value = "1" },
        { op = "add", path = "/metadata/annotations", value = jsonencode({ team = "berlin" }) },
      ]
    },
  ]
}
`

func TestAccFunctionRenderObject(t *testing.T) {
	acctest.Lab(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   functionsSupported,
		Steps: []resource.TestStep{{
			Config: renderLocals + `
output "berlin" {
  value = provider::kubefed::render_object(local.template, local.overrides, { name = "berlin", labels = { region = "eu" } })
}
output "new_york" {
  value = provider::kubefed::render_object(local.template, local.overrides, { name = "new-york", labels = { region = "us" } })
}
output "secret" {
  value = provider::kubefed::render_object(jsonencode({
    apiVersion = "v1", kind = "Secret", metadata = { name = "db", namespace = "shop" }, stringData = { password = "hunter2" }
  }), [], { name = "berlin" })
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("berlin", knownvalue.StringExact(
					`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{"team":"berlin"},"labels":{"kubefed.io/managed":"true"},"name":"web","namespace":"shop"},`+
						`"spec":{"replicas":1,"template":{"spec":{"containers":[{"image":"registry.eu/nginx:1.27","name":"web"}]}}}}`)),
				statecheck.ExpectKnownOutputValue("new_york", knownvalue.StringExact(
					`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"web","namespace":"shop"},`+
						`"spec":{"replicas":3,"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"web"}]}}}}`)),
				statecheck.ExpectKnownOutputValue("secret", knownvalue.StringRegexp(regexp.MustCompile(`"password":"sha256:[0-9a-f]+"`))),
			},
		}},
	})
}

func TestAccFunctionRenderObject_badInput(t *testing.T) {
	acctest.Lab(t)
	for _, tc := range []struct {
		name, call string
		want       []string
	}{
		{"forbidden path", `provider::kubefed::render_object(local.template, [{ cluster = "berlin", patches = [{ path = "/metadata/name", value = "\"x\"" }] }], { name = "berlin" })`,
			[]string{"/metadata/name"}},
		{"value not JSON", `provider::kubefed::render_object(local.template, [{ cluster = "berlin", patches = [{ path = "/spec/replicas", value = "one" }] }], { name = "berlin" })`,
			[]string{"rule 0", "patch 0"}},
		{"replace below a missing parent", `provider::kubefed::render_object(local.template, [{ cluster = "berlin", patches = [{ path = "/spec/strategy/type", value = jsonencode("Recreate") }] }], { name = "berlin" })`,
			[]string{"berlin", "/spec/strategy/type"}},
		{"template without kind", `provider::kubefed::render_object("apiVersion: v1\nmetadata:\n  name: x\n", [], { name = "berlin" })`,
			[]string{"kind"}},
		{"cluster without name", `provider::kubefed::render_object(local.template, [], { labels = {} })`, []string{"cluster.name is required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				TerraformVersionChecks:   functionsSupported,
				Steps: []resource.TestStep{{
					Config:      renderLocals + `output "x" { value = ` + tc.call + ` }`,
					ExpectError: acctest.ErrorMatching(tc.want...),
				}},
			})
		})
	}
}

// One value of override rules serves both the resource's overrides and
// render_object: the object a cluster receives is what the function says.
func TestAccFunctionRenderObject_sameOverridesAsTheResource(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-fn", uniqueName("fo-fn")
	cleanupObjectTest(t, prefix, ns)
	config := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
locals {
  template = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "shared", namespace = %q }, data = { color = "blue" } })
  overrides = [
    {
      cluster_selector = { match_labels = { region = "us-west" } }
      patches          = [{ op = "add", path = "/data/coast", value = jsonencode("west") }]
    },
    {
      cluster = kubefed_federation_cluster.sf.name
      patches = [{ path = "/data/color", value = jsonencode("green") }]
    },
  ]
}

resource "kubefed_federated_object" "cm" {
  type       = kubefed_federated_type.configmaps.name
  template   = local.template
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name] }
  overrides  = local.overrides
  depends_on = [kubefed_federated_object.ns]
}

resource "terraform_data" "sf" {
  input = provider::kubefed::render_object(local.template, local.overrides, {
    name = kubefed_federation_cluster.sf.name, labels = kubefed_federation_cluster.sf.labels
  })
}

resource "terraform_data" "ny" {
  input = provider::kubefed::render_object(local.template, local.overrides, {
    name = kubefed_federation_cluster.ny.name, labels = kubefed_federation_cluster.ny.labels
  })
}
`, ns)
	sameAs := func(cluster, data string) statecheck.StateCheck {
		return statecheck.CompareValuePairs("kubefed_federated_object.cm", tfjsonpath.New("rendered").AtMapKey(cluster),
			"terraform_data."+data, tfjsonpath.New("output"), compare.ValuesSame())
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   functionsSupported,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				sameAs(prefix+"-sf", "sf"),
				sameAs(prefix+"-ny", "ny"),
				statecheck.ExpectKnownValue("terraform_data.sf", tfjsonpath.New("output"), knownvalue.StringRegexp(
					regexp.MustCompile(`"data":\{"coast":"west","color":"green"\}`))),
			},
		}},
	})
}
