package provider_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

var (
	schedulingPreferences = schema.GroupVersionResource{Group: "scheduling.kubefed.io", Version: "v1alpha1", Resource: "replicaschedulingpreferences"}
	deployments           = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// rspConfig registers the three lab members labelled for this test only, so
// that clusters other tests registered are not candidates, enables
// deployments, and schedules 9 replicas of shop/web over them.
func rspConfig(t *testing.T, prefix, namespace, preference string) string {
	label := fmt.Sprintf(`  labels = { rsp-test = %q }`, prefix)
	return acctest.HostProviderConfig(t) +
		memberBlock("sf", prefix+"-sf", "san-francisco", label)(t) +
		memberBlock("ny", prefix+"-ny", "new-york", label)(t) +
		memberBlock("berlin", prefix+"-berlin", "berlin", label)(t) + fmt.Sprintf(`
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = %q
  name           = "web"
  total_replicas = 9
  cluster_selector {
    match_labels = { rsp-test = %q }
  }
%s
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin,
    kubefed_federated_type.deployments]
}
`, namespace, prefix, preference)
}

func replicasOf(prefix string, sf, ny, berlin int64) knownvalue.Check {
	return knownvalue.MapExact(map[string]knownvalue.Check{
		prefix + "-sf":     knownvalue.Int64Exact(sf),
		prefix + "-ny":     knownvalue.Int64Exact(ny),
		prefix + "-berlin": knownvalue.Int64Exact(berlin),
	})
}

// TestAccReplicaSchedulingPreference_failover pins the failover story: 3/3/3,
// berlin down moves its share to the others (5/4 in the hash order of this
// key), and after berlin returns the running replicas stay where they are
// until rebalance is switched on.
func TestAccReplicaSchedulingPreference_failover(t *testing.T) {
	lab := acctest.Lab(t)
	const prefix = "rsp"
	// A fixed namespace: the key namespace/name orders clusters of equal
	// weight, and the counts below are those of this key.
	const namespace = "rsp-failover"
	for _, member := range []string{"san-francisco", "new-york", "berlin"} {
		removeDeployment(t, member, namespace, "web")
		t.Cleanup(func() { removeDeployment(t, member, namespace, "web") })
	}
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, prefix+"-sf", prefix+"-ny", prefix+"-berlin") })
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := lab.Start(ctx, "berlin"); err != nil {
			t.Errorf("restarting berlin: %v", err)
		}
	})
	const rsp = "kubefed_replica_scheduling_preference.web"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: rspConfig(t, prefix, namespace, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("id"), knownvalue.StringExact(namespace+"/web")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 3, 3, 3)),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("unplaced_replicas"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("excluded_clusters"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				},
				Check: checkStoredPreference(host, namespace, 9, false, map[string]any{"*": map[string]any{"minReplicas": int64(0), "weight": int64(1)}}),
			},
			{
				PreConfig: func() { stopMember(t, "berlin") },
				Config:    rspConfig(t, prefix, namespace, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 5, 4, 0)),
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("excluded_clusters"), knownvalue.MapPartial(map[string]knownvalue.Check{
						prefix + "-berlin": knownvalue.StringRegexp(acctest.ErrorMatching("ClusterNotReachable")),
					})),
				}},
				Check: checkStoredReplicas(host, namespace, map[string]int64{prefix + "-sf": 5, prefix + "-ny": 4, prefix + "-berlin": 0}),
			},
			{
				// What the federated Deployment would now run: the failover split.
				PreConfig: func() {
					runDeployment(t, "san-francisco", namespace, "web", 5)
					runDeployment(t, "new-york", namespace, "web", 4)
					startMember(t, "berlin")
				},
				Config: rspConfig(t, prefix, namespace, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					// rebalance = false: the running replicas stay, berlin gets none back.
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 5, 4, 0)),
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("excluded_clusters"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				}},
			},
			{
				Config: rspConfig(t, prefix, namespace, "  rebalance = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 3, 3, 3)),
				}},
				Check: checkStoredPreference(host, namespace, 9, true, nil),
			},
			{
				ResourceName:      rsp,
				ImportState:       true,
				ImportStateId:     namespace + "/web",
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccReplicaSchedulingPreference_weightsCapsAndBalanced(t *testing.T) {
	acctest.Lab(t)
	const prefix = "rspw"
	namespace := uniqueName("rspw")
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, prefix+"-sf", prefix+"-ny", prefix+"-berlin") })
	const rsp = "kubefed_replica_scheduling_preference.web"
	weighted := fmt.Sprintf(`  clusters = {
    "*"           = { weight = 2 }
    %q = { weight = 1, max_replicas = 2 }
  }`, prefix+"-berlin")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: rspConfig(t, prefix, namespace, weighted),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), knownvalue.MapPartial(map[string]knownvalue.Check{
						prefix + "-berlin": knownvalue.Int64Exact(1),
					})),
				},
				Check: checkStoredPreference(host, namespace, 9, false, map[string]any{
					"*":                map[string]any{"minReplicas": int64(0), "weight": int64(2)},
					prefix + "-berlin": map[string]any{"minReplicas": int64(0), "weight": int64(1), "maxReplicas": int64(2)},
				}),
			},
			{
				// Webster gives the light, capped cluster its 2; KubeFed's
				// rounding up left it 1.
				Config: rspConfig(t, prefix, namespace, weighted+"\n  strategy = \"balanced\""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), knownvalue.MapPartial(map[string]knownvalue.Check{
						prefix + "-berlin": knownvalue.Int64Exact(2),
					})),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("unplaced_replicas"), knownvalue.Int64Exact(0)),
				},
			},
			{
				// A max of 1 everywhere leaves 6 of the 9 unplaced, with a warning.
				Config: rspConfig(t, prefix, namespace, `  clusters = { "*" = { weight = 1, max_replicas = 1 } }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 1, 1, 1)),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("unplaced_replicas"), knownvalue.Int64Exact(6)),
				},
			},
			{
				Config:      rspConfig(t, prefix, namespace, fmt.Sprintf(`  clusters = { %q = { min_replicas = 3, max_replicas = 2 } }`, prefix+"-ny")),
				ExpectError: acctest.ErrorMatching(fmt.Sprintf(`preferences["%s-ny"]`, prefix), "greater than max_replicas"),
			},
		},
	})
}

func checkStoredPreference(host hostClients, namespace string, total int64, rebalance bool, clusters map[string]any) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := host.get(schedulingPreferences, namespace, "web")
		if err != nil {
			return fmt.Errorf("ReplicaSchedulingPreference %s/web in the host: %w", namespace, err)
		}
		checks := map[string][2]any{
			"targetKind":                   {nested(obj, "spec", "targetKind"), "FederatedDeployment"},
			"totalReplicas":                {nested(obj, "spec", "totalReplicas"), total},
			"rebalance":                    {nested(obj, "spec", "rebalance"), rebalance},
			"intersectWithClusterSelector": {nested(obj, "spec", "intersectWithClusterSelector"), true},
		}
		if clusters != nil {
			checks["clusters"] = [2]any{nested(obj, "spec", "clusters"), clusters}
		}
		for field, c := range checks {
			if fmt.Sprint(c[0]) != fmt.Sprint(c[1]) {
				return fmt.Errorf("spec.%s is %v, want %v", field, c[0], c[1])
			}
		}
		return nil
	}
}

func checkStoredReplicas(host hostClients, namespace string, want map[string]int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := host.get(schedulingPreferences, namespace, "web")
		if err != nil {
			return err
		}
		got, _, _ := unstructured.NestedMap(obj.Object, "status", "replicas")
		if fmt.Sprint(got) != fmt.Sprint(map[string]any{}) && len(got) != len(want) {
			return fmt.Errorf("status.replicas is %v, want %v", got, want)
		}
		for name, n := range want {
			if got[name] != n {
				return fmt.Errorf("status.replicas[%s] is %v, want %d", name, got[name], n)
			}
		}
		return nil
	}
}

func stopMember(t *testing.T, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := acctest.Lab(t).Stop(ctx, name); err != nil {
		t.Fatalf("stopping %s: %v", name, err)
	}
}

func startMember(t *testing.T, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := acctest.Lab(t).Start(ctx, name); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
}

// runDeployment puts a Deployment with the given replicas straight onto a
// member, as if the federation had pushed it there.
func runDeployment(t *testing.T, member, namespace, name string, replicas int64) {
	t.Helper()
	client := memberClient(t, member)
	ctx := context.Background()
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": namespace},
	}}
	_, err := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("namespace %s on %s: %v", namespace, member, err)
	}
	labels := map[string]any{"app": name}
	deployment := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": name, "image": "nginx:1.27"}}},
			},
		},
	}}
	if _, err := client.Resource(deployments).Namespace(namespace).Create(ctx, deployment, metav1.CreateOptions{}); err != nil {
		t.Fatalf("deployment %s/%s on %s: %v", namespace, name, member, err)
	}
}

func removeDeployment(t *testing.T, member, namespace, name string) {
	t.Helper()
	err := memberClient(t, member).Resource(deployments).Namespace(namespace).Delete(context.Background(), name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("removing deployment %s/%s from %s: %v", namespace, name, member, err)
	}
}

func TestAccReplicaSchedulingPreference_unreachableHostPlansUnknown(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			// Port 1 on loopback: nothing listens, so the host cannot be read.
			Config: inlineProvider(t, "https://127.0.0.1:1", "token", string(acctest.Lab(t).Host().CAPEM)) + `
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = "shop"
  name           = "web"
  total_replicas = 9
}
`,
			// The plan goes through with the split unknown; only the apply,
			// which must write to the host, fails.
			ExpectError: acctest.ErrorMatching("cannot reach the API server at https://127.0.0.1:1"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("kubefed_replica_scheduling_preference.web", tfjsonpath.New("replicas")),
				plancheck.ExpectKnownValue("kubefed_replica_scheduling_preference.web", tfjsonpath.New("id"), knownvalue.StringExact("shop/web")),
			}},
		}},
	})
}

func TestAccReplicaSchedulingPreference_badPreferencesFailThePlan(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.HostProviderConfig(t) + `
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = "shop"
  name           = "web"
  total_replicas = 9
  clusters       = { berlin = { min_replicas = -1 } }
}
`,
			PlanOnly:    true,
			ExpectError: acctest.ErrorMatching(`preferences["berlin"]`, "min_replicas"),
		}},
	})
}

// A preference written by KubeFed itself: no annotations, no status, and
// intersectWithClusterSelector pointing at the FederatedDeployment's selector.
func TestAccReplicaSchedulingPreference_importKubeFedObject(t *testing.T) {
	acctest.Lab(t)
	host := newHostClients(t)
	namespace := uniqueName("rsp-import")
	types := acctest.HostProviderConfig(t) + `
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}
`
	const rsp = "kubefed_replica_scheduling_preference.web"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: types},
			{
				PreConfig: func() { writeKubeFedPreference(t, host, namespace) },
				Config: types + fmt.Sprintf(`
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = %q
  name           = "web"
  total_replicas = 10
  rebalance      = true
  clusters = {
    cluster1 = { weight = 2 }
    cluster2 = { weight = 3 }
  }
  cluster_selector {
    match_labels = { region = "eu" }
  }
}
`, namespace),
				// OpenTofu's init in the fresh directory of an import step
				// looks for the provider in its registry, which is out of
				// reach here; Terraform 1.5 runs this step.
				SkipFunc:      skipOnOpenTofu,
				ResourceName:  rsp,
				ImportState:   true,
				ImportStateId: namespace + "/web",
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 {
						return fmt.Errorf("imported %d instances", len(states))
					}
					want := map[string]string{
						"total_replicas":                       "10",
						"rebalance":                            "true",
						"target_kind":                          "FederatedDeployment",
						"strategy":                             "kubefed",
						"clusters.cluster1.weight":             "2",
						"clusters.cluster2.weight":             "3",
						"clusters.cluster2.min_replicas":       "0",
						"cluster_selector.match_labels.region": "eu",
					}
					for key, value := range want {
						if got := states[0].Attributes[key]; got != value {
							return fmt.Errorf("%s is %q, want %q", key, got, value)
						}
					}
					return nil
				},
			},
			{
				// What KubeFed wrote goes, so that the type can be destroyed.
				PreConfig: func() { removeKubeFedPreference(t, host, namespace) },
				Config:    types,
			},
		},
	})
}

func removeKubeFedPreference(t *testing.T, host hostClients, namespace string) {
	t.Helper()
	ctx := context.Background()
	gvr := schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federateddeployments"}
	for _, r := range []schema.GroupVersionResource{gvr, schedulingPreferences} {
		if err := host.dynamic.Resource(r).Namespace(namespace).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("removing %s %s/web: %v", r.Resource, namespace, err)
		}
	}
}

func writeKubeFedPreference(t *testing.T, host hostClients, namespace string) {
	t.Helper()
	ctx := context.Background()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": namespace}}}
	if _, err := host.dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	federatedDeployment := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "types.kubefed.io/v1beta1", "kind": "FederatedDeployment",
		"metadata": map[string]any{"name": "web", "namespace": namespace},
		"spec": map[string]any{
			"template":  map[string]any{"spec": map[string]any{"replicas": int64(3)}},
			"placement": map[string]any{"clusterSelector": map[string]any{"matchLabels": map[string]any{"region": "eu"}}},
		},
	}}
	gvr := schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federateddeployments"}
	if _, err := host.dynamic.Resource(gvr).Namespace(namespace).Create(ctx, federatedDeployment, metav1.CreateOptions{}); err != nil {
		t.Fatalf("FederatedDeployment: %v", err)
	}
	t.Cleanup(func() {
		_ = host.dynamic.Resource(gvr).Namespace(namespace).Delete(context.Background(), "web", metav1.DeleteOptions{})
	})
	preference := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.kubefed.io/v1alpha1", "kind": "ReplicaSchedulingPreference",
		"metadata": map[string]any{"name": "web", "namespace": namespace},
		"spec": map[string]any{
			"targetKind": "FederatedDeployment", "totalReplicas": int64(10), "rebalance": true, "intersectWithClusterSelector": true,
			"clusters": map[string]any{"cluster1": map[string]any{"weight": int64(2)}, "cluster2": map[string]any{"weight": int64(3)}},
		},
	}}
	if _, err := host.dynamic.Resource(schedulingPreferences).Namespace(namespace).Create(ctx, preference, metav1.CreateOptions{}); err != nil {
		t.Fatalf("ReplicaSchedulingPreference: %v", err)
	}
	t.Cleanup(func() { removeKubeFedPreference(t, host, namespace) })
}

func skipOnOpenTofu() (bool, error) {
	return strings.Contains(filepath.Base(os.Getenv("TF_ACC_TERRAFORM_PATH")), "tofu"), nil
}
