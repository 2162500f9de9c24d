package provider_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// unreachableHost is a provider block whose host nothing answers: every
// error below must come from validation, which needs no cluster.
const unreachableHost = `
provider "kubefed" {
  host  = "https://127.0.0.1:9"
  token = "unused"
}
`

const offlineType = `
resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
  target_plural      = "configmaps"
  namespaced         = true
}
`

// offlineObject is a federated ConfigMap with the given template and
// further attributes.
func offlineObject(template, rest string) string {
	return offlineType + `
resource "kubefed_federated_object" "bad" {
  type     = kubefed_federated_type.configmaps.name
  template = ` + template + `
` + rest + `
}
`
}

const goodTemplate = `yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "x", namespace = "app" }, data = { a = "b" } })`

func TestAccValidate_errorsWithNoHostReachable(t *testing.T) {
	step := func(config string, phrases ...string) resource.TestStep {
		return resource.TestStep{Config: unreachableHost + config, PlanOnly: true, ExpectError: acctest.ErrorMatching(phrases...)}
	}
	patch := func(p string) string {
		return `  overrides = [{ cluster = "berlin", patches = [` + p + `] }]`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(offlineObject(`"kind: [unclosed"`, ""), "Invalid template", `template = "kind: [unclosed"`),
			step(offlineObject(`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { namespace = "app" } })`, ""),
				"Invalid template", "metadata.name is required"),
			step(offlineObject(goodTemplate, patch(`{ op = "jump", path = "/data/a", value = jsonencode("c") }`)),
				"Invalid override", "overrides[0].patches[0]", `unknown op "jump"`),
			step(offlineObject(goodTemplate, patch(`{ path = "data/a", value = jsonencode("c") }`)),
				"Invalid override", "overrides[0].patches[0]", `"data/a"`),
			step(offlineObject(goodTemplate, patch(`{ path = "/data/a", value = "green" }`)),
				"Invalid override", "overrides[0].patches[0]", `value "green" is not JSON text`),
			// Misspelt attributes of selectors and rules are errors: the
			// CLI would drop them from a nested object, and a selector
			// left empty selects every cluster.
			step(offlineObject(goodTemplate, `  placement = { cluster_selector = { region = "eu" } }`),
				"Invalid cluster selector", `placement.cluster_selector has no attribute "region"`, "Write labels under match_labels"),
			step(offlineObject(goodTemplate, `  overrides = [{ cluster_selector = { region = "eu" }, patches = [{ path = "/data/a", value = jsonencode("c") }] }]`),
				"Invalid overrides", `overrides[0].cluster_selector has no attribute "region"`),
			step(offlineObject(goodTemplate, `  overrides = [{ clusters = ["berlin"], patches = [{ path = "/data/a", value = jsonencode("c") }] }]`),
				"Invalid overrides", `overrides[0] has no attribute "clusters"`),
			step(offlineObject(goodTemplate, `  overrides = [{ cluster = "berlin", patches = [{ path = "/data/a", vaule = jsonencode("c") }] }]`),
				"Invalid overrides", `overrides[0].patches[0] has no attribute "vaule"`),
			step(offlineObject(goodTemplate, patch(`{ path = "/metadata/name", value = jsonencode("other") }`)),
				"Invalid override", "/metadata/name identifies the object"),
			step(offlineObject(goodTemplate, `  placement = { cluster_selector = { match_expressions = [{ key = "region", operator = "Near" }] } }`),
				"placement.cluster_selector", "match_expressions[0]", `"Near"`),
			step(offlineObject(goodTemplate, `  placement = { cluster_selector = { match_labels = { "bad key!" = "x" } } }`),
				"Invalid cluster selector", `match_labels["bad key!"]`),
			step(offlineObject(goodTemplate, `  placement = { cluster_selector = { match_expressions = [{ key = "region", operator = "In" }] } }`),
				"Invalid cluster selector", "match_expressions[0]"),
			step(offlineObject(goodTemplate, `  timeouts = { create = "soon" }`), "Invalid Attribute Value Time Duration", `"soon"`),
			step(offlineObject(goodTemplate, `  timeouts = { update = "0s" }`), "Invalid timeout", `"0s" is not a positive duration`),
			step(`
resource "kubefed_federated_application" "chart" {
  name      = "chart"
  manifests = [yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = "web" } }),
    "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web}\n"]
}
`, "Missing namespace", "manifests[1]", "ServiceAccount web", "Set default_namespace"),
			// Objects as values: named by their key, checked as text is.
			step(`
resource "kubefed_federated_application" "values" {
  name             = "values"
  manifest_objects = { account = { apiVersion = "v1", kind = "ServiceAccount", metadata = { name = "web" } } }
}
`, "Missing namespace", `manifest_objects["account"]`, "ServiceAccount web", "Set default_namespace"),
			step(`
resource "kubefed_federated_application" "values" {
  name             = "values"
  manifest_objects = { db = { apiVersion = "v1", kind = "Secret", metadata = { name = "db", namespace = "app" } } }
}
`, "Secret given in manifest_objects", `manifest_objects["db"]`, "put it in sensitive_manifests"),
			step(`
resource "kubefed_federated_application" "values" {
  name             = "values"
  manifest_objects = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = "web" } }]
}
`, "Invalid manifest objects", "manifest_objects is a list; write an object or map"),
			step(`
resource "kubefed_federated_application" "values" {
  name             = "values"
  manifests        = [yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = "web" } })]
  manifest_objects = { again = { apiVersion = "v1", kind = "Namespace", metadata = { name = "web" } } }
}
`, "Object given twice", `Namespace web is in manifests[0] and in manifest_objects["again"]`),
			step(`
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = "shop"
  name           = "web"
  total_replicas = 9
  clusters       = { berlin = { min_replicas = 3, max_replicas = 2 } }
}
`, "Invalid replica scheduling preference", `min_replicas (3) is greater than max_replicas (2)`),
			step(`
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = "shop"
  name           = "web"
  total_replicas = -1
}
`, "Invalid Attribute Value", "total_replicas"),
			step(`
resource "kubefed_federation_cluster" "berlin" {
  name         = "berlin"
  api_endpoint = "https://203.0.113.10:6443"
  token        = ""
}
`, "Empty credential", "must not be empty"),
			step(`
data "kubefed_clusters" "eu" {
  cluster_selector = { match_labels = { region = "not a value!" } }
}
`, "Invalid cluster selector", `match_labels["region"]`),
			step(`
data "kubefed_clusters" "eu" {
  cluster_selector = { region = "eu" }
}
`, "Invalid cluster selector", `cluster_selector has no attribute "region"`),
			step(`
resource "kubefed_replica_scheduling_preference" "web" {
  namespace        = "shop"
  name             = "web"
  total_replicas   = 9
  cluster_selector = { match_label = { region = "eu" } }
}
`, "Invalid cluster selector", `cluster_selector has no attribute "match_label"`),
			step(`
resource "kubefed_federated_application" "web" {
  name      = "web"
  manifests = [yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web", namespace = "app" } })]
  placement = { cluster_selector = { tier = "edge" } }
  overrides = [{ object = { kind = "ConfigMap", nam = "web" }, cluster = "berlin", patches = [{ path = "/data/a", value = jsonencode("c") }] }]
}
`, "Invalid cluster selector", `placement.cluster_selector has no attribute "tier"`, "Invalid overrides",
				`overrides[0].object has no attribute "nam"`),
			{
				Config: `
provider "kubefed" {
  host            = "https://127.0.0.1:9"
  token           = "unused"
  request_timeout = "soon"
}
` + offlineType,
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching("request_timeout", `"soon"`),
			},
		},
	})
}
