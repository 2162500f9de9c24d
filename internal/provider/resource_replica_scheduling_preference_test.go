package provider_test

import (
	"context"
	"fmt"
	"regexp"
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
  cluster_selector = {
    match_labels = { rsp-test = %q }
  }
%s
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin,
    kubefed_federated_type.deployments]
}
`, namespace, prefix, preference)
}

// The failover test's names. The namespace is fixed: the key
// namespace/name orders clusters of equal weight, and the test's counts are
// those of this key.
const failoverPrefix = "rsp"

// failoverNamespace is the failover tests' namespace. Its name is fixed:
// the split's order among equal shares follows the preference's key.
const failoverNamespace = "rsp-failover"

// failoverConfig is rspConfig with the Deployment the preference schedules,
// federated with cluster_replicas from it, in a namespace federated to the
// test's clusters (orphaned on destroy, and so adopted by the next run,
// which reuses its name).
func failoverConfig(t *testing.T, preference string) string {
	prefix, namespace := failoverPrefix, failoverNamespace
	return rspConfig(t, prefix, namespace, preference) + fmt.Sprintf(`
resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}

resource "kubefed_federated_object" "ns" {
  type            = kubefed_federated_type.namespaces.name
  template        = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %[1]q } })
  deletion_policy = "Orphan"
  adopt           = true
  placement = {
    cluster_selector = {
      match_labels = { rsp-test = %[2]q }
    }
  }
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin]
}

resource "kubefed_federated_object" "web" {
  type = kubefed_federated_type.deployments.name
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = %[1]q }
    spec = {
      selector = { matchLabels = { app = "web" } }
      template = {
        metadata = { labels = { app = "web" } }
        spec     = { containers = [{ name = "web", image = "nginx:1.27" }] }
      }
    }
  })
  cluster_replicas = kubefed_replica_scheduling_preference.web.replicas
  depends_on       = [kubefed_federated_object.ns]
}
`, namespace, prefix)
}

func replicasOf(prefix string, sf, ny, berlin int64) knownvalue.Check {
	return knownvalue.MapExact(map[string]knownvalue.Check{
		prefix + "-sf":     knownvalue.Int64Exact(sf),
		prefix + "-ny":     knownvalue.Int64Exact(ny),
		prefix + "-berlin": knownvalue.Int64Exact(berlin),
	})
}

// memberReplicas checks spec.replicas of the Deployment on each member.
func memberReplicas(t *testing.T, namespace string, sf, ny, berlin int64) resource.TestCheckFunc {
	return resource.ComposeTestCheckFunc(
		checkMemberField(t, "san-francisco", deploymentsGVR, namespace, "web", sf, "spec", "replicas"),
		checkMemberField(t, "new-york", deploymentsGVR, namespace, "web", ny, "spec", "replicas"),
		checkMemberField(t, "berlin", deploymentsGVR, namespace, "web", berlin, "spec", "replicas"),
	)
}

// TestAccReplicaSchedulingPreference_failover pins the failover story end to
// end: 9 replicas run 3/3/3; berlin goes down, and the next plan gives its
// share to the others (5/4 in the hash order of this key) while the
// Deployment on berlin is frozen, and the apply succeeds; berlin comes back,
// and with rebalance = false the running replicas stay where they are, so
// berlin is scaled to 0; rebalance = true spreads them 3/3/3 again.
func TestAccReplicaSchedulingPreference_failover(t *testing.T) {
	lab := acctest.Lab(t)
	prefix, namespace := failoverPrefix, failoverNamespace
	for _, member := range []string{"san-francisco", "new-york", "berlin"} {
		removeDeployment(t, member, namespace)
	}
	host := newHostClients(t)
	cleanupObjectTest(t, prefix, namespace)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := lab.Start(ctx, "berlin"); err != nil {
			t.Errorf("restarting berlin: %v", err)
		}
	})
	const rsp = "kubefed_replica_scheduling_preference.web"
	const web = "kubefed_federated_object.web"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: failoverConfig(t, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("id"), knownvalue.StringExact(namespace+"/web")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 3, 3, 3)),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("unplaced_replicas"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("excluded_clusters"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				},
				Check: resource.ComposeTestCheckFunc(
					checkStoredPreference(host, namespace, 9, false, map[string]any{"*": map[string]any{"minReplicas": int64(0), "weight": int64(1)}}),
					memberReplicas(t, namespace, 3, 3, 3),
				),
			},
			{
				PreConfig: func() { stopMember(t, "berlin") },
				Config:    failoverConfig(t, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 5, 4, 0)),
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("excluded_clusters"), knownvalue.MapPartial(map[string]knownvalue.Check{
						prefix + "-berlin": knownvalue.StringRegexp(acctest.ErrorMatching("ClusterNotReachable")),
					})),
					// Berlin's object is frozen: it keeps what berlin holds.
					expectRendered(web, false, map[string]knownvalue.Check{prefix + "-berlin": knownvalue.StringRegexp(regexp.MustCompile(`"replicas":3[,}]`))}),
					expectRendered(web, false, map[string]knownvalue.Check{prefix + "-sf": knownvalue.StringRegexp(regexp.MustCompile(`"replicas":5[,}]`))}),
				}},
				Check: resource.ComposeTestCheckFunc(
					checkStoredReplicas(host, namespace, map[string]int64{prefix + "-sf": 5, prefix + "-ny": 4, prefix + "-berlin": 0}),
					checkMemberField(t, "san-francisco", deploymentsGVR, namespace, "web", 5, "spec", "replicas"),
					checkMemberField(t, "new-york", deploymentsGVR, namespace, "web", 4, "spec", "replicas"),
				),
			},
			{
				PreConfig: func() { startMember(t, "berlin") },
				Config:    failoverConfig(t, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					// rebalance = false: the running replicas stay, berlin gets none back.
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 5, 4, 0)),
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("excluded_clusters"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				}},
				Check: memberReplicas(t, namespace, 5, 4, 0),
			},
			{
				Config: failoverConfig(t, "  rebalance = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 3, 3, 3)),
				}},
				Check: resource.ComposeTestCheckFunc(
					checkStoredPreference(host, namespace, 9, true, nil),
					memberReplicas(t, namespace, 3, 3, 3),
				),
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
				Config:      rspConfig(t, prefix, namespace, fmt.Sprintf(`  clusters = { %q = { min_replicas = 3, max_replicas = 2 } }`, prefix+"-ny")),
				ExpectError: acctest.ErrorMatching(fmt.Sprintf(`preferences["%s-ny"]`, prefix), "greater than max_replicas"),
			},
			{
				// A max of 1 everywhere leaves 6 of the 9 unplaced, with a warning.
				Config: rspConfig(t, prefix, namespace, `  clusters = { "*" = { weight = 1, max_replicas = 1 } }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), replicasOf(prefix, 1, 1, 1)),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("unplaced_replicas"), knownvalue.Int64Exact(6)),
				},
			},
		},
	})
}

// A preference imported into a fresh state with the configuration it was
// created with plans nothing, however its clusters are spelt: every field the
// host's object records is read back.
func TestAccReplicaSchedulingPreference_importIntoFreshState(t *testing.T) {
	acctest.Lab(t)
	const prefix = "rspf"
	namespace := uniqueName("rspf")
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, prefix+"-sf", prefix+"-ny", prefix+"-berlin") })
	const rsp = "kubefed_replica_scheduling_preference.web"
	preferences := []string{
		`  clusters = { "*" = { weight = 1 } }`,
		fmt.Sprintf(`  rebalance = true
  strategy  = "balanced"
  clusters = {
    "*" = { weight = 2, max_replicas = 4 }
    %q  = { min_replicas = 1, weight = 1 }
  }`, prefix+"-berlin"),
		// No clusters at all stands for {"*" = {weight = 1}}.
		"",
	}
	var steps []resource.TestStep
	for _, preference := range preferences {
		config := rspConfig(t, prefix, namespace, preference)
		steps = append(steps,
			resource.TestStep{Config: config},
			resource.TestStep{
				// Import steps' configurations are written as given, so they
				// name the provider's source.
				Config:            providerSource + config,
				ResourceName:      rsp,
				ImportState:       true,
				ImportStateId:     namespace + "/web",
				ImportStateVerify: true,
			},
			resource.TestStep{
				Config:           providerSource + config,
				ResourceName:     rsp,
				ImportState:      true,
				ImportStateKind:  resource.ImportBlockWithID,
				ImportStateId:    namespace + "/web",
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		)
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: protoV6ProviderFactories, Steps: steps})
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

// removeDeployment removes the Deployment "web" that the preference tests
// federate, as a test that failed may leave it.
func removeDeployment(t *testing.T, member, namespace string) {
	t.Helper()
	const name = "web"
	err := memberClient(t, member).Resource(deploymentsGVR).Namespace(namespace).Delete(context.Background(), name, metav1.DeleteOptions{})
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
				// As written, so it names the provider's source.
				Config: providerSource + types + fmt.Sprintf(`
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = %q
  name           = "web"
  total_replicas = 10
  rebalance      = true
  clusters = {
    cluster1 = { weight = 2 }
    cluster2 = { weight = 3 }
  }
  cluster_selector = {
    match_labels = { region = "eu" }
  }
}
`, namespace),
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
