package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

var (
	configMapsGVR   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	secretsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	servicesGVR     = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	namespacesGVR   = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	deploymentsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	federatedCMsGVR = schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federatedconfigmaps"}
)

// objectTestTypes enables the types the tests federate, in the same config.
const objectTestTypes = `
resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
}

resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}
`

// objectTestClusters registers the three lab members under names with the
// given prefix, labelled by region.
func objectTestClusters(t *testing.T, prefix string) string {
	return memberBlock("sf", prefix+"-sf", "san-francisco", `  labels = { region = "us-west" }`)(t) +
		memberBlock("ny", prefix+"-ny", "new-york", `  labels = { region = "us-east" }`)(t) +
		memberBlock("berlin", prefix+"-berlin", "berlin", `  labels = { region = "eu-central" }`)(t)
}

// federatedNamespace federates a namespace to every registered cluster, so
// that the namespaced objects of a test have somewhere to go.
func federatedNamespace(ns string) string {
	return fmt.Sprintf(`
resource "kubefed_federated_object" "ns" {
  type     = kubefed_federated_type.namespaces.name
  template = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %q } })
  placement {
    cluster_selector {}
  }
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin]
}
`, ns)
}

// memberClient reaches a lab member directly.
func memberClient(t *testing.T, member string) dynamic.Interface {
	t.Helper()
	c, err := dynamic.NewForConfig(acctest.Lab(t).Cluster(member).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func memberObject(t *testing.T, member string, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	client := memberClient(t, member)
	if namespace == "" {
		return client.Resource(gvr).Get(context.Background(), name, metav1.GetOptions{})
	}
	return client.Resource(gvr).Namespace(namespace).Get(context.Background(), name, metav1.GetOptions{})
}

// checkMemberField checks one field of the object on a member.
func checkMemberField(t *testing.T, member string, gvr schema.GroupVersionResource, namespace, name string, want any, fields ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := memberObject(t, member, gvr, namespace, name)
		if err != nil {
			return fmt.Errorf("%s on %s: %w", name, member, err)
		}
		if got := nested(obj, fields...); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("%s on %s: %s is %v, want %v", name, member, strings.Join(fields, "."), got, want)
		}
		return nil
	}
}

func checkMemberAbsent(t *testing.T, member string, gvr schema.GroupVersionResource, namespace, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := memberObject(t, member, gvr, namespace, name)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("%s is still on %s", name, member)
	}
}

// uniqueName gives each run fresh namespace names: the lab has no namespace
// controller, so a deleted namespace stays Terminating for good.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000_000)
}

func cleanupObjectTest(t *testing.T, prefix string) {
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, prefix+"-sf", prefix+"-ny", prefix+"-berlin") })
}

func TestAccFederatedObject_configMapPlacementOverridesDrift(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-cm", uniqueName("fo-cm")
	cleanupObjectTest(t, prefix)
	config := func(placement string, extra ...string) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type     = kubefed_federated_type.configmaps.name
  template = yamlencode({
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "settings", namespace = %q }
    data       = { color = "blue" }
  })
  placement {
    %s
  }
  overrides {
    cluster = kubefed_federation_cluster.ny.name
    patches = [{ path = "/data/color", value = jsonencode("green") }]
  }
  overrides {
    cluster_selector {
      match_labels = { region = "us-west" }
    }
    patches = [{ op = "add", path = "/data/coast", value = jsonencode("west") }]
  }
  %s
  depends_on = [kubefed_federated_object.ns]
}
`, ns, placement, strings.Join(extra, "\n"))
	}
	renderedCM := func(data string) string {
		return `{"apiVersion":"v1","data":` + data + `,"kind":"ConfigMap","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"settings","namespace":"` + ns + `"}}`
	}
	sf, ny := prefix+"-sf", prefix+"-ny"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(`clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("placed_clusters"),
							knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(ny), knownvalue.StringExact(sf)})),
						plancheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("rendered"), knownvalue.MapExact(map[string]knownvalue.Check{
							sf: knownvalue.StringExact(renderedCM(`{"coast":"west","color":"blue"}`)),
							ny: knownvalue.StringExact(renderedCM(`{"color":"green"}`)),
						})),
						plancheck.ExpectKnownValue("kubefed_federated_object.ns", tfjsonpath.New("placed_clusters"),
							knownvalue.SetSizeExact(3)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("id"), knownvalue.StringExact("configmaps/"+ns+"/settings")),
					statecheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("cluster_status").AtMapKey(sf).AtMapKey("status"), knownvalue.StringExact("OK")),
				},
				Check: resource.ComposeTestCheckFunc(
					checkMemberField(t, "san-francisco", configMapsGVR, ns, "settings", "west", "data", "coast"),
					checkMemberField(t, "san-francisco", configMapsGVR, ns, "settings", "true", "metadata", "labels", "kubefed.io/managed"),
					checkMemberField(t, "new-york", configMapsGVR, ns, "settings", "green", "data", "color"),
					checkMemberAbsent(t, "berlin", configMapsGVR, ns, "settings"),
					func(*terraform.State) error {
						obj, err := newHostClients(t).get(federatedCMsGVR, ns, "settings")
						if err != nil {
							return err
						}
						if got := fmt.Sprint(nested(obj, "spec", "overrides")); !strings.Contains(got, "clusterName:"+ny) {
							return fmt.Errorf("host spec.overrides = %s, want the rule of %s", got, ny)
						}
						if obj.GetAnnotations()["kubefed.terraform.io/selector-overrides"] == "" {
							return fmt.Errorf("host object lacks the selector overrides annotation")
						}
						if _, has := nested(obj, "spec", "template").(map[string]any)["apiVersion"]; has {
							return fmt.Errorf("host template keeps apiVersion; KubeFed's does not")
						}
						return nil
					},
				),
			},
			{
				// Someone changes a field we set on one member: taking it
				// back is a conflict, which the dry run reports at plan time.
				PreConfig: func() {
					patch := []byte(`{"data":{"color":"red","extra":"theirs"}}`)
					if _, err := memberClient(t, "san-francisco").Resource(configMapsGVR).Namespace(ns).Patch(context.Background(), "settings",
						types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "someone-else"}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config(`clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name]`),
				ExpectError: acctest.ErrorMatching(`Cluster "fo-cm-sf" rejects the object`, `field .data.color: conflict with "someone-else"`, "force_conflicts = true"),
			},
			{
				// With force_conflicts the plan shows the drift and apply
				// restores it.
				Config: config(`clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name]`, "force_conflicts = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkMemberField(t, "san-francisco", configMapsGVR, ns, "settings", "blue", "data", "color"),
					// A field another manager added is theirs and stays.
					checkMemberField(t, "san-francisco", configMapsGVR, ns, "settings", "theirs", "data", "extra"),
				),
			},
			{
				// Deleted out of band: re-created.
				PreConfig: func() {
					if err := memberClient(t, "new-york").Resource(configMapsGVR).Namespace(ns).Delete(context.Background(), "settings", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config(`clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name]`, "force_conflicts = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkMemberField(t, "new-york", configMapsGVR, ns, "settings", "green", "data", "color"),
			},
			{
				// new-york leaves the placement; berlin joins by selector.
				Config: config(`cluster_selector {
      match_expressions = [{ key = "region", operator = "In", values = ["us-west", "eu-central"] }]
    }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("placed_clusters"),
							knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(prefix + "-berlin"), knownvalue.StringExact(sf)})),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkMemberAbsent(t, "new-york", configMapsGVR, ns, "settings"),
					checkMemberField(t, "berlin", configMapsGVR, ns, "settings", "blue", "data", "color"),
				),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			for _, member := range []string{"san-francisco", "new-york", "berlin"} {
				if err := checkMemberAbsent(t, member, configMapsGVR, ns, "settings")(nil); err != nil {
					return err
				}
			}
			return nil
		},
	})
}
