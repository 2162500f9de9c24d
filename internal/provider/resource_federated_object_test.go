package provider_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
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
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

var (
	configMapsGVR   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	secretsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	servicesGVR     = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	namespacesGVR   = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	deploymentsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	federatedCMsGVR = schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federatedconfigmaps"}
)

// providerSource names the provider under test the way the test framework
// attaches it.
const providerSource = `
terraform {
  required_providers {
    kubefed = { source = "registry.terraform.io/hashicorp/kubefed" }
  }
}
`

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
// given prefix, labelled by region and by the test, so that selectors of a
// test never match the clusters other tests register meanwhile.
func objectTestClusters(t *testing.T, prefix string) string {
	return memberBlock("sf", prefix+"-sf", "san-francisco", objectTestLabels(prefix, "us-west"))(t) +
		memberBlock("ny", prefix+"-ny", "new-york", objectTestLabels(prefix, "us-east"))(t) +
		memberBlock("berlin", prefix+"-berlin", "berlin", objectTestLabels(prefix, "eu-central"))(t)
}

// objectTestLabels labels a test's cluster by region and by the test.
func objectTestLabels(prefix, region string) string {
	return fmt.Sprintf(`  labels = { region = %q, fotest = %q }`, region, prefix)
}

// federatedNamespace federates a namespace to the test's clusters, so that
// the namespaced objects of a test have somewhere to go.
func federatedNamespace(ns string) string {
	return fmt.Sprintf(`
resource "kubefed_federated_object" "ns" {
  type     = kubefed_federated_type.namespaces.name
  template = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %q } })
  placement = {
    cluster_selector = {
      match_labels = { fotest = kubefed_federation_cluster.sf.labels.fotest }
    }
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

// cleanupObjectTest removes what a failed test may leave in the host: its
// clusters, and the Federated<Kind> objects in its namespace, which would
// otherwise keep the shared federated types from being destroyed.
func cleanupObjectTest(t *testing.T, prefix, ns string) {
	host := newHostClients(t)
	t.Cleanup(func() {
		for _, plural := range []string{"federatedconfigmaps", "federatednamespaces", "federateddeployments", "federatedservices", "federatedsecrets", "federatedgizmos"} {
			gvr := schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: plural}
			_ = host.dynamic.Resource(gvr).Namespace(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
		}
		deleteClusters(t, host, prefix+"-sf", prefix+"-ny", prefix+"-berlin")
		if t.Failed() {
			// A test whose destroy failed leaves the shared types enabled,
			// and every later test that enables them would be refused.
			removeTestTypes(host)
		}
	})
}

// removeTestTypes disables the types the tests enable, by hand.
func removeTestTypes(host hostClients) {
	ctx := context.Background()
	for _, name := range []string{"configmaps", "namespaces", "deployments.apps", "services", "secrets"} {
		_ = host.dynamic.Resource(federatedTypeConfigs).Namespace(federationNamespace).Delete(ctx, name, metav1.DeleteOptions{})
	}
	for _, crd := range []string{"federatedconfigmaps", "federatednamespaces", "federateddeployments", "federatedservices", "federatedsecrets"} {
		_ = host.dynamic.Resource(crds).Delete(ctx, crd+".types.kubefed.io", metav1.DeleteOptions{})
	}
}

func TestAccFederatedObject_configMapPlacementOverridesDrift(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-cm", uniqueName("fo-cm")
	cleanupObjectTest(t, prefix, ns)
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
  placement = {
    %s
  }
  overrides = [
    {
      cluster = kubefed_federation_cluster.ny.name
      patches = [{ path = "/data/color", value = jsonencode("green") }]
    },
    {
      cluster_selector = {
        match_labels = { region = "us-west" }
      }
      patches = [{ op = "add", path = "/data/coast", value = jsonencode("west") }]
    }
  ]
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
						expectRendered("kubefed_federated_object.cm", true, map[string]knownvalue.Check{
							sf: knownvalue.StringExact(renderedCM(`{"coast":"west","color":"blue"}`)),
							ny: knownvalue.StringExact(renderedCM(`{"color":"green"}`)),
						}),
						// Created with the clusters it selects: known once
						// they are registered, which it waits for.
						plancheck.ExpectUnknownValue("kubefed_federated_object.ns", tfjsonpath.New("placed_clusters")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federated_object.ns", tfjsonpath.New("placed_clusters"), knownvalue.SetSizeExact(3)),
					statecheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("id"), knownvalue.StringExact("configmaps/"+ns+"/settings")),
					statecheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("cluster_status").AtMapKey(sf).AtMapKey("status"), knownvalue.StringExact("OK")),
					// A ConfigMap has no rollout to report.
					statecheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("cluster_health"), knownvalue.MapSizeExact(0)),
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
				// Someone changes a field we set on one member, by hand: the
				// plan shows the drift and the apply takes the field back,
				// with no force_conflicts.
				PreConfig: func() {
					patch := []byte(`{"data":{"color":"red","extra":"theirs"}}`)
					if _, err := memberClient(t, "san-francisco").Resource(configMapsGVR).Namespace(ns).Patch(context.Background(), "settings",
						types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "someone-else"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config(`clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionUpdate),
						// The cluster the apply writes to will be OK, as the
						// one it leaves alone is.
						plancheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("cluster_status").AtMapKey(sf).AtMapKey("status"),
							knownvalue.StringExact("OK")),
						plancheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("cluster_status").AtMapKey(ny).AtMapKey("status"),
							knownvalue.StringExact("OK")),
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
				// Another declarative tool claims the field: that is an
				// ownership dispute, which the plan names in a warning and
				// the apply, the write, refuses.
				PreConfig: func() {
					claim := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"color":"red"}}`)
					force := true
					if _, err := memberClient(t, "san-francisco").Resource(configMapsGVR).Namespace(ns).Patch(context.Background(), "settings",
						types.ApplyPatchType, claim, metav1.PatchOptions{FieldManager: "other-tool", Force: &force}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config(`clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name]`),
				ExpectError: acctest.ErrorMatching(`failed on 1 cluster`, `cluster "fo-cm-sf"`, `"other-tool": .data.color`, "force_conflicts = true"),
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
				Config: config(`cluster_selector = {
      match_labels      = { fotest = "fo-cm" }
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
	cleanupObjectTest(t, prefix, ns)
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
      strategy = { type = "RollingUpdate", rollingUpdate = { maxSurge = "25%%", maxUnavailable = 0 } }
      template = {
        metadata = { labels = { app = "web" }, annotations = {} }
        spec = {
          hostNetwork     = false
          securityContext = { runAsNonRoot = true, runAsUser = 1000 }
          containers = [{
            name  = "web"
            image = "nginx:1.27"
            ports = [{ name = "http", containerPort = 8080 }]
            env   = [{ name = "POD", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } }]
            # The server stores these as "500m", "1Gi", "2" and "2147483648".
            resources = {
              requests = { cpu = 0.5, memory = "1024Mi" }
              limits   = { cpu = "2000m", memory = 2147483648 }
            }
            readinessProbe = { httpGet = { path = "/healthz", port = "http" }, periodSeconds = 5 }
            volumeMounts   = [{ name = "cache", mountPath = "/cache", readOnly = false }]
          }]
          # 0.5Gi is stored as 512Mi; 420 is 0644.
          volumes = [
            { name = "cache", emptyDir = { sizeLimit = "0.5Gi" } },
            { name = "config", configMap = { name = "web", defaultMode = 420, optional = true } },
          ]
        }
      }
    }
  })
  cluster_replicas = { (kubefed_federation_cluster.sf.name) = 2, (kubefed_federation_cluster.ny.name) = 3 }
  overrides = [
    {
      cluster = kubefed_federation_cluster.ny.name
      patches = [{ path = "/spec/template/spec/containers/0/image", value = jsonencode("nginx:1.27-alpine") }]
    }
  ]
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
  placement = {
    clusters = local.two.placement
  }
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_federated_object" "secret" {
  type = kubefed_federated_type.secrets.name
  sensitive_template = yamlencode({
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "db", namespace = %q }
    type       = "Opaque"
    data       = { password = base64encode(var.password) }
    stringData = { token = "token-${var.password}" }
  })
  placement = {
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
  placement = {
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
					expectRendered("kubefed_federated_object.web", false, map[string]knownvalue.Check{ny: knownvalue.StringRegexp(regexp.MustCompile(`"replicas":3.*"image":"nginx:1.27-alpine"`))}),
					expectRendered("kubefed_federated_object.web", false, map[string]knownvalue.Check{sf: knownvalue.StringRegexp(regexp.MustCompile(`"replicas":2.*"image":"nginx:1.27"`))}),
					expectRendered("kubefed_federated_object.secret", false, map[string]knownvalue.Check{sf: knownvalue.StringRegexp(regexp.MustCompile(`"password":"sha256:`))}),
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
				checkMemberSecret(t, "san-francisco", ns, "db", "token", "token-"+password),
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
			if strings.Contains(string(after), needle) && !strings.Contains(string(sensitive), `"sensitive_template":true`) {
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

// stopAtPlan is a plan check with a side effect: it stops a member once the
// plan is made, so that apply meets a cluster the plan saw healthy.
type stopAtPlan struct {
	t      *testing.T
	member string
}

func (s stopAtPlan) CheckPlan(ctx context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	if err := acctest.Lab(s.t).Stop(ctx, s.member); err != nil {
		resp.Error = err
	}
}

func restartAfterTest(t *testing.T, member string) {
	t.Cleanup(func() {
		if err := acctest.Lab(t).Start(context.Background(), member); err != nil {
			t.Errorf("restarting %s: %v", member, err)
		}
	})
}

func TestAccFederatedObject_memberDown(t *testing.T) {
	lab := acctest.Lab(t)
	prefix, ns := "fo-down", uniqueName("fo-down")
	cleanupObjectTest(t, prefix, ns)
	restartAfterTest(t, "berlin")
	sf, berlin := prefix+"-sf", prefix+"-berlin"
	config := func(color string) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type     = kubefed_federated_type.configmaps.name
  template = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "c", namespace = %q }, data = { color = %q } })
  placement = {
    clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.berlin.name]
  }
  depends_on = [kubefed_federated_object.ns]
}
`, ns, color)
	}
	rendered := func(color string) string {
		return `{"apiVersion":"v1","data":{"color":"` + color + `"},"kind":"ConfigMap","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"c","namespace":"` + ns + `"}}`
	}
	start := func() {
		if err := lab.Start(context.Background(), "berlin"); err != nil {
			t.Fatal(err)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("blue")},
			{
				// berlin is down before the plan: frozen, the others go on.
				PreConfig: func() {
					if err := lab.Stop(context.Background(), "berlin"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("green"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						expectRendered("kubefed_federated_object.cm", true, map[string]knownvalue.Check{
							sf:     knownvalue.StringExact(rendered("green")),
							berlin: knownvalue.StringExact(rendered("blue")),
						}),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkMemberField(t, "san-francisco", configMapsGVR, ns, "c", "green", "data", "color"),
			},
			{
				// berlin is back: the pending change shows and is applied.
				PreConfig: start,
				Config:    config("green"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionUpdate),
						expectRendered("kubefed_federated_object.cm", false, map[string]knownvalue.Check{berlin: knownvalue.StringExact(rendered("green"))}),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkMemberField(t, "berlin", configMapsGVR, ns, "c", "green", "data", "color"),
			},
			{
				// berlin goes down between plan and apply: only berlin fails.
				Config: config("red"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{stopAtPlan{t: t, member: "berlin"}},
				},
				ExpectError: acctest.ErrorMatching("failed on 1 cluster(s)", `cluster "`+berlin+`" (UpdateFailed)`),
			},
			{
				// sf got its change; once berlin is back the next apply
				// converges.
				PreConfig: func() {
					if err := checkMemberField(t, "san-francisco", configMapsGVR, ns, "c", "red", "data", "color")(nil); err != nil {
						t.Fatal(err)
					}
					start()
				},
				Config: config("red"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionUpdate),
						onlyClusterChanges{address: "kubefed_federated_object.cm", cluster: berlin},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkMemberField(t, "berlin", configMapsGVR, ns, "c", "red", "data", "color"),
			},
		},
	})
}

// A create that fails on one cluster leaves the object tainted. Terraform
// then replaces it; the replacement re-applies the object over the clusters
// that hold it, without deleting it there first.
func TestAccFederatedObject_partialCreateReplacedInPlace(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-partial", uniqueName("fo-partial")
	cleanupObjectTest(t, prefix, ns)
	restartAfterTest(t, "berlin")
	sf, berlin := prefix+"-sf", prefix+"-berlin"
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns)
	config := base + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type     = kubefed_federated_type.configmaps.name
  template = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "c", namespace = %q }, data = { color = "blue" } })
  placement = {
    clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.berlin.name]
  }
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
	var sfUID string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				// berlin goes down between plan and apply of the create.
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{stopAtPlan{t: t, member: "berlin"}},
				},
				ExpectError: acctest.ErrorMatching("failed on 1 cluster(s)", `cluster "`+berlin+`" (CreationFailed)`),
			},
			{
				PreConfig: func() {
					obj, err := memberObject(t, "san-francisco", configMapsGVR, ns, "c")
					if err != nil {
						t.Fatalf("the create should have reached san-francisco: %v", err)
					}
					sfUID = string(obj.GetUID())
					if err := acctest.Lab(t).Start(context.Background(), "berlin"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionDestroyBeforeCreate),
						// The state recorded san-francisco's object: the
						// change of rendered is berlin's alone.
						onlyClusterChanges{address: "kubefed_federated_object.cm", cluster: berlin},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkMemberField(t, "berlin", configMapsGVR, ns, "c", "blue", "data", "color"),
					func(*terraform.State) error {
						obj, err := memberObject(t, "san-francisco", configMapsGVR, ns, "c")
						if err != nil {
							return err
						}
						if string(obj.GetUID()) != sfUID {
							return fmt.Errorf("san-francisco's ConfigMap was deleted and created again (uid %s, was %s)", obj.GetUID(), sfUID)
						}
						return nil
					},
					resource.TestCheckResourceAttr("kubefed_federated_object.cm", "cluster_status."+sf+".status", "OK"),
					resource.TestCheckResourceAttr("kubefed_federated_object.cm", "cluster_status."+berlin+".status", "OK"),
				),
			},
			{
				// Another name is another object: the replacement removes
				// the old one everywhere.
				Config: strings.Replace(config, `name = "c"`, `name = "c2"`, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionDestroyBeforeCreate),
					},
				},
				Check: resource.ComposeTestCheckFunc(
					checkGone(t, configMapsGVR, ns, "c", "san-francisco", "berlin"),
					checkMemberField(t, "berlin", configMapsGVR, ns, "c2", "blue", "data", "color"),
				),
			},
			{
				// A plain destroy still removes it everywhere.
				Config: base,
				Check:  checkGone(t, configMapsGVR, ns, "c2", "san-francisco", "berlin"),
			},
		},
	})
}

// registerBehindTerraform is a plan check with a side effect: once the plan
// is made, it registers a member under another name straight in the host,
// ready, as another team's run would.
type registerBehindTerraform struct {
	t            *testing.T
	name, member string
	labels       map[string]string
}

func (c registerBehindTerraform) CheckPlan(ctx context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	reg := someoneElsesRegistry(c.t)
	m := acctest.Lab(c.t).Cluster(c.member)
	cluster := registry.Cluster{
		Name: c.name, Labels: c.labels, SecretName: registry.SecretNameFor(c.name),
		Connection: member.Connection{APIEndpoint: m.URL, CABundle: m.CAPEM, Token: m.Token},
	}
	if _, err := reg.ApplyCluster(ctx, cluster, member.Probe(ctx, c.name, cluster.Connection)); err != nil {
		resp.Error = err
	}
}

// someoneElsesRegistry writes to the lab's registry under another field
// manager than the provider's.
func someoneElsesRegistry(t *testing.T) *registry.Registry {
	host := newHostClients(t)
	return registry.New(host.kube, host.dynamic, host.kube.Discovery(), federationNamespace, "someone-else")
}

// A cluster registered by someone else between plan and apply is not placed
// by that apply, which does what the plan showed; the next plan places it.
func TestAccFederatedObject_clusterRegisteredAfterPlan(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-late", uniqueName("fo-late")
	cleanupObjectTest(t, prefix, ns)
	late := prefix + "-late"
	t.Cleanup(func() {
		if err := someoneElsesRegistry(t).DeleteCluster(context.Background(), late, registry.SecretNameFor(late)); err != nil {
			t.Errorf("removing %s: %v", late, err)
		}
	})
	config := func(color string, replicas int) string {
		return acctest.HostProviderConfig(t) + objectTestTypes +
			memberBlock("sf", prefix+"-sf", "san-francisco", objectTestLabels(prefix, "us-west"))(t) +
			memberBlock("ny", prefix+"-ny", "new-york", objectTestLabels(prefix, "us-east"))(t) + fmt.Sprintf(`
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = %[1]q
  name           = "web"
  total_replicas = %[4]d
  rebalance      = true
  cluster_selector = {
    match_labels = { fotest = %[2]q }
  }
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federated_type.deployments]
}

resource "kubefed_federated_object" "ns" {
  type     = kubefed_federated_type.namespaces.name
  template = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %[1]q } })
  placement = {
    cluster_selector = {
      match_labels = { fotest = %[2]q }
    }
  }
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny]
}

resource "kubefed_federated_object" "cm" {
  type     = kubefed_federated_type.configmaps.name
  template = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "c", namespace = %[1]q }, data = { color = %[3]q } })
  placement = {
    cluster_selector = {
      match_labels = { fotest = %[2]q }
    }
  }
  depends_on = [kubefed_federated_object.ns]
}
`, ns, prefix, color, replicas)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("blue", 6)},
			{
				Config: config("green", 9),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{registerBehindTerraform{t: t, name: late, member: "berlin",
						labels: map[string]string{"fotest": prefix, "region": "eu-central"}}},
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("kubefed_federated_object.cm", "placed_clusters.#", "2"),
					resource.TestCheckResourceAttr("kubefed_replica_scheduling_preference.web", "replicas.%", "2"),
					checkMemberField(t, "san-francisco", configMapsGVR, ns, "c", "green", "data", "color"),
					checkGone(t, configMapsGVR, ns, "c", "berlin"),
				),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config("green", 9),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kubefed_replica_scheduling_preference.web", tfjsonpath.New("replicas"),
							knownvalue.MapExact(map[string]knownvalue.Check{
								late: knownvalue.Int64Exact(3), prefix + "-ny": knownvalue.Int64Exact(3), prefix + "-sf": knownvalue.Int64Exact(3),
							})),
						plancheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("placed_clusters"),
							knownvalue.SetExact([]knownvalue.Check{
								knownvalue.StringExact(late), knownvalue.StringExact(prefix + "-ny"), knownvalue.StringExact(prefix + "-sf"),
							})),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkMemberField(t, "berlin", configMapsGVR, ns, "c", "green", "data", "color"),
			},
		},
	})
}

func TestAccFederatedObject_orphan(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-orphan", uniqueName("fo-orphan")
	cleanupObjectTest(t, prefix, ns)
	config := func(clusters string, encode ...string) string {
		encoder := "yamlencode"
		if len(encode) > 0 {
			encoder = encode[0]
		}
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type            = kubefed_federated_type.configmaps.name
  template        = `+encoder+`({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "kept", namespace = %q }, data = { a = "b" } })
  deletion_policy = "Orphan"
  placement = {
    clusters = %s
  }
  depends_on = [kubefed_federated_object.ns]
}
`, ns, clusters)
	}
	unlabelled := func(member string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			obj, err := memberObject(t, member, configMapsGVR, ns, "kept")
			if err != nil {
				return fmt.Errorf("orphaned object on %s: %w", member, err)
			}
			if _, has := obj.GetLabels()["kubefed.io/managed"]; has {
				return fmt.Errorf("orphaned object on %s keeps the managed label", member)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(`[kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name]`)},
			{
				Config: config(`[kubefed_federation_cluster.sf.name]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					unlabelled("new-york"),
					checkMemberField(t, "new-york", configMapsGVR, ns, "kept", "b", "data", "a"),
					func(*terraform.State) error {
						obj, err := newHostClients(t).get(federatedCMsGVR, ns, "kept")
						if err != nil {
							return err
						}
						if obj.GetAnnotations()["kubefed.io/orphan"] != "true" {
							return fmt.Errorf("the host object lacks KubeFed's orphan annotation")
						}
						return nil
					},
				),
			},
			{
				// The same template in another encoding changes no cluster:
				// Terraform plans the new text, but rendered stays the same.
				Config: config(`[kubefed_federation_cluster.sf.name]`, "jsonencode"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{onlyClusterChanges{address: "kubefed_federated_object.cm"}},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
		CheckDestroy: unlabelled("san-francisco"),
	})
}

// An object KubeFed wrote (template without apiVersion, kind or name) is
// imported into the configuration that matches it; applying that
// configuration adopts it.
func TestAccFederatedObject_importKubeFedObject(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-import", uniqueName("fo-import")
	cleanupObjectTest(t, prefix, ns)
	sf := prefix + "-sf"
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns)
	object := fmt.Sprintf(`
resource "kubefed_federated_object" "imported" {
  type     = kubefed_federated_type.configmaps.name
  template = jsonencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "legacy", namespace = %q, labels = { app = "old" } }, data = { k = "v" } })
  placement = {
    clusters = [kubefed_federation_cluster.sf.name]
  }
  overrides = [
    {
      cluster = kubefed_federation_cluster.sf.name
      patches = [{ path = "/data/k", value = jsonencode("x") }]
    }
  ]
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
	kubefedShaped := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "types.kubefed.io/v1beta1",
		"kind":       "FederatedConfigMap",
		"metadata":   map[string]any{"name": "legacy", "namespace": ns},
		"spec": map[string]any{
			"template":  map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "old"}}, "data": map[string]any{"k": "v"}},
			"placement": map[string]any{"clusters": []any{map[string]any{"name": sf}}},
			"overrides": []any{map[string]any{"clusterName": sf, "clusterOverrides": []any{map[string]any{"path": "/data/k", "value": "x"}}}},
		},
	}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				// A create never takes over what KubeFed wrote: the plan
				// says to import it.
				PreConfig: func() {
					if _, err := newHostClients(t).dynamic.Resource(federatedCMsGVR).Namespace(ns).Create(context.Background(), kubefedShaped, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      base + object,
				ExpectError: acctest.ErrorMatching("Already exists in the host", "FederatedConfigMap "+ns+"/legacy", "import it"),
			},
			{
				// An import step's configuration is used as written, so it
				// names the provider's source, which the other steps get
				// from the test framework: OpenTofu would otherwise look the
				// provider up in its own registry.
				Config:             providerSource + base + object,
				ResourceName:       "kubefed_federated_object.imported",
				ImportState:        true,
				ImportStatePersist: true,
				ImportStateId:      "configmaps/" + ns + "/legacy",
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					want := map[string]string{
						"placement.clusters.0":           sf,
						"overrides.0.cluster":            sf,
						"overrides.0.patches.0.path":     "/data/k",
						"overrides.0.patches.0.value":    `"x"`,
						"deletion_policy":                "Delete",
						"template":                       `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"labels":{"app":"old"},"name":"legacy","namespace":"` + ns + `"}}`,
						"id":                             "configmaps/" + ns + "/legacy",
						"placed_clusters.0":              sf,
						"overrides.0.patches.0.op":       "",
						"placement.cluster_selector.%":   "",
						"overrides.0.cluster_selector.%": "",
						"overrides.0.patches.#":          "1",
						"overrides.#":                    "1",
						"placement.clusters.#":           "1",
						"cluster_replicas.%":             "",
						"rendered.manifest":              "",
						"placed_clusters.#":              "1",
						"force_conflicts":                "false",
						"type":                           "configmaps",
						"cluster_status.%":               "0",
						"timeouts.create":                "",
						"overrides.0.cluster_selector.match_labels.%": "",
					}
					var imported *terraform.InstanceState
					for _, st := range states {
						if st.ID == "configmaps/"+ns+"/legacy" {
							imported = st
						}
					}
					if imported == nil {
						return fmt.Errorf("no imported object among %d states", len(states))
					}
					for key, value := range want {
						if got := imported.Attributes[key]; got != value {
							return fmt.Errorf("imported %s = %q, want %q", key, got, value)
						}
					}
					return nil
				},
			},
			{
				Config: base + object,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federated_object.imported", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkMemberField(t, "san-francisco", configMapsGVR, ns, "legacy", "x", "data", "k"),
			},
		},
	})
}

// Bad inputs fail the plan, pointing at the attribute; the server-side dry
// run rejects what the member's API would reject.
func TestAccFederatedObject_planErrors(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-errors", uniqueName("fo-errors")
	cleanupObjectTest(t, prefix, ns)
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + `
resource "kubefed_federated_type" "services" {
  target_api_version = "v1"
  target_kind        = "Service"
}
`
	object := func(typ, template, rest string) string {
		return base + fmt.Sprintf(`
resource "kubefed_federated_object" "bad" {
  type     = %s
  template = %s
  %s
}
`, typ, template, rest)
	}
	cm := fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "x", namespace = %q }, data = { a = "b" } })`, ns)
	toSF := `placement = {
    clusters = [kubefed_federation_cluster.sf.name]
  }`
	planError := func(config string, phrases ...string) resource.TestStep {
		return resource.TestStep{Config: config, PlanOnly: true, ExpectError: acctest.ErrorMatching(phrases...)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			planError(object(`"widgets.nowhere.example.com"`, cm, toSF), "Type not enabled", `No FederatedTypeConfig "widgets.nowhere.example.com"`),
			planError(object("kubefed_federated_type.services.name", cm, toSF), "Template does not match the type", "federates v1 Service"),
			planError(object("kubefed_federated_type.configmaps.name", `yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "x" } })`, toSF),
				"Invalid template", "namespace"),
			planError(object("kubefed_federated_type.configmaps.name", `"kind: [unclosed"`, toSF), "Invalid template"),
			planError(object("kubefed_federated_type.configmaps.name", cm, `placement = {
    clusters = ["atlantis"]
  }`), "Invalid placement", "atlantis"),
			planError(object("kubefed_federated_type.configmaps.name", cm, toSF+`
  overrides = [
    {
      cluster = kubefed_federation_cluster.sf.name
      patches = [{ path = "/metadata/name", value = jsonencode("other") }]
    }
  ]`), "Invalid override", "metadata"),
			planError(object("kubefed_federated_type.services.name",
				fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "Service", metadata = { name = "s", namespace = %q }, spec = { ports = [{ port = 99999 }] } })`, ns), toSF),
				`Cluster "`+prefix+`-sf" rejects the object`, "99999"),
			{
				// The dry run cannot tell a namespace the run creates from
				// one nobody federated; apply says which.
				Config: object("kubefed_federated_type.configmaps.name",
					`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "x", namespace = "fo-nowhere" } })`, toSF),
				ExpectError: acctest.ErrorMatching(`cluster "`+prefix+`-sf" (CreationFailed)`, "namespace missing", "federate the namespace first"),
			},
		},
	})
}

// checkGone checks that the object is on none of the members.
func checkGone(t *testing.T, gvr schema.GroupVersionResource, namespace, name string, members ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, member := range members {
			if _, err := memberObject(t, member, gvr, namespace, name); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s: %s %s/%s should be gone, got %w", member, gvr.Resource, namespace, name, err)
			}
		}
		return nil
	}
}

// onlyClusterChanges checks that the planned change of rendered touches one
// cluster alone (none when cluster is empty): the state recorded exactly
// what the others hold.
type onlyClusterChanges struct{ address, cluster string }

func (c onlyClusterChanges) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.address {
			continue
		}
		before, errBefore := renderedTexts(rc.Change.Before.(map[string]any)["rendered"])
		after, errAfter := renderedTexts(rc.Change.After.(map[string]any)["rendered"])
		if err := errors.Join(errBefore, errAfter); err != nil {
			resp.Error = err
			return
		}
		for cluster, value := range after {
			if changed := before[cluster] != value; changed != (cluster == c.cluster) {
				resp.Error = fmt.Errorf("rendered[%s]: changed = %v, want a change on %s alone", cluster, changed, c.cluster)
				return
			}
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.address)
}

// An input known only at apply: placement and rendered objects are planned
// unknown, with a warning, and computed at apply.
func TestAccFederatedObject_unknownInput(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-unknown", uniqueName("fo-unknown")
	cleanupObjectTest(t, prefix, ns)
	config := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "terraform_data" "colour" {
  input = "amber"
}

resource "terraform_data" "test" {
  input = %[2]q
}

resource "kubefed_federated_object" "cm" {
  type     = kubefed_federated_type.configmaps.name
  template = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "late", namespace = %[1]q }, data = { colour = terraform_data.colour.output } })
  placement = {
    clusters = [kubefed_federation_cluster.ny.name]
  }
  overrides = [{ cluster_selector = { match_labels = { fotest = terraform_data.test.output } },
    patches = [{ op = "add", path = "/data/tone", value = jsonencode(terraform_data.colour.output) }] }]
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_replica_scheduling_preference" "late" {
  namespace        = %[1]q
  name             = "late"
  total_replicas   = 4
  cluster_selector = { match_labels = { fotest = terraform_data.test.output } }
  depends_on       = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin]
}
`, ns, prefix)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue("kubefed_federated_object.cm", tfjsonpath.New("rendered")),
					plancheck.ExpectUnknownValue("kubefed_federated_object.cm", tfjsonpath.New("placed_clusters")),
					plancheck.ExpectUnknownValue("kubefed_replica_scheduling_preference.late", tfjsonpath.New("replicas")),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("placed_clusters"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(prefix + "-ny")})),
				statecheck.ExpectKnownValue("kubefed_replica_scheduling_preference.late", tfjsonpath.New("replicas"), knownvalue.MapSizeExact(3)),
			},
			Check: resource.ComposeTestCheckFunc(checkMemberField(t, "new-york", configMapsGVR, ns, "late", "amber", "data", "colour"),
				checkMemberField(t, "new-york", configMapsGVR, ns, "late", "amber", "data", "tone")),
		}},
	})
}

func TestAccFederatedObject_propagationDisabled(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fo-off", uniqueName("fo-off")
	cleanupObjectTest(t, prefix, ns)
	// The type, with propagation off, and the object come in one run.
	typeOnly := acctest.HostProviderConfig(t) + objectTestClusters(t, prefix) + `
resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
  propagation        = "Disabled"
}
`
	config := typeOnly + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type     = kubefed_federated_type.configmaps.name
  template = yamlencode({
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "quiet", namespace = %q }
    data       = { color = "blue" }
  })
  placement = {
    cluster_selector = {}
  }
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin]
}
`, ns)
	host := newHostClients(t)
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("placed_clusters"), knownvalue.SetExact([]knownvalue.Check{})),
			}},
			Check: resource.ComposeTestCheckFunc(
				func(*terraform.State) error {
					if _, err := host.get(federatedCMsGVR, ns, "quiet"); err != nil {
						return fmt.Errorf("the FederatedConfigMap stays in the host: %w", err)
					}
					return nil
				},
				checkMemberAbsent(t, "san-francisco", configMaps, ns, "quiet"),
				checkMemberAbsent(t, "berlin", configMaps, ns, "quiet"),
			),
		}},
	})
}
