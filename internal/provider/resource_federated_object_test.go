package provider_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
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

// A namespaced CRD of the test's own, served by the host and the members.
func gizmoCRD(scope string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "gizmos.fotest.example.com"},
		"spec": map[string]any{
			"group": "fotest.example.com",
			"names": map[string]any{"kind": "Gizmo", "plural": "gizmos", "singular": "gizmo", "listKind": "GizmoList"},
			"scope": scope,
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec": map[string]any{"type": "object", "properties": map[string]any{
						"size":   map[string]any{"type": "integer", "default": 1},
						"colour": map[string]any{"type": "string"},
					}},
				}}},
			}},
		},
	}}
}

var gizmosGVR = schema.GroupVersionResource{Group: "fotest.example.com", Version: "v1", Resource: "gizmos"}

func installGizmos(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	clients := map[string]dynamic.Interface{"host": newHostClients(t).dynamic}
	for _, m := range []string{"san-francisco", "new-york", "berlin"} {
		clients[m] = memberClient(t, m)
	}
	for name, c := range clients {
		if _, err := c.Resource(crds).Apply(ctx, "gizmos.fotest.example.com", gizmoCRD("Namespaced"),
			metav1.ApplyOptions{FieldManager: "fotest", Force: true}); err != nil {
			t.Fatalf("installing the Gizmo CRD on %s: %v", name, err)
		}
	}
	for name, c := range clients {
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := c.Resource(gizmosGVR).List(ctx, metav1.ListOptions{}); err == nil {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("Gizmo CRD not served on %s: %v", name, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// Every kind the issue names: a second plan right after apply is empty, and
// a Secret's values never reach the plan in clear text.
func TestAccFederatedObject_kindsEmptySecondPlan(t *testing.T) {
	acctest.Lab(t)
	installGizmos(t)
	prefix, ns := "fo-kinds", uniqueName("fo-kinds")
	cleanupObjectTest(t, prefix)
	sf, ny := prefix+"-sf", prefix+"-ny"
	const password = "hunter2-correct-horse"
	config := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
variable "password" {
  type      = string
  sensitive = true
  default   = %q
}

resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_type" "services" {
  target_api_version = "v1"
  target_kind        = "Service"
}

resource "kubefed_federated_type" "secrets" {
  target_api_version = "v1"
  target_kind        = "Secret"
}

resource "kubefed_federated_type" "gizmos" {
  target_api_version = "fotest.example.com/v1"
  target_kind        = "Gizmo"
}

locals {
  two = { placement = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name] }
}

resource "kubefed_federated_object" "web" {
  type = kubefed_federated_type.deployments.name
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = %q }
    spec = {
      replicas = 1
      selector = { matchLabels = { app = "web" } }
      template = {
        metadata = { labels = { app = "web" } }
        spec     = { containers = [{ name = "web", image = "nginx:1.27", ports = [{ containerPort = 8080 }] }] }
      }
    }
  })
  cluster_replicas = { (kubefed_federation_cluster.sf.name) = 2, (kubefed_federation_cluster.ny.name) = 3 }
  overrides {
    cluster = kubefed_federation_cluster.ny.name
    patches = [{ path = "/spec/template/spec/containers/0/image", value = jsonencode("nginx:1.27-alpine") }]
  }
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_federated_object" "svc" {
  type = kubefed_federated_type.services.name
  template = jsonencode({
    apiVersion = "v1"
    kind       = "Service"
    metadata   = { name = "web", namespace = %q }
    spec       = { selector = { app = "web" }, ports = [{ name = "http", port = 80, targetPort = 8080 }] }
  })
  placement {
    clusters = local.two.placement
  }
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_federated_object" "secret" {
  type = kubefed_federated_type.secrets.name
  template = yamlencode({
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "db", namespace = %q }
    type       = "Opaque"
    data       = { password = base64encode(var.password) }
  })
  placement {
    clusters = local.two.placement
  }
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_federated_object" "gizmo" {
  type = kubefed_federated_type.gizmos.name
  template = yamlencode({
    apiVersion = "fotest.example.com/v1"
    kind       = "Gizmo"
    metadata   = { name = "g", namespace = %q }
    spec       = { colour = "teal" }
  })
  placement {
    clusters = local.two.placement
  }
  depends_on = [kubefed_federated_object.ns]
}
`, password, ns, ns, ns, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("kubefed_federated_object.web", tfjsonpath.New("rendered").AtMapKey(ny),
						knownvalue.StringRegexp(regexp.MustCompile(`"replicas":3.*"image":"nginx:1.27-alpine"`))),
					plancheck.ExpectKnownValue("kubefed_federated_object.web", tfjsonpath.New("rendered").AtMapKey(sf),
						knownvalue.StringRegexp(regexp.MustCompile(`"replicas":2.*"image":"nginx:1.27"`))),
					plancheck.ExpectKnownValue("kubefed_federated_object.secret", tfjsonpath.New("rendered").AtMapKey(sf),
						knownvalue.StringRegexp(regexp.MustCompile(`"password":"sha256:`))),
					noClearText{secret: password},
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: resource.ComposeTestCheckFunc(
				checkMemberField(t, "new-york", deploymentsGVR, ns, "web", 3, "spec", "replicas"),
				checkMemberField(t, "san-francisco", deploymentsGVR, ns, "web", 2, "spec", "replicas"),
				checkMemberField(t, "san-francisco", servicesGVR, ns, "web", "web", "spec", "selector", "app"),
				checkMemberField(t, "new-york", gizmosGVR, ns, "g", "teal", "spec", "colour"),
				checkMemberSecret(t, "new-york", ns, "db", "password", password),
				checkMemberField(t, "berlin", namespacesGVR, "", ns, "true", "metadata", "labels", "kubefed.io/managed"),
			),
		}},
	})
}

// noClearText fails when a value appears in clear text, or base64-encoded,
// anywhere in the plan that is not marked sensitive.
type noClearText struct{ secret string }

func (c noClearText) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	encoded := base64.StdEncoding.EncodeToString([]byte(c.secret))
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Change == nil {
			continue
		}
		after, _ := json.Marshal(rc.Change.After)
		sensitive, _ := json.Marshal(rc.Change.AfterSensitive)
		for _, needle := range []string{c.secret, encoded} {
			if strings.Contains(string(after), needle) && !strings.Contains(string(sensitive), `"template":true`) {
				resp.Error = fmt.Errorf("%s shows the secret in clear text in the plan", rc.Address)
				return
			}
		}
		if rendered, ok := rc.Change.After.(map[string]any)["rendered"]; ok {
			raw, _ := json.Marshal(rendered)
			if strings.Contains(string(raw), c.secret) || strings.Contains(string(raw), encoded) {
				resp.Error = fmt.Errorf("%s: rendered shows the secret", rc.Address)
				return
			}
		}
	}
}

func checkMemberSecret(t *testing.T, member, namespace, name, key, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := memberObject(t, member, secretsGVR, namespace, name)
		if err != nil {
			return err
		}
		raw, _ := nested(obj, "data", key).(string)
		got, err := base64.StdEncoding.DecodeString(raw)
		if err != nil || string(got) != want {
			return fmt.Errorf("secret %s on %s: %s is %q, want the configured value", name, member, key, got)
		}
		return nil
	}
}
