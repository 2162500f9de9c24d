package provider_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// unschedulableOnSF keeps the pods of the Deployment named id on
// san-francisco from finding a node, so that its rollout fails at its
// progress deadline, not at once.
func unschedulableOnSF(id string) string {
	return fmt.Sprintf(`  overrides = [{
    object  = { kind = "Deployment", name = %q }
    cluster = kubefed_federation_cluster.sf.name
    patches = [{ op = "add", path = "/spec/template/spec/nodeSelector", value = jsonencode({ "no-such-node" = "true" }) }]
  }]
`, id)
}

// A stage rolled back while one of its members is down: that member keeps
// what the failed apply wrote there, and the rollback it still owes is
// carried out by the apply that goes back to the prior set once the
// member is back.
func TestAccFederatedApplication_rollbackWhileAMemberIsDown(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fm-down-rb", uniqueName("fm-down-rb")
	cleanupObjectTest(t, prefix, ns)
	createMemberNamespace(t, ns)
	var stopper *memberStopper
	t.Cleanup(func() {
		_ = stopper.wait()
		startMember(t, "berlin")
	})
	id := "rb"
	before, after := map[string]string{id + "-a": "blue"}, map[string]string{id + "-a": "green", id + "-b": "blue"}
	app := caseApp{prefix: prefix, id: id, ns: ns, colors: before, placement: []string{"sf", "ny", "berlin"}, progressDeadline: 15,
		extra: "  rollout_strategy = { stages = [[\"*\"]], on_failure = \"rollback\" }\n"}
	broken := app
	broken.colors, broken.extra = after, app.extra+unschedulableOnSF(id)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: caseConfig(t, prefix, app)},
			{
				// berlin goes down once it holds the new set, before
				// san-francisco's rollout reaches its deadline.
				PreConfig:   func() { stopper = stopWhenHolding(t, "berlin", ns, id, after) },
				Config:      caseConfig(t, prefix, broken),
				ExpectError: acctest.ErrorMatching("Rolled back after a failed stage", "rollback itself failed", prefix+"-berlin"),
			},
			{
				PreConfig: func() {
					if err := stopper.wait(); err != nil {
						t.Fatal(err)
					}
					startMember(t, "berlin")
				},
				Config: caseConfig(t, prefix, app), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kubefed_federated_application."+id, plancheck.ResourceActionUpdate),
					checkAtPlan(resource.ComposeAggregateTestCheckFunc(
						checkCaseHolds(t, ns, id, after, "berlin"),
						checkCaseHolds(t, ns, id, before, "san-francisco", "new-york"))),
				}},
			},
			{
				Config: caseConfig(t, prefix, app),
				Check: resource.ComposeAggregateTestCheckFunc(checkCaseHolds(t, ns, id, before, labMembers...),
					checkCaseRunning(t, ns, id, labMembers...), checkCaseRecords(t, app.name(), ns, id, before)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkCaseHolds(t, ns, id, nil, labMembers...),
			checkNoRecordOf(t, app.name()), checkHostNamespaceGone(t, ns)),
	})
}

// memberStopper stops a member once it holds a case's ConfigMaps in the
// given colors, from a goroutine of its own.
type memberStopper struct {
	done chan struct{}
	err  error
}

// stopWhenHolding starts watching the member, and stops it as soon as it
// holds exactly the case's ConfigMaps in these colors.
func stopWhenHolding(t *testing.T, member, ns, id string, colors map[string]string) *memberStopper {
	l, client := acctest.Lab(t), memberClient(t, member)
	s := &memberStopper{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if got, err := caseColors(client, member, ns, id); err == nil && maps.Equal(got, colors) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				s.err = l.Stop(ctx, member)
				return
			}
		}
		s.err = fmt.Errorf("%s never held %v of case %s", member, colors, id)
	}()
	return s
}

// wait waits for the member to be stopped, or for the watch to give up.
func (s *memberStopper) wait() error {
	if s == nil {
		return nil
	}
	<-s.done
	return s.err
}

// An object leaving one member, by a change of placement, while that
// member is down: once it is back the plan shows the removal still owed,
// and one apply carries it out.
func TestAccFederatedApplication_placementChangeWhileAMemberIsDown(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fm-down-pl", uniqueName("fm-down-pl")
	cleanupObjectTest(t, prefix, ns)
	createMemberNamespace(t, ns)
	t.Cleanup(func() { startMember(t, "berlin") })
	id := "pl"
	colors := map[string]string{id + "-a": "blue"}
	app := caseApp{prefix: prefix, id: id, ns: ns, colors: colors, placement: []string{"sf", "ny", "berlin"}, progressDeadline: 600}
	moved := app
	moved.placement = []string{"sf", "ny"}
	kept := []string{"san-francisco", "new-york"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: caseConfig(t, prefix, app)},
			{
				PreConfig:   func() { stopMember(t, "berlin") },
				Config:      caseConfig(t, prefix, moved),
				ExpectError: acctest.ErrorMatching(prefix + "-berlin"),
			},
			{
				PreConfig: func() { startMember(t, "berlin") },
				Config:    caseConfig(t, prefix, moved), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kubefed_federated_application."+id, plancheck.ResourceActionUpdate),
					checkAtPlan(checkCaseHolds(t, ns, id, colors, labMembers...)),
				}},
			},
			{
				Config: caseConfig(t, prefix, moved),
				Check: resource.ComposeAggregateTestCheckFunc(checkCaseHolds(t, ns, id, nil, "berlin"),
					checkCaseHolds(t, ns, id, colors, kept...), checkCaseRunning(t, ns, id, kept...),
					checkCaseRecords(t, moved.name(), ns, id, colors),
					checkRecordsPlacedOn(t, moved.name(), ns, prefix+"-ny", prefix+"-sf")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(checkCaseHolds(t, ns, id, nil, labMembers...),
			checkNoRecordOf(t, moved.name()), checkHostNamespaceGone(t, ns)),
	})
}

// checkRecordsPlacedOn checks that each host record of the application
// places its object on exactly these clusters, sorted.
func checkRecordsPlacedOn(t *testing.T, application, ns string, clusters ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		host := newHostClients(t)
		selector := metav1.ListOptions{LabelSelector: registry.ApplicationLabel + "=" + application}
		for _, gvr := range []schema.GroupVersionResource{federatedCMsGVR, federatedDeploymentsGVR} {
			list, err := host.dynamic.Resource(gvr).Namespace(ns).List(context.Background(), selector)
			if err != nil {
				return err
			}
			for _, r := range list.Items {
				var got []string
				placed, _ := nested(&r, "spec", "placement", "clusters").([]any)
				for _, c := range placed {
					got = append(got, fmt.Sprint(c.(map[string]any)["name"]))
				}
				slices.Sort(got)
				if !slices.Equal(got, clusters) {
					return fmt.Errorf("the host record %s %s places it on %v, want %v", gvr.Resource, r.GetName(), got, clusters)
				}
			}
		}
		return nil
	}
}
