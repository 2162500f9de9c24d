package provider_test

import (
	"fmt"
	"regexp"
	"testing"

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
		return renderedSameAs("kubefed_federated_object.cm", cluster, "terraform_data."+data, "output")
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

// Each rendering rule KubeFed users rely on, through the function: what
// the function returns is what the resource sends.
func TestAccFunctionRenderObject_kubeFedRules(t *testing.T) {
	acctest.Lab(t)
	const service = `jsonencode({
    apiVersion = "v1", kind = "Service"
    metadata   = { name = "web", namespace = "shop", labels = { app = "web" }, annotations = { team = "web" }, finalizers = ["example.com/cleanup"] }
    spec       = { ports = [{ port = 1 }, { port = 2 }, { port = 3 }] }
  })`
	render := func(patches string) string {
		return `provider::kubefed::render_object(` + service + `, [{ cluster = "berlin", patches = ` + patches + ` }], { name = "berlin" })`
	}
	const meta = `"metadata":{"annotations":{"team":"web"},"labels":{"app":"web","kubefed.io/managed":"true"},"name":"web","namespace":"shop"}`
	object := func(labels, spec string) string {
		m := meta
		if labels != "" {
			m = `"metadata":{"annotations":{"team":"web"},"labels":{` + labels + `},"name":"web","namespace":"shop"}`
		}
		return `{"apiVersion":"v1","kind":"Service",` + m + `,"spec":` + spec + `}`
	}
	outputs := map[string]struct{ patches, want string }{
		"finalizers_dropped_annotations_sent": {`[]`, object("", `{"ports":[{"port":1},{"port":2},{"port":3}]}`)},
		"replace_of_a_missing_key_adds_it": {`[{ path = "/metadata/labels/tier", value = jsonencode("gold") }]`,
			object(`"app":"web","kubefed.io/managed":"true","tier":"gold"`, `{"ports":[{"port":1},{"port":2},{"port":3}]}`)},
		"replace_at_minus_one_is_the_last": {`[{ path = "/spec/ports/-1/port", value = "9" }]`, object("", `{"ports":[{"port":1},{"port":2},{"port":9}]}`)},
		"add_at_minus_one_appends":         {`[{ op = "add", path = "/spec/ports/-1", value = jsonencode({ port = 4 }) }]`, object("", `{"ports":[{"port":1},{"port":2},{"port":3},{"port":4}]}`)},
		"remove_at_minus_the_length":       {`[{ op = "remove", path = "/spec/ports/-3" }]`, object("", `{"ports":[{"port":2},{"port":3}]}`)},
		"one_path_twice_in_order":          {`[{ path = "/spec/ports/0/port", value = "7" }, { path = "/spec/ports/0/port", value = "8" }]`, object("", `{"ports":[{"port":8},{"port":2},{"port":3}]}`)},
		"an_integer_above_2_53_exact":      {`[{ path = "/spec/ports/0/port", value = "9007199254740993" }]`, object("", `{"ports":[{"port":9007199254740993},{"port":2},{"port":3}]}`)},
	}
	config := ""
	var checks []statecheck.StateCheck
	for name, o := range outputs {
		config += fmt.Sprintf("output %q {\n  value = %s\n}\n", name, render(o.patches))
		checks = append(checks, statecheck.ExpectKnownOutputValue(name, knownvalue.StringExact(o.want)))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   functionsSupported,
		Steps:                    []resource.TestStep{{Config: config, ConfigStateChecks: checks}},
	})
	for _, tc := range []struct {
		name, patches string
		want          []string
	}{
		{"a label value that is a number", `[{ op = "add", path = "/metadata/labels/version", value = "2" }]`,
			[]string{"override rule 0", `cluster "berlin"`, `label "version" is a number`, `write "2"`}},
		{"a label value that is null", `[{ path = "/metadata/labels/app", value = "null" }]`,
			[]string{"override rule 0", `cluster "berlin"`, `label "app" is null`, `op "remove"`}},
		{"replace before the start of a list", `[{ path = "/spec/ports/-4", value = jsonencode({ port = 9 }) }]`,
			[]string{"override rule 0", `cluster "berlin"`, `"/spec/ports/-4"`, "which has 3 elements: use 0 to 2, or -1 to -3 to count from the end"}},
		{"add below a number", `[{ op = "add", path = "/spec/ports/0/port/x", value = "1" }]`,
			[]string{"override rule 0", `cluster "berlin"`, `"/spec/ports/0/port/x"`, "a number"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				TerraformVersionChecks:   functionsSupported,
				Steps: []resource.TestStep{{
					Config:      `output "x" { value = ` + render(tc.patches) + ` }`,
					ExpectError: acctest.ErrorMatching(tc.want...),
				}},
			})
		})
	}
}
