package provider_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

var federatedServicesGVR = schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federatedservices"}

// renamedManifests are appManifests with the ConfigMap, and the reference
// to it, renamed: what kustomize's configMapGenerator does with its hash.
func renamedManifests(ns, configMap, image string) string {
	return strings.ReplaceAll(appManifests(ns, "blue", image, false), "web-config", configMap)
}

func lastStageStrategy(onFailure string) string {
	return fmt.Sprintf(`  rollout_strategy = { stages = [["*"], [kubefed_federation_cluster.berlin.name]], on_failure = %q }
`, onFailure)
}

// A version that renames the ConfigMap and fails on the last stage
// (berlin) is rolled back there, and only there; the fixed version then
// removes the old ConfigMap from every member, though the state's
// configuration already held the new version when it was rolled back.
func TestAccFederatedApplication_lastStageRolledBackAndOldObjectPruned(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-owed", uniqueName("app-owed")
	cleanupObjectTest(t, prefix, ns)
	others := []string{"san-francisco", "new-york"}
	all := append(append([]string{}, others...), "berlin")
	config := func(configMap, image, extra string) string {
		return applicationConfig(t, prefix, renamedManifests(ns, configMap, image), lastStageStrategy("rollback")+extra)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("web-config-v1", "nginx:1.27", ""),
				Check:  checkRunning(t, ns, "nginx:1.27", all...),
			},
			{
				Config:      config("web-config-v2", "nginx:1.28", failDeploymentOnBerlin()),
				ExpectError: regexp.MustCompile(`(?s)Rolled back after a failed stage.*"` + prefix + `-berlin"`),
			},
			{
				// berlin holds v1 again, and not the ConfigMap v2 added; the
				// first stage holds v2, and v1 until its removal, which comes
				// after the last stage.
				Config:             config("web-config-v2", "nginx:1.28", failDeploymentOnBerlin()),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: checksAtPlan(
					checkImage(t, ns, "nginx:1.27", "berlin"),
					checkMemberField(t, "berlin", configMapsGVR, ns, "web-config-v1", "blue", "data", "color"),
					checkGone(t, configMapsGVR, ns, "web-config-v2", "berlin"),
					checkImage(t, ns, "nginx:1.28", others...),
					checkMemberField(t, "new-york", configMapsGVR, ns, "web-config-v2", "blue", "data", "color"),
				),
			},
			{
				Config: config("web-config-v2", "nginx:1.28", ""),
				Check: resource.ComposeTestCheckFunc(
					checkRunning(t, ns, "nginx:1.28", all...),
					checkGone(t, configMapsGVR, ns, "web-config-v1", all...),
					checkHostRecordGone(t, federatedCMsGVR, ns, "web-config-v1"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
		CheckDestroy: checkHostNamespaceGone(t, ns),
	})
}

// A rollout of one stage, where only the image changes, that fails on
// one of its clusters is rolled back on all of them: a staged rollout's
// last stage is rolled back as any other.
func TestAccFederatedApplication_onlyStageRolledBack(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-one", uniqueName("app-one")
	cleanupObjectTest(t, prefix, ns)
	all := []string{"san-francisco", "new-york", "berlin"}
	strategy := `  rollout_strategy = { stages = [["*"]], on_failure = "rollback" }
`
	config := func(image, extra string) string {
		return applicationConfig(t, prefix, appManifests(ns, "blue", image, false), strategy+extra)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("nginx:1.27", ""), Check: checkRunning(t, ns, "nginx:1.27", all...)},
			{
				Config:      config("nginx:1.28", failDeploymentOnBerlin()),
				ExpectError: regexp.MustCompile(`(?s)Rolled back after a failed stage.*"` + prefix + `-berlin"`),
			},
			{
				// The host's record is back at the rolled-back version too.
				Config:             config("nginx:1.28", failDeploymentOnBerlin()),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   checksAtPlan(checkImage(t, ns, "nginx:1.27", all...), checkHostRecordImage(t, ns, "nginx:1.27")),
			},
			{
				Config: config("nginx:1.28", ""),
				Check:  checkRunning(t, ns, "nginx:1.28", all...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// An object that leaves the set while a member is down stays owed: the
// apply fails for that member, the next plan after it is back shows the
// removal, one apply carries it out, and the plan after it is empty.
func TestAccFederatedApplication_pruningWhileAMemberIsDown(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-down", uniqueName("app-down")
	cleanupObjectTest(t, prefix, ns)
	t.Cleanup(func() { startMember(t, "berlin") })
	all := []string{"san-francisco", "new-york", "berlin"}
	withService := applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", true), "")
	withoutService := applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", false), "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: withService,
				Check:  checkMemberField(t, "berlin", servicesGVR, ns, "web", "web", "spec", "selector", "app"),
			},
			{
				PreConfig:   func() { stopMember(t, "berlin") },
				Config:      withoutService,
				ExpectError: regexp.MustCompile(`(?s)failed on 1 cluster.*` + prefix + `-berlin`),
			},
			{
				// berlin is back: the removal it still owes is planned.
				PreConfig:          func() { startMember(t, "berlin") },
				Config:             withoutService,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: checksAtPlan(
					checkGone(t, servicesGVR, ns, "web", "san-francisco", "new-york"),
					checkMemberField(t, "berlin", servicesGVR, ns, "web", "web", "spec", "selector", "app"),
				),
			},
			{
				Config: withoutService,
				Check: resource.ComposeTestCheckFunc(
					checkGone(t, servicesGVR, ns, "web", all...),
					checkHostRecordGone(t, federatedServicesGVR, ns, "web"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
		CheckDestroy: checkHostNamespaceGone(t, ns),
	})
}

// checkHostRecordGone checks that the host holds no Federated<Kind> record
// of the object.
func checkHostRecordGone(t *testing.T, gvr schema.GroupVersionResource, namespace, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := newHostClients(t).dynamic.Resource(gvr).Namespace(namespace).Get(context.Background(), name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("the host's record %s %s/%s should be gone, got %w", gvr.Resource, namespace, name, err)
		}
		return nil
	}
}

// A record labelled with the application that the state does not hold
// (left by an apply cut off, or by a state that lost it) goes with the
// application's destroy, and so does its object on the clusters the record
// lists: a type's destroy after it finds no record left.
func TestAccFederatedApplication_destroyRemovesRecordsTheStateLost(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-stray", uniqueName("app-stray")
	cleanupObjectTest(t, prefix, ns)
	stray := prefix + "-stray"
	t.Cleanup(func() {
		_ = newHostClients(t).dynamic.Resource(federatedCMsGVR).Namespace("default").Delete(context.Background(), stray, metav1.DeleteOptions{})
		_ = memberClient(t, "berlin").Resource(configMapsGVR).Namespace("default").Delete(context.Background(), stray, metav1.DeleteOptions{})
	})
	config := applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", false), "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig:        func() { writeStray(t, prefix, stray) },
				Config:           config,
				PlanOnly:         true,
				ConfigPlanChecks: checksAtPlan(checkMemberField(t, "berlin", configMapsGVR, "default", stray, "left", "data", "by")),
			},
		},
		CheckDestroy: resource.ComposeTestCheckFunc(
			checkGone(t, configMapsGVR, "default", stray, "berlin"),
			checkHostRecordGone(t, federatedCMsGVR, "default", stray),
			checkHostNamespaceGone(t, ns),
		),
	})
}

// writeStray writes, as an apply cut off would leave them, a ConfigMap on
// berlin and its host record labelled with the application, listing berlin.
func writeStray(t *testing.T, application, name string) {
	t.Helper()
	ctx := context.Background()
	ft := registry.NewFederatedType(registry.APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}, registry.Enabled, "")
	record := registry.FederatedObject{Namespace: "default", Name: name, Application: application,
		Template:  map[string]any{"data": map[string]any{"by": "left"}},
		Placement: federation.Placement{Clusters: []string{application + "-berlin"}},
		Status:    map[string]string{application + "-berlin": "OK"}}
	reg := someoneElsesRegistry(t)
	if err := reg.ApplyFederatedSpec(ctx, ft, record); err != nil {
		t.Fatal(err)
	}
	if err := reg.ApplyFederatedStatus(ctx, ft, record); err != nil {
		t.Fatal(err)
	}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]any{federation.ManagedLabel: "true"}},
		"data":     map[string]any{"by": "left"}}}
	if _, err := memberClient(t, "berlin").Resource(configMapsGVR).Namespace("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// checkHostRecordImage checks the image of the web Deployment's record in
// the host.
func checkHostRecordImage(t *testing.T, ns, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		record, err := newHostClients(t).dynamic.Resource(federatedDeploymentsGVR).Namespace(ns).Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		containers, _, _ := unstructured.NestedSlice(record.Object, "spec", "template", "spec", "template", "spec", "containers")
		if len(containers) == 0 {
			return fmt.Errorf("the host's record of web has no containers")
		}
		if got := containers[0].(map[string]any)["image"]; got != want {
			return fmt.Errorf("the host's record of web has image %v, want %s", got, want)
		}
		return nil
	}
}
