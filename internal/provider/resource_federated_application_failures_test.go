package provider_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// caseLabel marks, on the objects of a failure case's manifests, the case
// they belong to, so that a check finds every object of the case, leftovers
// included.
const caseLabel = "failure-case"

var labMembers = []string{"san-francisco", "new-york", "berlin"}

// failureCase is one cell of the failure matrix: where the stage that
// fails is, what the strategy does then, how the set changes, and how the
// failure is resolved.
type failureCase struct {
	stage     string // first, last or only
	onFailure string // stop or rollback
	change    string // changed, added or removed
	// resolution is "fix" (the change without what made it fail) or
	// "revert" (the set of before the change).
	resolution string
}

// failureMatrix is every stage position by every on_failure by every kind
// of change by every resolution.
func failureMatrix() []failureCase {
	var cases []failureCase
	for _, stage := range []string{"first", "last", "only"} {
		for _, onFailure := range []string{"stop", "rollback"} {
			for _, change := range []string{"changed", "added", "removed"} {
				for _, resolution := range []string{"fix", "revert"} {
					cases = append(cases, failureCase{stage, onFailure, change, resolution})
				}
			}
		}
	}
	return cases
}

// id names the case, its application and the objects of its set.
func (c failureCase) id() string {
	return strings.Join([]string{c.stage, c.onFailure, c.change, c.resolution}, "-")
}

// address is the case's application in the configuration.
func (c failureCase) address() string { return "kubefed_federated_application." + c.resourceName() }

func (c failureCase) resourceName() string { return strings.ReplaceAll(c.id(), "-", "_") }

// sets are the case's ConfigMaps, by name to their color, before and after
// its change; the set's Deployment is in both.
func (c failureCase) sets() (before, after map[string]string) {
	a, b := c.id()+"-a", c.id()+"-b"
	switch c.change {
	case "changed":
		return map[string]string{a: "blue"}, map[string]string{a: "green"}
	case "added":
		return map[string]string{a: "blue"}, map[string]string{a: "blue", b: "blue"}
	default:
		return map[string]string{a: "blue", b: "blue"}, map[string]string{a: "blue"}
	}
}

// resolved is the case's set once its failure is resolved.
func (c failureCase) resolved() map[string]string {
	before, after := c.sets()
	if c.resolution == "revert" {
		return before
	}
	return after
}

// stages is the case's rollout_strategy stages: berlin, where the case
// fails, is the first stage, the last one, or in the only one.
func (c failureCase) stages() string {
	switch c.stage {
	case "first":
		return `[[kubefed_federation_cluster.berlin.name], ["*"]]`
	case "last":
		return `[["*"], [kubefed_federation_cluster.berlin.name]]`
	default:
		return `[["*"]]`
	}
}

// failedStage are the members of the stage that fails: a rollback gives
// them the set of before the change.
func (c failureCase) failedStage() []string {
	if c.stage == "only" {
		return labMembers
	}
	return []string{"berlin"}
}

// untouched are the members of the stages after the one that fails, which
// a failure stops before.
func (c failureCase) untouched() []string {
	if c.stage == "first" {
		return []string{"san-francisco", "new-york"}
	}
	return nil
}

// caseApp is an application of a case's set: its ConfigMaps and a
// Deployment of one replica reading the first of them.
type caseApp struct {
	prefix, id, ns string
	colors         map[string]string
	// extra are attributes added to the application (a strategy, overrides).
	extra string
	// placement are the resource names of the clusters it goes to.
	placement []string
	// progressDeadline is the Deployment's progressDeadlineSeconds.
	progressDeadline int
}

// manifests are the documents of the app's set.
func (a caseApp) manifests() string {
	var docs []string
	for _, name := range slices.Sorted(maps.Keys(a.colors)) {
		docs = append(docs, fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %s
  namespace: %s
  labels: {%s: %s}
data:
  color: %s`, name, a.ns, caseLabel, a.id, a.colors[name]))
	}
	docs = append(docs, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
  labels: {%[3]s: %[1]s}
spec:
  replicas: 1
  progressDeadlineSeconds: %[4]d
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        envFrom:
        - configMapRef: {name: %[1]s-a}`, a.id, a.ns, caseLabel, a.progressDeadline))
	return strings.Join(docs, "\n---\n")
}

// block is the app's kubefed_federated_application resource.
func (a caseApp) block() string {
	var clusters []string
	for _, c := range a.placement {
		clusters = append(clusters, "kubefed_federation_cluster."+c+".name")
	}
	return fmt.Sprintf(`
resource "kubefed_federated_application" %q {
  name      = %q
  manifests = [<<-EOT
%s
EOT
  ]
  placement = { clusters = [%s] }
  timeouts  = { create = "3m", update = "3m" }
%s
  depends_on = [kubefed_federated_type.configmaps, kubefed_federated_type.namespaces, kubefed_federated_type.deployments,
    kubefed_federated_type.services]
}
`, strings.ReplaceAll(a.id, "-", "_"), a.name(), a.manifests(), strings.Join(clusters, ", "), a.extra)
}

// name is the application's name, which labels its host records.
func (a caseApp) name() string { return a.prefix + "-" + a.id }

// caseConfig is the types and clusters the apps share, and the apps.
func caseConfig(t *testing.T, prefix string, apps ...caseApp) string {
	config := acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + objectTestClusters(t, prefix)
	for _, a := range apps {
		config += a.block()
	}
	return config
}

// breakOnBerlin crash-loops the pods of the Deployment named id on berlin,
// with the lab's failure switch.
func breakOnBerlin(id string) string {
	return fmt.Sprintf(`  overrides = [{
    object  = { kind = "Deployment", name = %q }
    cluster = kubefed_federation_cluster.berlin.name
    patches = [{ op = "add", path = "/spec/template/metadata/labels/%s", value = jsonencode("true") }]
  }]
`, id, jsonPointerKey(lab.FailLabel))
}

// matrixApps are the matrix's applications, each at the given phase of its
// case: "before" the change, "broken" (the change, with the Deployment
// failing on berlin) or "resolved".
func matrixApps(prefix, ns string, cases []failureCase, phase string) []caseApp {
	var apps []caseApp
	for _, c := range cases {
		before, after := c.sets()
		a := caseApp{prefix: prefix, id: c.id(), ns: ns, colors: after, placement: []string{"sf", "ny", "berlin"}, progressDeadline: 600,
			extra: fmt.Sprintf("  rollout_strategy = { stages = %s, on_failure = %q }\n", c.stages(), c.onFailure)}
		switch phase {
		case "before":
			a.colors = before
		case "broken":
			a.extra += breakOnBerlin(c.id())
		case "resolved":
			a.colors = c.resolved()
		}
		apps = append(apps, a)
	}
	return apps
}

// Every cell of stage position × on_failure × kind of change × resolution,
// each an application of its own beside the others: after the failed apply
// the plan shows what each still owes, and the members are as on_failure
// leaves them; once the failure is fixed, or the change reverted, one
// apply converges (the members hold exactly the set, the host records it),
// the plan after it is empty, and the destroy leaves nothing anywhere.
func TestAccFederatedApplication_failureMatrix(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "fm", uniqueName("fm")
	cleanupObjectTest(t, prefix, ns)
	createMemberNamespace(t, ns)
	cases := failureMatrix()
	config := func(phase string) string { return caseConfig(t, prefix, matrixApps(prefix, ns, cases, phase)...) }
	checks := newMatrixChecks(t, prefix, ns, cases)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("before")},
			{Config: config("broken"), ExpectError: acctest.ErrorMatching(prefix + "-berlin")},
			{
				// A plan-only step runs no Check: the members are checked
				// with the plan.
				Config: config("broken"), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPreRefresh: append(checks.owed, checkAtPlan(resource.ComposeAggregateTestCheckFunc(checks.afterFailure...))),
				},
			},
			{
				Config: config("resolved"),
				Check:  resource.ComposeAggregateTestCheckFunc(checks.converged...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(append(checks.destroyed, checkHostNamespaceGone(t, ns))...),
	})
}

// matrixChecks are the checks of every case of the matrix at each step.
type matrixChecks struct {
	// owed are the plan's after the failed apply: each case still owes
	// an update.
	owed []plancheck.PlanCheck
	// afterFailure check the members as the failure left them: a
	// rollback gives the failed stage the set of before, a failure stops
	// before later stages.
	afterFailure []resource.TestCheckFunc
	// converged check, after the resolution's apply, the members and the
	// host's records; destroyed, that nothing of any case is left.
	converged, destroyed []resource.TestCheckFunc
}

func newMatrixChecks(t *testing.T, prefix, ns string, cases []failureCase) matrixChecks {
	var m matrixChecks
	for _, c := range cases {
		before, _ := c.sets()
		application := prefix + "-" + c.id()
		m.owed = append(m.owed, plancheck.ExpectResourceAction(c.address(), plancheck.ResourceActionUpdate))
		if c.onFailure == "rollback" {
			m.afterFailure = append(m.afterFailure, checkCaseHolds(t, ns, c.id(), before, c.failedStage()...))
		}
		m.afterFailure = append(m.afterFailure, checkCaseHolds(t, ns, c.id(), before, c.untouched()...))
		m.converged = append(m.converged, checkCaseHolds(t, ns, c.id(), c.resolved(), labMembers...),
			checkCaseRunning(t, ns, c.id(), labMembers...), checkCaseRecords(t, application, ns, c.id(), c.resolved()))
		m.destroyed = append(m.destroyed, checkCaseHolds(t, ns, c.id(), nil, labMembers...), checkNoRecordOf(t, application))
	}
	return m
}

// createMemberNamespace creates the namespace on every member, outside the
// applications, so that their objects are removed by the provider and not
// by the namespace's deletion; it goes when the test ends.
func createMemberNamespace(t *testing.T, ns string) {
	t.Helper()
	for _, m := range labMembers {
		kube, err := kubernetes.NewForConfig(acctest.Lab(t).Cluster(m).RESTConfig())
		if err != nil {
			t.Fatal(err)
		}
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if _, err := kube.CoreV1().Namespaces().Create(context.Background(), namespace, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating namespace %s on %s: %v", ns, m, err)
		}
		t.Cleanup(func() { _ = kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	}
}

// checkCaseHolds checks that each member holds exactly the case's
// ConfigMaps, in their colors, and that its Deployment is there while
// ConfigMaps are; nil colors: nothing of the case at all.
func checkCaseHolds(t *testing.T, ns, id string, colors map[string]string, members ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, m := range members {
			got, err := memberColors(t, m, ns, id)
			if err != nil {
				return err
			}
			if !maps.Equal(got, colors) {
				return fmt.Errorf("%s: case %s holds ConfigMaps %v, want %v", m, id, got, colors)
			}
			deployments, err := memberCaseObjects(t, m, deploymentsGVR, ns, id)
			if err != nil {
				return err
			}
			if want := len(colors) > 0; (len(deployments) == 1) != want || len(deployments) > 1 {
				return fmt.Errorf("%s: case %s holds %d Deployments, want them only with its ConfigMaps", m, id, len(deployments))
			}
		}
		return nil
	}
}

// memberColors are the member's ConfigMaps of the case, by name to color.
func memberColors(t *testing.T, member, ns, id string) (map[string]string, error) {
	return caseColors(memberClient(t, member), member, ns, id)
}

func caseColors(client dynamic.Interface, member, ns, id string) (map[string]string, error) {
	items, err := caseObjects(client, member, configMapsGVR, ns, id)
	if err != nil {
		return nil, err
	}
	var colors map[string]string
	for _, cm := range items {
		if colors == nil {
			colors = map[string]string{}
		}
		colors[cm.GetName()] = fmt.Sprint(nested(&cm, "data", "color"))
	}
	return colors, nil
}

// memberCaseObjects lists the objects of the case on a member.
func memberCaseObjects(t *testing.T, member string, gvr schema.GroupVersionResource, ns, id string) ([]unstructured.Unstructured, error) {
	return caseObjects(memberClient(t, member), member, gvr, ns, id)
}

func caseObjects(client dynamic.Interface, member string, gvr schema.GroupVersionResource, ns, id string) ([]unstructured.Unstructured, error) {
	list, err := client.Resource(gvr).Namespace(ns).List(context.Background(), metav1.ListOptions{LabelSelector: caseLabel + "=" + id})
	if err != nil {
		return nil, fmt.Errorf("%s: listing %s of case %s: %w", member, gvr.Resource, id, err)
	}
	return list.Items, nil
}

// checkCaseRunning checks that the case's Deployment runs on each member,
// its replica available, and without the failure switch.
func checkCaseRunning(t *testing.T, ns, id string, members ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, m := range members {
			obj, err := memberObject(t, m, deploymentsGVR, ns, id)
			if err != nil {
				return fmt.Errorf("%s: Deployment %s: %w", m, id, err)
			}
			if got := nested(obj, "status", "availableReplicas"); fmt.Sprint(got) != "1" {
				return fmt.Errorf("%s: Deployment %s has %v of 1 replica available", m, id, got)
			}
			if got := nested(obj, "spec", "template", "metadata", "labels", lab.FailLabel); got != nil {
				return fmt.Errorf("%s: Deployment %s still carries the failure switch", m, id)
			}
		}
		return nil
	}
}

// checkCaseRecords checks that the host records, labelled with the
// application, exactly the case's ConfigMaps, in their colors, and its
// Deployment.
func checkCaseRecords(t *testing.T, application, ns, id string, colors map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		host := newHostClients(t)
		selector := metav1.ListOptions{LabelSelector: registry.ApplicationLabel + "=" + application}
		cms, err := host.dynamic.Resource(federatedCMsGVR).Namespace(ns).List(context.Background(), selector)
		if err != nil {
			return err
		}
		got := map[string]string{}
		for _, r := range cms.Items {
			got[r.GetName()] = fmt.Sprint(nested(&r, "spec", "template", "data", "color"))
		}
		if !maps.Equal(got, colors) {
			return fmt.Errorf("the host records ConfigMaps %v of %s, want %v", got, application, colors)
		}
		deployments, err := host.dynamic.Resource(federatedDeploymentsGVR).Namespace(ns).List(context.Background(), selector)
		if err != nil {
			return err
		}
		if len(deployments.Items) != 1 || deployments.Items[0].GetName() != id {
			return fmt.Errorf("the host records %d Deployments of %s, want %s alone", len(deployments.Items), application, id)
		}
		return nil
	}
}

// checkNoRecordOf checks that no namespace of the host holds a record
// labelled with the application.
func checkNoRecordOf(t *testing.T, application string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		host := newHostClients(t)
		selector := metav1.ListOptions{LabelSelector: registry.ApplicationLabel + "=" + application}
		var left []string
		for _, gvr := range []schema.GroupVersionResource{federatedCMsGVR, federatedDeploymentsGVR} {
			list, err := host.dynamic.Resource(gvr).List(context.Background(), selector)
			if err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			if list != nil {
				for _, r := range list.Items {
					left = append(left, gvr.Resource+" "+r.GetNamespace()+"/"+r.GetName())
				}
			}
		}
		if len(left) > 0 {
			sort.Strings(left)
			return fmt.Errorf("the host still records %s for %s", strings.Join(left, ", "), application)
		}
		return nil
	}
}
