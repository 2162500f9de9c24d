package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// Mistakes in names and placements are errors of terraform validate: no
// host answers here, so each must come from validation alone.
func TestAccValidate_namesAndDuplicateClusters(t *testing.T) {
	step := func(config string, phrases ...string) resource.TestStep {
		return resource.TestStep{Config: unreachableHost + config, PlanOnly: true, ExpectError: acctest.ErrorMatching(phrases...)}
	}
	preference := func(namespace, name, clusters string) string {
		return fmt.Sprintf(`
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = %q
  name           = %q
  total_replicas = 3
%s
}
`, namespace, name, clusters)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(offlineObject(goodTemplate, `  placement = { clusters = ["berlin", "new-york", "berlin"] }`),
				"Duplicate cluster name", `placement.clusters: "berlin" is listed more than once`),
			step(preference("shop", "Web_1", ""), "Invalid name", "must be a DNS-1123 subdomain", `(got "Web_1")`),
			step(preference("shop.eu", "web", ""), "Invalid name", "must be a DNS-1123 label", `(got "shop.eu")`),
			step(preference("shop", "web", `  clusters = { Berlin = { weight = 1 } }`),
				"Invalid cluster name", `clusters: key "Berlin" must be a cluster's name`, `or "*"`),
			step(offlineObject(`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "Web", namespace = "app" } })`, ""),
				"Invalid template", `metadata.name "Web" is not a DNS-1123 subdomain`),
			step(offlineObject(goodTemplate, `  overrides = [{ cluster = "Berlin", patches = [{ path = "/data/a", value = jsonencode("c") }] }]`),
				"Invalid name", `overrides[0].cluster: must be a DNS-1123 label`, `(got "Berlin")`),
			step(offlineObject(goodTemplate, `  cluster_replicas = { "new_york" = 2 }`),
				"Invalid cluster name", `cluster_replicas: key "new_york" must be a cluster's name`),
			step(`
data "kubefed_federated_object_status" "web" {
  type = "deployments.apps"
  name = "Web"
}
`, "Invalid name", "must be a DNS-1123 subdomain", `(got "Web")`),
		},
	})
}

// An object with no placement is valid, as in KubeFed, and placed nowhere:
// validate says so as it says it of a selector that matches no cluster.
func TestAccValidate_objectWithoutPlacementWarns(t *testing.T) {
	ws := acctest.NewWorkspace(t)
	ws.Write(unreachableHost + offlineObject(goodTemplate, ""))
	out := ws.MustRun(0, "validate", "-no-color")
	if want := acctest.ErrorMatching("Warning: The object has no placement", "The object is placed on no cluster",
		"neither placement nor cluster_replicas"); !want.MatchString(out) {
		t.Fatalf("validate of an object without placement does not warn:\n%s", out)
	}
	// A misspelt attribute of placement, which the CLI drops, leaves a
	// placement of neither clusters nor a selector.
	ws.Write(unreachableHost + offlineObject(goodTemplate, `  placement = { cluster = ["berlin"] }`))
	out = ws.MustRun(0, "validate", "-no-color")
	if want := acctest.ErrorMatching("Warning: The placement selects no cluster", "placement sets neither clusters nor cluster_selector",
		"cluster for clusters"); !want.MatchString(out) {
		t.Fatalf("validate of a placement of nothing does not warn:\n%s", out)
	}
	ws.Write(unreachableHost + offlineObject(goodTemplate, `  placement = { clusters = ["berlin"] }`))
	if out := ws.MustRun(0, "validate", "-no-color"); strings.Contains(out, "placed on no cluster") {
		t.Fatalf("validate of a placed object warns:\n%s", out)
	}
}

// A provider pointed at a cluster that has no KubeFed registry (a member,
// here) is told so by the clusters data source, rather than answered with
// no clusters.
func TestAccClustersDataSource_hostWithoutKubeFed(t *testing.T) {
	berlin := acctest.Lab(t).Cluster("berlin")
	cfg := &rest.Config{Host: berlin.URL, BearerToken: berlin.Token, TLSClientConfig: rest.TLSClientConfig{CAData: berlin.CAPEM}}
	d, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Resource(crds).Get(context.Background(), "kubefedclusters.core.kubefed.io", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("the test needs a member without KubeFed's CRDs; berlin answered %v", err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "kubefed" {
  config_path    = %q
  config_context = %q
}
`, berlin.KubeconfigPath, berlin.Context) + readClusters,
			ExpectError: acctest.ErrorMatching("The host has no KubeFed cluster registry",
				"the host serves no kubefedclusters.core.kubefed.io", "Point the provider at the federation's host", "depends_on"),
		}},
	})
}
