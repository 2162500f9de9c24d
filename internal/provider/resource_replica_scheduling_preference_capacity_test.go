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
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
)

// capacityClusters registers the three lab members under the prefix,
// labelled by region and by the test.
func capacityClusters(t *testing.T, prefix string) string {
	labels := func(region string) string {
		return fmt.Sprintf(`  labels = { region = %q, rsp-test = %q }`, region, prefix)
	}
	return acctest.HostProviderConfig(t) +
		memberBlock("sf", prefix+"-sf", "san-francisco", labels("us-west"))(t) +
		memberBlock("ny", prefix+"-ny", "new-york", labels("us-east"))(t) +
		memberBlock("berlin", prefix+"-berlin", "berlin", labels("eu-central"))(t) + `
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}
`
}

// capacityConfig is capacityClusters with, when preference is not empty, a
// preference that estimates capacity from the Deployment's template (one
// cpu a replica) and the Deployment federated with its split, in a
// namespace federated to the test's clusters (orphaned on destroy, so that
// a run after this one finds it in place).
func capacityConfig(t *testing.T, prefix, namespace, preference string) string {
	config := capacityClusters(t, prefix) + fmt.Sprintf(`
resource "kubefed_federated_object" "ns" {
  type            = kubefed_federated_type.namespaces.name
  template        = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %[1]q } })
  deletion_policy = "Orphan"
  placement       = { cluster_selector = { match_labels = { rsp-test = %[2]q } } }
  depends_on      = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin]
}
`, namespace, prefix)
	if preference == "" {
		return config
	}
	return config + fmt.Sprintf(`
locals {
  web = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = %[1]q }
    spec = {
      selector = { matchLabels = { app = "web" } }
      template = {
        metadata = { labels = { app = "web" } }
        spec = {
          terminationGracePeriodSeconds = 0
          containers = [{ name = "web", image = "nginx:1.27", resources = { requests = { cpu = "1", memory = "64Mi" } } }]
        }
      }
    }
  })
}

resource "kubefed_replica_scheduling_preference" "web" {
  namespace        = %[1]q
  name             = "web"
  capacity         = "auto"
  template         = local.web
  cluster_selector = { match_labels = { rsp-test = %[2]q } }
%[3]s
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin,
    kubefed_federated_type.deployments]
}

resource "kubefed_federated_object" "web" {
  type             = kubefed_federated_type.deployments.name
  template         = local.web
  cluster_replicas = kubefed_replica_scheduling_preference.web.replicas
  depends_on       = [kubefed_federated_object.ns]
}
`, namespace, prefix, preference)
}

// byCluster is a map check of the test's three clusters.
func byCluster(prefix string, sf, ny, berlin int64) knownvalue.Check {
	return replicasOf(prefix, sf, ny, berlin)
}

// allReady waits until the Deployment on each member is at its count, every
// replica Ready.
func allReady(t *testing.T, namespace string, sf, ny, berlin int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		want := map[string]int64{"san-francisco": sf, "new-york": ny, "berlin": berlin}
		deadline := time.Now().Add(2 * time.Minute)
		for {
			var pending []string
			for member, n := range want {
				obj, err := memberObject(t, member, deploymentsGVR, namespace, "web")
				if err != nil {
					return fmt.Errorf("web on %s: %w", member, err)
				}
				replicas, ready := nested(obj, "spec", "replicas"), nested(obj, "status", "readyReplicas")
				if fmt.Sprint(replicas) != fmt.Sprint(n) || (n > 0 && fmt.Sprint(ready) != fmt.Sprint(n)) {
					pending = append(pending, fmt.Sprintf("%s: %v of %v ready, want %d", member, ready, replicas, n))
				}
			}
			if len(pending) == 0 {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("web not rolled out: %s", strings.Join(pending, "; "))
			}
			time.Sleep(time.Second)
		}
	}
}

// between runs fn after the plan's checks and before the apply, as when
// the members change while a plan waits to be applied.
type between func()

func (b between) CheckPlan(context.Context, plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse) {
	b()
}

// TestAccReplicaSchedulingPreference_capacity pins capacity end to end on
// members that run what they are given: 12 replicas of one cpu each, equal
// weights, over members of 12, 12 and 2 cpus, give 5/5/2 and all run; a node
// added while an apply waits does not change what that apply does; the next
// plan sees it and moves replicas; pods of another workload that push the
// Deployment's out of berlin leave them Pending, and once they have been for
// longer than unschedulable_after the next plan caps berlin again.
func TestAccReplicaSchedulingPreference_capacity(t *testing.T) {
	l := acctest.Lab(t)
	// A namespace of its own each run: the destroy keeps one that holds the
	// filler, which the federation does not manage.
	prefix, namespace := "rspc", uniqueName("rsp-capacity")
	for _, member := range []string{"san-francisco", "new-york", "berlin"} {
		removeDeployment(t, member, namespace)
	}
	cleanupObjectTest(t, prefix, namespace)
	berlin := labClientset(t, "berlin")
	t.Cleanup(func() { removeFiller(t, berlin); removeNode(t, l, "berlin", "rspc-berlin-2") })
	const rsp = "kubefed_replica_scheduling_preference.web"
	preference := func(total int) string {
		return fmt.Sprintf("  total_replicas = %d\n  rebalance = true\n  unschedulable_after = \"5s\"", total)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			// Clusters registered first: a cluster registered in the same
			// run has no capacity to read before it is.
			{Config: capacityConfig(t, prefix, namespace, "")},
			{
				Config: capacityConfig(t, prefix, namespace, preference(12)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("estimated_capacity"), byCluster(prefix, 12, 12, 2)),
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 5, 5, 2)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("unplaced_replicas"), knownvalue.Int64Exact(0)),
				},
				Check: allReady(t, namespace, 5, 5, 2),
			},
			{
				// The node comes between plan and apply: the apply keeps the
				// plan's split, and only the next plan sees the node.
				Config: capacityConfig(t, prefix, namespace, preference(14)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 6, 6, 2)),
					between(func() { addNode(t, l, "berlin", "rspc-berlin-2", "4") }),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 6, 6, 2)),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("estimated_capacity"), byCluster(prefix, 12, 12, 2)),
				},
				Check:              allReady(t, namespace, 6, 6, 2),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: capacityConfig(t, prefix, namespace, preference(12)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("estimated_capacity"), byCluster(prefix, 12, 12, 6)),
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 4, 4, 4)),
				}},
				Check: allReady(t, namespace, 4, 4, 4),
			},
			{
				PreConfig: func() { fillBerlin(t, berlin, namespace) },
				Config:    capacityConfig(t, prefix, namespace, preference(12)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("estimated_capacity"), byCluster(prefix, 12, 12, 2)),
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 5, 5, 2)),
				}},
				Check: allReady(t, namespace, 5, 5, 2),
			},
		},
	})
}

func labClientset(t *testing.T, member string) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(acctest.Lab(t).Cluster(member).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// addNode adds a node of the given cpus to a member and waits until it is
// Ready.
func addNode(t *testing.T, l *lab.Lab, member, name, cpu string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := l.AddNode(ctx, member, lab.Node{Name: name, CPU: kresource.MustParse(cpu), Memory: kresource.MustParse("16Gi")}); err != nil {
		t.Fatalf("adding node %s to %s: %v", name, member, err)
	}
	for ctx.Err() == nil {
		nodes, err := l.Nodes(ctx, member)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if n.Name == name && n.Ready {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("node %s of %s did not become Ready", name, member)
}

func removeNode(t *testing.T, l *lab.Lab, member, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nodes, err := l.Nodes(ctx, member)
	if err != nil {
		t.Errorf("listing the nodes of %s: %v", member, err)
		return
	}
	for _, n := range nodes {
		if n.Name == name {
			if err := l.RemoveNode(ctx, member, name); err != nil {
				t.Errorf("removing node %s of %s: %v", name, member, err)
			}
		}
	}
}

const fillerPriority, fillerName = "rsp-capacity-filler", "rsp-capacity-filler"

// fillBerlin runs a pod of another workload, of a higher priority, that
// takes the whole of berlin's second node: the scheduler evicts the
// Deployment's pods there, and their replacements stay Pending. It returns
// once two of them have been Unschedulable for longer than the
// preference's unschedulable_after.
func fillBerlin(t *testing.T, cs kubernetes.Interface, namespace string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: fillerPriority}, Value: 1000000}
	if _, err := cs.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("priority class: %v", err)
	}
	grace := int64(0)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fillerName, Namespace: "default"},
		Spec: corev1.PodSpec{
			PriorityClassName:             fillerPriority,
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{Name: "filler", Image: "busybox", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: kresource.MustParse("4")}}}},
		},
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("filler pod: %v", err)
	}
	for ctx.Err() == nil {
		if stuckPods(ctx, t, cs, namespace, 6*time.Second) >= 2 {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatal("the Deployment's pods on berlin did not become Unschedulable")
}

func stuckPods(ctx context.Context, t *testing.T, cs kubernetes.Interface, namespace string, longer time.Duration) int {
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable &&
				time.Since(c.LastTransitionTime.Time) > longer {
				n++
			}
		}
	}
	return n
}

func removeFiller(t *testing.T, cs kubernetes.Interface) {
	ctx := context.Background()
	if err := cs.CoreV1().Pods("default").Delete(ctx, fillerName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("removing the filler pod: %v", err)
	}
	if err := cs.SchedulingV1().PriorityClasses().Delete(ctx, fillerPriority, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("removing the filler's priority class: %v", err)
	}
}

// TestAccReplicaSchedulingPreference_spreadAndMaxClusters: 3 replicas
// weighted 10/9/1 leave berlin out (unequal weights: equal ones would rank
// by a hash of the namespace, which is new each run); a spread over the three regions puts
// one on each; max_clusters = 2 with equal weights keeps the two clusters
// with the most room and says why berlin is left out; a spread by a label
// no cluster has fails the plan at spread.by_label.
func TestAccReplicaSchedulingPreference_spreadAndMaxClusters(t *testing.T) {
	acctest.Lab(t)
	// A namespace of its own each run: the destroy keeps one that holds the
	// filler, which the federation does not manage.
	prefix, namespace := "rsps", uniqueName("rsp-spread")
	for _, member := range []string{"san-francisco", "new-york", "berlin"} {
		removeDeployment(t, member, namespace)
	}
	cleanupObjectTest(t, prefix, namespace)
	const rsp = "kubefed_replica_scheduling_preference.web"
	weighted := fmt.Sprintf(`  total_replicas = 3
  rebalance      = true
  clusters = {
    %q = { weight = 10 }
    %q = { weight = 9 }
    %q = { weight = 1 }
  }`, prefix+"-sf", prefix+"-ny", prefix+"-berlin")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: capacityConfig(t, prefix, namespace, "")},
			{
				Config: capacityConfig(t, prefix, namespace, weighted),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 2, 1, 0)),
				}},
				Check: allReady(t, namespace, 2, 1, 0),
			},
			{
				Config: capacityConfig(t, prefix, namespace, weighted+`
  spread = { by_label = "region", min_groups = 3 }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 1, 1, 1)),
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("excluded_clusters"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				}},
				Check: allReady(t, namespace, 1, 1, 1),
			},
			{
				Config: capacityConfig(t, prefix, namespace, `  total_replicas = 12
  rebalance      = true
  max_clusters   = 2`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 6, 6, 0)),
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("excluded_clusters"), knownvalue.MapExact(map[string]knownvalue.Check{
						prefix + "-berlin": knownvalue.StringRegexp(acctest.ErrorMatching("max_clusters = 2")),
					})),
				}},
				Check: allReady(t, namespace, 6, 6, 0),
			},
			{
				Config: capacityConfig(t, prefix, namespace, weighted+`
  spread = { by_label = "zone" }`),
				ExpectError: acctest.ErrorMatching(`spread["by_label"]`, `no candidate cluster has the label "zone"`),
			},
		},
	})
}

// A member whose registered credentials may not list nodes is planned
// without a bound, and the others are bounded as usual.
func TestAccReplicaSchedulingPreference_capacityOfAForbiddingMember(t *testing.T) {
	l := acctest.Lab(t)
	const prefix = "rspf"
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, prefix+"-sf", prefix+"-ny", prefix+"-berlin") })
	cert, key, err := l.ClientCertificate("berlin", "kubefed-capacity-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	credentials := fmt.Sprintf("  labels = { rsp-test = %q }\n", prefix)
	berlin := memberBlock("berlin", prefix+"-berlin", "berlin", credentials)(t)
	berlin = strings.Replace(berlin, "  token        = "+acctest.Quote(l.Cluster("berlin").Token),
		"  client_certificate = "+acctest.Quote(string(cert))+"\n  client_key = "+acctest.Quote(string(key)), 1)
	clusters := acctest.HostProviderConfig(t) +
		memberBlock("sf", prefix+"-sf", "san-francisco", credentials)(t) +
		memberBlock("ny", prefix+"-ny", "new-york", credentials)(t) + berlin
	const rsp = "kubefed_replica_scheduling_preference.web"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: clusters},
			{
				Config: clusters + fmt.Sprintf(`
resource "kubefed_replica_scheduling_preference" "web" {
  namespace        = %[1]q
  name             = "web"
  total_replicas   = 40
  capacity         = "auto"
  replica_requests = { cpu = "1" }
  cluster_selector = { match_labels = { rsp-test = %[2]q } }
}
`, uniqueName("rspf"), prefix),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("estimated_capacity"), knownvalue.MapExact(map[string]knownvalue.Check{
						prefix + "-sf": knownvalue.Int64Exact(12), prefix + "-ny": knownvalue.Int64Exact(12),
					})),
					// sf and ny hold 12 each; berlin, unbounded, takes the rest.
					plancheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 12, 12, 16)),
				}},
			},
		},
	})
}

func TestAccReplicaSchedulingPreference_capacityOptionsAreValidated(t *testing.T) {
	step := func(attrs string, phrases ...string) resource.TestStep {
		return resource.TestStep{Config: unreachableHost + `
resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = "shop"
  name           = "web"
  total_replicas = 9
` + attrs + `
}
`, PlanOnly: true, ExpectError: acctest.ErrorMatching(phrases...)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(`  capacity = "auto"
  replica_requests = { cpu = "1", pods = "1" }`, `replica_requests["pods"]`, "one pod already"),
			step(`  capacity = "auto"
  replica_requests = { memory = "lots" }`, `replica_requests["memory"]`, "not a quantity"),
			step(`  capacity = "auto"
  template = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "x" } })`, "template", "no pod template"),
			step(`  capacity = "sometimes"`, "capacity", `"sometimes"`),
			step(`  weight_by = "available_capacity"`, "weight_by", `capacity = "auto"`),
			step(`  capacity = "auto"
  unschedulable_after = "-5s"`, "unschedulable_after", "negative"),
			step(`  spread = { by_label = "bad key!" }`, `spread["by_label"]`, "not a label key"),
			step(`  spread = { by_label = "region", min_groups = 3, max_groups = 2 }`, `spread["min_groups"]`, "greater than max_groups"),
			step(`  max_clusters = 2
  spread = { by_label = "region", min_groups = 3 }`, `spread["min_groups"]`, "greater than max_clusters"),
			step(`  max_clusters = 0`, "max_clusters", "at least 1"),
		},
	})
}

// One apply that registers the clusters and splits by their capacity: the
// plan cannot read nodes of clusters not registered yet, so it shows the
// split as known after apply, with a warning, and the apply, after the
// registrations, splits by what each cluster can run.
func TestAccReplicaSchedulingPreference_capacityOfClustersRegisteredInTheSameRun(t *testing.T) {
	acctest.Lab(t)
	// A namespace of its own each run: the destroy keeps one that holds the
	// filler, which the federation does not manage.
	prefix, namespace := "rspn", uniqueName("rsp-capacity-new")
	for _, member := range []string{"san-francisco", "new-york", "berlin"} {
		removeDeployment(t, member, namespace)
	}
	cleanupObjectTest(t, prefix, namespace)
	const rsp = "kubefed_replica_scheduling_preference.web"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: capacityConfig(t, prefix, namespace, "  total_replicas = 12\n  rebalance = true"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(rsp, tfjsonpath.New("replicas")),
				plancheck.ExpectUnknownValue(rsp, tfjsonpath.New("estimated_capacity")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(rsp, tfjsonpath.New("estimated_capacity"), byCluster(prefix, 12, 12, 2)),
				statecheck.ExpectKnownValue(rsp, tfjsonpath.New("replicas"), byCluster(prefix, 5, 5, 2)),
			},
			Check: allReady(t, namespace, 5, 5, 2),
		}},
	})
}
