package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
)

var replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}

// rolloutConfig federates a 3-replica Deployment of the given image to the
// three members, with extra attributes (overrides, a strategy).
// statusOK is a cluster_status entry of an apply that went well.
var statusOK = knownvalue.ObjectExact(map[string]knownvalue.Check{"status": knownvalue.StringExact("OK"), "message": knownvalue.StringExact("")})

func rolloutConfig(t *testing.T, prefix, ns, image, extra string) string {
	return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_object" "web" {
  type = kubefed_federated_type.deployments.name
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = %q }
    spec = {
      replicas                = 3
      minReadySeconds         = 2
      progressDeadlineSeconds = 600
      selector                = { matchLabels = { app = "web" } }
      template = {
        metadata = { labels = { app = "web" } }
        spec     = { containers = [{ name = "web", image = %q }] }
      }
    }
  })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name] }
  timeouts   = { create = "3m", update = "3m" }
%s
  depends_on = [kubefed_federated_object.ns]
}
`, ns, image, extra)
}

// failOn is the override that breaks the pods of one cluster with the
// lab's failure switch.
func failOn(cluster string) string {
	return fmt.Sprintf(`  overrides = [{
    cluster = kubefed_federation_cluster.%s.name
    patches = [{ op = "add", path = "/spec/template/metadata/labels/%s", value = jsonencode("true") }]
  }]`, cluster, jsonPointerKey(lab.FailLabel))
}

func jsonPointerKey(key string) string {
	return regexp.MustCompile(`/`).ReplaceAllString(key, "~1")
}

// checkRunning checks, from each member, that the Deployment runs the image
// with all its replicas available.
func checkRunning(t *testing.T, ns, image string, members ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, m := range members {
			obj, err := memberObject(t, m, deploymentsGVR, ns, "web")
			if err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
			containers, _ := nested(obj, "spec", "template", "spec", "containers").([]any)
			if len(containers) == 0 || containers[0].(map[string]any)["image"] != image {
				return fmt.Errorf("%s runs %v, want %s", m, containers, image)
			}
			if got := nested(obj, "status", "availableReplicas"); fmt.Sprint(got) != "3" {
				return fmt.Errorf("%s: %v of 3 replicas available when apply returned", m, got)
			}
			if got := nested(obj, "status", "updatedReplicas"); fmt.Sprint(got) != "3" {
				return fmt.Errorf("%s: %v of 3 replicas updated when apply returned", m, got)
			}
		}
		return nil
	}
}

func checkImage(t *testing.T, ns, image string, members ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, m := range members {
			obj, err := memberObject(t, m, deploymentsGVR, ns, "web")
			if err != nil {
				return err
			}
			containers, _ := nested(obj, "spec", "template", "spec", "containers").([]any)
			if len(containers) == 0 || containers[0].(map[string]any)["image"] != image {
				return fmt.Errorf("%s has %v, want %s", m, containers, image)
			}
		}
		return nil
	}
}

// Apply returns once every member runs the Deployment; a rollout that
// fails on one member fails apply early, naming it, and the others are
// updated.
func TestAccRollout_waitsAndFailsEarly(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "ro-wait", uniqueName("ro-wait")
	cleanupObjectTest(t, prefix, ns)
	berlin := prefix + "-berlin"
	all := []string{"san-francisco", "new-york", "berlin"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: rolloutConfig(t, prefix, ns, "nginx:1.27", ""),
				Check:  checkRunning(t, ns, "nginx:1.27", all...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// The refresh reads how each cluster does.
				Config: rolloutConfig(t, prefix, ns, "nginx:1.27", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federated_object.web", tfjsonpath.New("cluster_health").AtMapKey(berlin),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"ready": knownvalue.Bool(true), "replicas": knownvalue.Int64Exact(3), "available_replicas": knownvalue.Int64Exact(3),
						})),
					statecheck.ExpectKnownValue("kubefed_federated_object.web", tfjsonpath.New("rollout_plan"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.ListExact([]knownvalue.Check{
							knownvalue.StringExact(berlin), knownvalue.StringExact(prefix + "-ny"), knownvalue.StringExact(prefix + "-sf"),
						})})),
				},
			},
			{
				// A new image whose pods crash on berlin: apply fails on
				// berlin, from the pods, before its timeout.
				Config:      rolloutConfig(t, prefix, ns, "nginx:1.28", failOn("berlin")),
				ExpectError: acctest.ErrorMatching(fmt.Sprintf(`cluster %q (RolloutFailed)`, berlin), "CrashLoopBackOff"),
				Check:       checkRunning(t, ns, "nginx:1.28", "san-francisco", "new-york"),
			},
			{
				// The state says berlin's rollout did not finish: the plan
				// shows it pending; with the fix, apply finishes it.
				Config:   rolloutConfig(t, prefix, ns, "nginx:1.28", failOn("berlin")),
				PlanOnly: true, ExpectNonEmptyPlan: true,
			},
			{
				Config: rolloutConfig(t, prefix, ns, "nginx:1.28", ""),
				Check:  checkRunning(t, ns, "nginx:1.28", all...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// A staged rollout stops at the stage that fails: the later clusters keep
// the old image, the next plan shows the change pending for all three, and
// after the fix one apply finishes the rollout.
func TestAccRollout_stagesStopAtAFailure(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "ro-stage", uniqueName("ro-stage")
	cleanupObjectTest(t, prefix, ns)
	berlin, sf, ny := prefix+"-berlin", prefix+"-sf", prefix+"-ny"
	staged := `  rollout_strategy = { stages = [[kubefed_federation_cluster.berlin.name], ["*"]] }`
	all := []string{"san-francisco", "new-york", "berlin"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: rolloutConfig(t, prefix, ns, "nginx:1.27", staged),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("kubefed_federated_object.web", tfjsonpath.New("rollout_plan"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(berlin)}),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(ny), knownvalue.StringExact(sf)}),
					})),
				}},
				Check: checkRunning(t, ns, "nginx:1.27", all...),
			},
			{
				Config:      rolloutConfig(t, prefix, ns, "nginx:1.28", staged+"\n"+failOn("berlin")),
				ExpectError: acctest.ErrorMatching(fmt.Sprintf(`cluster %q (RolloutFailed)`, berlin), fmt.Sprintf(`cluster %q (NotUpdated)`, ny)),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkImage(t, ns, "nginx:1.28", "berlin"),
					checkRunning(t, ns, "nginx:1.27", "san-francisco", "new-york"),
				),
			},
			{
				Config: rolloutConfig(t, prefix, ns, "nginx:1.28", staged),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federated_object.web", plancheck.ResourceActionUpdate),
						expectRendered("kubefed_federated_object.web", false, map[string]knownvalue.Check{sf: knownvalue.StringRegexp(regexp.MustCompile(`nginx:1\.28`))}),
						expectRendered("kubefed_federated_object.web", false, map[string]knownvalue.Check{ny: knownvalue.StringRegexp(regexp.MustCompile(`nginx:1\.28`))}),
						// The clusters the apply writes to, and berlin, whose failed
						// rollout it waits for again: their health is the
						// apply's, and an apply without an error leaves them OK.
						plancheck.ExpectUnknownValue("kubefed_federated_object.web", tfjsonpath.New("cluster_health").AtMapKey(sf)),
						plancheck.ExpectUnknownValue("kubefed_federated_object.web", tfjsonpath.New("cluster_health").AtMapKey(ny)),
						plancheck.ExpectUnknownValue("kubefed_federated_object.web", tfjsonpath.New("cluster_health").AtMapKey(berlin)),
						plancheck.ExpectKnownValue("kubefed_federated_object.web", tfjsonpath.New("cluster_status"), knownvalue.MapExact(map[string]knownvalue.Check{
							sf: statusOK, ny: statusOK, berlin: statusOK})),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkRunning(t, ns, "nginx:1.28", all...),
			},
		},
	})
}

// With max_concurrent_clusters = 1, no two members roll out at once: each
// member's rollout, from its new ReplicaSet's creation to the Deployment's
// last progress, ends before the next one's starts.
func TestAccRollout_oneClusterAtATime(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "ro-one", uniqueName("ro-one")
	cleanupObjectTest(t, prefix, ns)
	one := `  rollout_strategy = { max_concurrent_clusters = 1 }`
	all := []string{"san-francisco", "new-york", "berlin"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: rolloutConfig(t, prefix, ns, "nginx:1.27", one)},
			{
				Config: rolloutConfig(t, prefix, ns, "nginx:1.28", one),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkRunning(t, ns, "nginx:1.28", all...),
					func(*terraform.State) error { return noOverlap(t, ns, "nginx:1.28", all) },
				),
			},
		},
	})
}

// noOverlap checks that the members' rollouts to image happened one after
// another.
func noOverlap(t *testing.T, ns, image string, members []string) error {
	type span struct {
		member     string
		start, end time.Time
	}
	var spans []span
	for _, m := range members {
		start, err := replicaSetCreated(t, m, ns, image)
		if err != nil {
			return err
		}
		obj, err := memberObject(t, m, deploymentsGVR, ns, "web")
		if err != nil {
			return err
		}
		var end time.Time
		conditions, _ := nested(obj, "status", "conditions").([]any)
		for _, c := range conditions {
			c := c.(map[string]any)
			if c["type"] == "Available" || c["type"] == "Progressing" {
				at, _ := time.Parse(time.RFC3339, fmt.Sprint(c["lastUpdateTime"]))
				if at.After(end) {
					end = at
				}
			}
		}
		spans = append(spans, span{m, start, end})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start.Before(spans[j].start) })
	for i := 1; i < len(spans); i++ {
		if spans[i].start.Before(spans[i-1].end) {
			return fmt.Errorf("%s started rolling out at %s, before %s finished at %s", spans[i].member, spans[i].start, spans[i-1].member, spans[i-1].end)
		}
	}
	return nil
}

// replicaSetCreated is when the ReplicaSet of the image was created.
func replicaSetCreated(t *testing.T, member, ns, image string) (time.Time, error) {
	list, err := memberClient(t, member).Resource(replicaSetsGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		return time.Time{}, err
	}
	for _, rs := range list.Items {
		raw, _ := json.Marshal(nested(&rs, "spec", "template", "spec", "containers"))
		if regexp.MustCompile(regexp.QuoteMeta(image)).Match(raw) {
			return rs.GetCreationTimestamp().Time, nil
		}
	}
	return time.Time{}, fmt.Errorf("%s: no ReplicaSet of %s", member, image)
}

// A member loses its node: its pods go Pending. The refresh shows it in
// cluster_health, and the plan stays empty.
func TestAccRollout_healthChangesShowWithAnEmptyPlan(t *testing.T) {
	l := acctest.Lab(t)
	prefix, ns := "ro-health", uniqueName("ro-health")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	config := rolloutConfig(t, prefix, ns, "nginx:1.27", "")
	ws.Write(config)
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	ctx := context.Background()
	nodes, err := l.Nodes(ctx, "berlin")
	if err != nil || len(nodes) == 0 {
		t.Fatalf("berlin's nodes: %v %v", nodes, err)
	}
	for _, n := range nodes {
		if err := l.RemoveNode(ctx, "berlin", n.Name); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			if _, err := l.AddNode(context.Background(), "berlin", n.Node); err != nil {
				t.Errorf("giving berlin back its node %s: %v", n.Name, err)
			}
		}
	})
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	ws.MustRun(0, "apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	var state struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string `json:"address"`
					Values  struct {
						ClusterHealth map[string]struct {
							Ready         bool   `json:"ready"`
							ReadyReplicas int64  `json:"ready_replicas"`
							Message       string `json:"message"`
						} `json:"cluster_health"`
					} `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(ws.MustRun(0, "show", "-json", "-no-color")), &state); err != nil {
		t.Fatal(err)
	}
	for _, r := range state.Values.RootModule.Resources {
		if r.Address != "kubefed_federated_object.web" {
			continue
		}
		berlin := r.Values.ClusterHealth[prefix+"-berlin"]
		if berlin.Ready || berlin.ReadyReplicas != 0 {
			t.Errorf("berlin without nodes: %+v, want not ready, no ready replica", berlin)
		}
		if sf := r.Values.ClusterHealth[prefix+"-sf"]; !sf.Ready {
			t.Errorf("san-francisco: %+v, want ready", sf)
		}
		return
	}
	t.Fatal("no kubefed_federated_object.web in the state")
}
