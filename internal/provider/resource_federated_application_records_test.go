package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
