package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

var (
	admissionPolicies = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}
	policyBindings    = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"}
)

// hostRefuses installs, in the host, an admission policy that refuses
// creates and updates of one resource whose name is probe's, and waits
// until the API server enforces it. remove takes it away again.
func hostRefuses(t *testing.T, gvr schema.GroupVersionResource, probe *unstructured.Unstructured) (remove func()) {
	t.Helper()
	name := probe.GetName()
	host := newHostClients(t)
	policy := "refuse-" + gvr.Resource + "-" + name
	objects := []*unstructured.Unstructured{
		{Object: map[string]any{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
			"metadata": map[string]any{"name": policy},
			"spec": map[string]any{
				"failurePolicy": "Fail",
				"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{
					"apiGroups": []any{gvr.Group}, "apiVersions": []any{"*"}, "operations": []any{"CREATE", "UPDATE"},
					"resources": []any{gvr.Resource},
				}}},
				"validations": []any{map[string]any{
					"expression": fmt.Sprintf("object.metadata.name != %q", name),
					"message":    "this test's host refuses the write",
				}},
			},
		}},
		{Object: map[string]any{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
			"metadata": map[string]any{"name": policy},
			"spec":     map[string]any{"policyName": policy, "validationActions": []any{"Deny"}},
		}},
	}
	ctx := context.Background()
	for i, obj := range objects {
		gvr := []schema.GroupVersionResource{admissionPolicies, policyBindings}[i]
		if _, err := host.dynamic.Resource(gvr).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	remove = func() {
		for _, gvr := range []schema.GroupVersionResource{policyBindings, admissionPolicies} {
			if err := host.dynamic.Resource(gvr).Delete(ctx, policy, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Error(err)
			}
		}
		// The API server drops a policy a moment after it is deleted.
		time.Sleep(2 * time.Second)
	}
	t.Cleanup(remove)
	waitEnforced(t, gvr, probe)
	return remove
}

// waitEnforced waits until the policy is in force: the API server loads
// policies a moment after they are written. A dry run of probe, an object
// the policy refuses, tells.
func waitEnforced(t *testing.T, gvr schema.GroupVersionResource, probe *unstructured.Unstructured) {
	t.Helper()
	client := newHostClients(t).dynamic.Resource(gvr).Namespace(probe.GetNamespace())
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = client.Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last != nil && strings.Contains(last.Error(), "this test's host refuses the write"), nil
	})
	if err != nil {
		t.Fatalf("the admission policy is not in force: %v (last dry run: %v)", err, last)
	}
}

// The host refuses the write of the Federated<Kind> after the members took
// the update: the state records what the members hold, the next refresh
// sees that the host was left behind, and the plan shows the change.
func TestAccReliability_hostLeftBehind(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "rel-host", uniqueName("rel-host")
	cleanupObjectTest(t, prefix, ns)
	config := func(color string) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "behind", namespace = %q }, data = { color = %q } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns, color)
	}
	var remove func()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("blue")},
			{
				PreConfig: func() {
					remove = hostRefuses(t, federatedCMsGVR, &unstructured.Unstructured{Object: map[string]any{
						"apiVersion": "types.kubefed.io/v1beta1", "kind": "FederatedConfigMap",
						"metadata": map[string]any{"name": "behind", "namespace": ns}, "spec": map[string]any{},
					}})
				},
				Config:      config("green"),
				ExpectError: acctest.ErrorMatching("Cannot write the federated object to the host", "this test's host refuses the write"),
				Check:       checkMemberField(t, "new-york", configMapsGVR, ns, "behind", "green", "data", "color"),
			},
			{
				PreConfig: func() { remove() },
				Config:    config("green"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkHostTemplate(t, ns, "behind", "green"),
					checkMemberField(t, "san-francisco", configMapsGVR, ns, "behind", "green", "data", "color"),
				),
			},
		},
	})
}

func checkHostTemplate(t *testing.T, ns, name, color string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := newHostClients(t).get(federatedCMsGVR, ns, name)
		if err != nil {
			return err
		}
		if got := nested(obj, "spec", "template", "data", "color"); got != color {
			return fmt.Errorf("the host's FederatedConfigMap has color %v, want %s", got, color)
		}
		return nil
	}
}

// A member down while the object is destroyed: the destroy fails naming it,
// the state keeps the object, and once the member is back the next apply
// removes what is left.
func TestAccReliability_memberDownDuringDestroy(t *testing.T) {
	lab := acctest.Lab(t)
	prefix, ns := "rel-destroy", uniqueName("rel-destroy")
	cleanupObjectTest(t, prefix, ns)
	restartAfterTest(t, "berlin")
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns)
	object := fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "going", namespace = %q }, data = { a = "b" } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.berlin.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base + object},
			{
				PreConfig: func() {
					if err := lab.Stop(context.Background(), "berlin"); err != nil {
						t.Fatal(err)
					}
				},
				Config:      base,
				ExpectError: acctest.ErrorMatching("Cannot remove configmaps "+ns+"/going from every cluster", prefix+"-berlin"),
				Check:       checkMemberAbsent(t, "san-francisco", configMapsGVR, ns, "going"),
			},
			{
				PreConfig: func() {
					if err := lab.Start(context.Background(), "berlin"); err != nil {
						t.Fatal(err)
					}
				},
				Config: base,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionDestroy)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkMemberAbsent(t, "berlin", configMapsGVR, ns, "going"),
					checkMemberAbsent(t, "san-francisco", configMapsGVR, ns, "going"),
				),
			},
		},
	})
}

// A type that nothing enables is a plan-time error, and enabling it makes
// the same configuration work: nothing wedges.
func TestAccReliability_typeNotEnabled(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "rel-type", uniqueName("rel-type")
	cleanupObjectTest(t, prefix, ns)
	base := acctest.HostProviderConfig(t) + objectTestClusters(t, prefix) + `
resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}
` + federatedNamespace(ns)
	object := func(typ string) string {
		return fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type       = %s
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "typed", namespace = %q } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, typ, ns)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				Config:      base + object(`"configmaps"`),
				ExpectError: acctest.ErrorMatching("Type not enabled", `No FederatedTypeConfig "configmaps"`, "kubefed_federated_type.x.name"),
			},
			{
				Config: base + objectTestTypes[strings.Index(objectTestTypes, `resource "kubefed_federated_type" "configmaps"`):strings.Index(objectTestTypes, `resource "kubefed_federated_type" "namespaces"`)] +
					object("kubefed_federated_type.configmaps.name"),
				Check: checkMemberField(t, "san-francisco", configMapsGVR, ns, "typed", "true", "metadata", "labels", "kubefed.io/managed"),
			},
		},
	})
}

// A registration the host refuses leaves no credential Secret behind.
func TestAccReliability_refusedRegistrationLeavesNothing(t *testing.T) {
	acctest.Lab(t)
	host := newHostClients(t)
	name := "rel-refused"
	t.Cleanup(func() { deleteClusters(t, host, name) })
	if err := someoneElsesRegistry(t).Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	hostRefuses(t, kubeFedClusters, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.kubefed.io/v1beta1", "kind": "KubeFedCluster",
		"metadata": map[string]any{"name": name, "namespace": federationNamespace},
		"spec":     map[string]any{"apiEndpoint": "https://127.0.0.1:1", "secretRef": map[string]any{"name": name + "-credentials"}},
	}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      acctest.HostProviderConfig(t) + memberBlock("x", name, "berlin", "")(t),
			ExpectError: acctest.ErrorMatching("Cannot write the cluster to the host", "this test's host refuses the write"),
			Check: func(*terraform.State) error {
				_, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), name+"-credentials", metav1.GetOptions{})
				if !apierrors.IsNotFound(err) {
					return fmt.Errorf("the refused registration left its Secret: %w", err)
				}
				return nil
			},
		}},
	})
	if _, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), name+"-credentials", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused registration left its Secret (token included): %v", err)
	}
}

// A registration whose credentials are gone (its Secret deleted in the
// host) makes the probe's requests anonymous, which most clusters answer on
// /healthz: the probe must say the credentials were not taken.
func TestAccReliability_anonymousCredentialsAreNotReady(t *testing.T) {
	acctest.Lab(t)
	host := newHostClients(t)
	name := "rel-anon"
	t.Cleanup(func() { deleteClusters(t, host, name) })
	config := acctest.HostProviderConfig(t) + memberBlock("x", name, "berlin", "  require_ready = false")(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  resource.TestCheckResourceAttr("kubefed_federation_cluster.x", "ready", "true"),
			},
			{
				PreConfig: func() {
					err := host.kube.CoreV1().Secrets(federationNamespace).Delete(context.Background(), name+"-credentials", metav1.DeleteOptions{})
					if err != nil {
						t.Fatal(err)
					}
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// The refresh of the plan above probed without credentials
				// and recorded what it found; the apply writes the token
				// again.
				PreConfig: func() {
					obj, err := host.get(kubeFedClusters, federationNamespace, name)
					if err != nil {
						t.Fatal(err)
					}
					conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
					for _, c := range conditions {
						c := c.(map[string]any)
						if c["type"] == "Ready" && (c["status"] != "False" || c["reason"] != "ClusterAuthenticationFailed" ||
							!strings.Contains(fmt.Sprint(c["message"]), "anonymous")) {
							t.Errorf("probe without credentials recorded %v, want not ready, ClusterAuthenticationFailed, anonymous", c)
						}
					}
				},
				Config: config,
				Check:  resource.TestCheckResourceAttr("kubefed_federation_cluster.x", "ready", "true"),
			},
		},
	})
}

// A value the member cannot even decode into the object's type fails the
// plan for that cluster, naming the field, rather than passing as "could
// not validate".
func TestAccReliability_dryRunTypeErrorFailsThePlan(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "rel-dry", uniqueName("rel-dry")
	cleanupObjectTest(t, prefix, ns)
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + `
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				Config: base + fmt.Sprintf(`
resource "kubefed_federated_object" "web" {
  type = kubefed_federated_type.deployments.name
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = %q }
    spec = {
      replicas = "three"
      selector = { matchLabels = { app = "web" } }
      template = { metadata = { labels = { app = "web" } }, spec = { containers = [{ name = "web", image = "nginx:1.27" }] } }
    }
  })
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching(fmt.Sprintf("Cluster %q rejects the object", prefix+"-sf"), ".spec.replicas"),
			},
		},
	})
}
