package provider_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// A host record of one object of an application edited or deleted by hand
// shows in the next plan, under host_records and that object's key, and
// the apply writes it again; the plan after that is empty.
func TestAccFederatedApplication_hostRecordDrift(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-host", uniqueName("app-host")
	cleanupObjectTest(t, prefix, ns)
	host := newHostClients(t)
	config := applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", false), "")
	address := "kubefed_federated_application.web"
	configMapKey, deploymentKey := "/v1/ConfigMap/"+ns+"/web-config", "apps/v1/Deployment/"+ns+"/web"
	recordSays := func(key, want string) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue(address, tfjsonpath.New("host_records").AtMapKey(key), knownvalue.StringExact(want))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(address, "host_records.%", "3"),
					resource.TestCheckResourceAttr(address, "host_records."+configMapKey, "current"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// kubectl patch of the host's FederatedConfigMap.
				PreConfig: func() {
					patch := []byte(`{"spec":{"template":{"data":{"color":"edited-by-hand"}}}}`)
					if _, err := host.dynamic.Resource(federatedCMsGVR).Namespace(ns).Patch(context.Background(), "web-config",
						types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate),
						hostRecordBefore{address, configMapKey, "differs: template"},
						hostRecordBefore{address, deploymentKey, "current"},
						recordSays(configMapKey, "current"),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkHostField(host, federatedCMsGVR, ns, "web-config", "blue", "spec", "template", "data", "color"),
			},
			{
				// kubectl delete of the host's FederatedDeployment.
				PreConfig: func() {
					if err := host.dynamic.Resource(federatedDeploymentsGVR).Namespace(ns).Delete(context.Background(), "web",
						metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(address, plancheck.ResourceActionUpdate),
						hostRecordBefore{address, deploymentKey, "missing"},
						hostRecordBefore{address, configMapKey, "current"},
						recordSays(deploymentKey, "current"),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkHostField(host, federatedDeploymentsGVR, ns, "web", "nginx:1.27",
						"spec", "template", "spec", "template", "spec", "containers", "0", "image"),
					checkHostField(host, federatedDeploymentsGVR, ns, "web", prefix,
						"metadata", "labels", "kubefed.terraform.io/application"),
				),
			},
		},
	})
}

// hostRecordBefore checks what the refresh before a plan says of one
// object's host record: the plan's prior value of host_records[key].
type hostRecordBefore struct {
	address, key, want string
}

func (c hostRecordBefore) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.address {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		records, _ := before["host_records"].(map[string]any)
		if got := records[c.key]; got != c.want {
			resp.Error = fmt.Errorf("the refresh says host_records[%q] = %v, want %q (all: %v)", c.key, got, c.want, records)
		}
		return
	}
	resp.Error = fmt.Errorf("the plan has no change of %s", c.address)
}

// checkHostField checks one field of an object in the host; a list index
// is given as its decimal text.
func checkHostField(host hostClients, gvr schema.GroupVersionResource, namespace, name string, want any,
	fields ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := host.get(gvr, namespace, name)
		if err != nil {
			return fmt.Errorf("%s %s/%s in the host: %w", gvr.Resource, namespace, name, err)
		}
		var value any = obj.Object
		for _, f := range fields {
			switch v := value.(type) {
			case map[string]any:
				value = v[f]
			case []any:
				var i int
				if _, err := fmt.Sscan(f, &i); err != nil || i >= len(v) {
					value = nil
					continue
				}
				value = v[i]
			default:
				value = nil
			}
		}
		if fmt.Sprint(value) != fmt.Sprint(want) {
			return fmt.Errorf("%s %s/%s in the host: %v is %v, want %v", gvr.Resource, namespace, name, fields, value, want)
		}
		return nil
	}
}

// The host refuses the write of one object's record after the members took
// the update: the state says the record is not written, so even a plan
// without a refresh writes it; a refresh finds it behind; one apply after
// the host accepts writes again brings it up to date, and the next plan is
// empty.
func TestAccFederatedApplication_hostLeftBehind(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-behind", uniqueName("app-behind")
	cleanupObjectTest(t, prefix, ns)
	host := newHostClients(t)
	ws := acctest.NewWorkspace(t)
	config := func(color string) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + fmt.Sprintf(`
resource "kubefed_federated_application" "behind" {
  name = %[1]q
  manifests = [
    yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %[2]q } }),
    yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "app-behind", namespace = %[2]q }, data = { color = %[3]q } }),
  ]
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name] }
  depends_on = [kubefed_federated_type.configmaps, kubefed_federated_type.namespaces]
}
`, prefix, ns, color)
	}
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	key := "/v1/ConfigMap/" + ns + "/app-behind"
	ws.Write(config("blue"))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	remove := hostRefuses(t, federatedCMsGVR, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "types.kubefed.io/v1beta1", "kind": "FederatedConfigMap",
		"metadata": map[string]any{"name": "app-behind", "namespace": ns}, "spec": map[string]any{},
	}})
	ws.Write(config("green"))
	code, out := ws.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if code != 1 || !strings.Contains(out, "Cannot write the federated object to the host") {
		t.Fatalf("the apply the host refuses exited %d, want 1 and the host's refusal:\n%s", code, out)
	}
	checkMemberValue(t, checkMemberField(t, "new-york", configMapsGVR, ns, "app-behind", "green", "data", "color"))
	remove()

	out = ws.MustRun(2, "plan", "-refresh=false", "-detailed-exitcode", "-input=false", "-no-color")
	if !planChanges(out, key, "not written") {
		t.Fatalf("a plan without refresh does not write the record the apply left unwritten:\n%s", out)
	}
	out = ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if !planChanges(out, key, "differs: template") {
		t.Fatalf("the plan does not show the host record behind:\n%s", out)
	}
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	checkMemberValue(t, checkHostField(host, federatedCMsGVR, ns, "app-behind", "green", "spec", "template", "data", "color"))
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
}

// planChanges reports whether a plan's text changes host_records[key] from
// was to current.
func planChanges(plan, key, was string) bool {
	return regexp.MustCompile(regexp.QuoteMeta(fmt.Sprintf("%q", key)) + `\s*=\s*` +
		regexp.QuoteMeta(fmt.Sprintf("%q -> %q", was, "current"))).MatchString(plan)
}

// checkMemberValue runs a check outside a test step.
func checkMemberValue(t *testing.T, check resource.TestCheckFunc) {
	t.Helper()
	if err := check(nil); err != nil {
		t.Fatal(err)
	}
}
