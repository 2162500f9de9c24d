package provider_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
)

// applicationTypes enables the kinds the application tests federate.
const applicationTypes = `
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_type" "services" {
  target_api_version = "v1"
  target_kind        = "Service"
}
`

// appManifests are a namespace, a ConfigMap, a Deployment that reads it
// and, with service, a Service, as helm template writes them: documents
// separated by "---", an empty one and a comment-only one among them.
func appManifests(ns, color, image string, service bool) string {
	text := fmt.Sprintf(`---
# Source: web/templates/namespace.yaml
apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s
---
---
# Source: web/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: %[1]s
data:
  color: %[2]s
---
# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: %[1]s
spec:
  replicas: 3
  minReadySeconds: 2
  progressDeadlineSeconds: 600
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: %[3]s
        envFrom:
        - configMapRef: {name: web-config}
`, ns, color, image)
	if service {
		text += fmt.Sprintf(`---
# Source: web/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: %s
spec:
  selector: {app: web}
  ports:
  - port: 80
`, ns)
	}
	return text + "---\n# the end\n"
}

func applicationConfig(t *testing.T, prefix, manifests, extra string) string {
	return acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + objectTestClusters(t, prefix) + fmt.Sprintf(`
resource "kubefed_federated_application" "web" {
  name      = %q
  manifests = [<<-EOT
%s
EOT
  ]
  placement = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name] }
  timeouts  = { create = "3m", update = "3m" }
%s
  depends_on = [kubefed_federated_type.configmaps, kubefed_federated_type.namespaces, kubefed_federated_type.deployments,
    kubefed_federated_type.services]
}
`, prefix, manifests, extra)
}

// A set of a namespace, a ConfigMap, a Deployment reading it and a Service
// lands on every member in dependency order and rolls out; removing the
// Service from the set removes it from every member.
func TestAccFederatedApplication_landsInOrderAndPrunes(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-set", uniqueName("app-set")
	cleanupObjectTest(t, prefix, ns)
	all := []string{"san-francisco", "new-york", "berlin"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", true), ""),
				Check: resource.ComposeTestCheckFunc(
					checkRunning(t, ns, "nginx:1.27", all...),
					checkMemberField(t, "berlin", configMapsGVR, ns, "web-config", "blue", "data", "color"),
					checkMemberField(t, "new-york", servicesGVR, ns, "web", "web", "spec", "selector", "app"),
					resource.TestCheckResourceAttr("kubefed_federated_application.web", "objects.#", "4"),
					resource.TestCheckResourceAttr("kubefed_federated_application.web", "objects.0", "/v1/Namespace/"+ns),
					resource.TestCheckResourceAttr("kubefed_federated_application.web", "cluster_status."+prefix+"-berlin.apps/v1/Deployment/"+ns+"/web.status", "OK"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Import by name rebuilds the set from the host's records.
				ResourceName:            "kubefed_federated_application.web",
				ImportState:             true,
				ImportStateId:           prefix,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"manifests", "timeouts", "cluster_health"},
			},
			{
				Config: applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", false), ""),
				Check: resource.ComposeTestCheckFunc(
					checkMemberAbsent(t, "san-francisco", servicesGVR, ns, "web"),
					checkMemberAbsent(t, "new-york", servicesGVR, ns, "web"),
					checkMemberAbsent(t, "berlin", servicesGVR, ns, "web"),
					checkRunning(t, ns, "nginx:1.27", all...),
					resource.TestCheckResourceAttr("kubefed_federated_application.web", "objects.#", "3"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federated_application.web", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
		// The host namespace the provider created for the set's records goes
		// with them.
		CheckDestroy: checkHostNamespaceGone(t, ns),
	})
}

// An application is imported by its identity, its name, and create sets
// that identity.
func TestAccFederatedApplication_identity(t *testing.T) {
	skipWithoutIdentity(t)
	acctest.Lab(t)
	prefix, ns := "app-id", uniqueName("app-id")
	cleanupObjectTest(t, prefix, ns)
	config := applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", false), "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity("kubefed_federated_application.web", identityOf(map[string]string{"name": prefix})),
				},
			},
			{
				// Forgotten by the state, kept in the federation.
				Config: acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + objectTestClusters(t, prefix) + `
removed {
  from = kubefed_federated_application.web
  lifecycle {
    destroy = false
  }
}
`,
			},
			{
				Config: config + fmt.Sprintf(`
import {
  to       = kubefed_federated_application.web
  identity = { name = %q }
}
`, prefix),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity("kubefed_federated_application.web", identityOf(map[string]string{"name": prefix})),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// failDeploymentOnBerlin breaks the application's Deployment on berlin
// with the lab's failure switch.
func failDeploymentOnBerlin() string {
	return fmt.Sprintf(`  overrides = [{
    object  = { kind = "Deployment", name = "web" }
    cluster = kubefed_federation_cluster.berlin.name
    patches = [{ op = "add", path = "/spec/template/metadata/labels/%s", value = jsonencode("true") }]
  }]`, jsonPointerKey(lab.FailLabel))
}

func stagedStrategy(onFailure string) string {
	return fmt.Sprintf(`  rollout_strategy = { stages = [[kubefed_federation_cluster.berlin.name], ["*"]], on_failure = %q }
`, onFailure)
}

// A change of both the ConfigMap and the image, staged berlin first, with
// berlin made to fail: with "stop" the other clusters keep the old
// ConfigMap and image; with "rollback" berlin gets the old ones back; after
// the fix one apply converges and the next plan is empty.
func TestAccFederatedApplication_stagedStopAndRollback(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-stage", uniqueName("app-stage")
	cleanupObjectTest(t, prefix, ns)
	others := []string{"san-francisco", "new-york"}
	all := append([]string{"berlin"}, others...)
	config := func(color, image, extra string) string {
		return applicationConfig(t, prefix, appManifests(ns, color, image, false), extra)
	}
	checkColor := func(color string, members ...string) resource.TestCheckFunc {
		var checks []resource.TestCheckFunc
		for _, m := range members {
			checks = append(checks, checkMemberField(t, m, configMapsGVR, ns, "web-config", color, "data", "color"))
		}
		return resource.ComposeTestCheckFunc(checks...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("blue", "nginx:1.27", stagedStrategy("stop")),
				Check:  resource.ComposeTestCheckFunc(checkRunning(t, ns, "nginx:1.27", all...), checkColor("blue", all...)),
			},
			{
				Config:      config("green", "nginx:1.28", stagedStrategy("stop")+failDeploymentOnBerlin()),
				ExpectError: regexp.MustCompile(`(?s)berlin.*(rollout|Rollout)`),
			},
			{
				// Stopped after berlin: the others hold the old set.
				Config:             config("green", "nginx:1.28", stagedStrategy("stop")+failDeploymentOnBerlin()),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: checksAtPlan(checkColor("blue", others...), checkImage(t, ns, "nginx:1.27", others...),
					checkColor("green", "berlin")),
			},
			{
				Config: config("green", "nginx:1.28", stagedStrategy("rollback")),
				Check:  resource.ComposeTestCheckFunc(checkRunning(t, ns, "nginx:1.28", all...), checkColor("green", all...)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config:      config("red", "nginx:1.29", stagedStrategy("rollback")+failDeploymentOnBerlin()),
				ExpectError: regexp.MustCompile(`Rolled back after a failed stage`),
			},
			{
				// berlin has the set of before the failed apply again.
				Config:             config("red", "nginx:1.29", stagedStrategy("rollback")+failDeploymentOnBerlin()),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   checksAtPlan(checkColor("green", all...), checkImage(t, ns, "nginx:1.28", all...)),
			},
			{
				Config: config("red", "nginx:1.29", stagedStrategy("rollback")),
				Check:  resource.ComposeTestCheckFunc(checkRunning(t, ns, "nginx:1.29", all...), checkColor("red", all...)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// Malformed manifests fail at validate, naming the element and the object.
func TestAccFederatedApplication_validate(t *testing.T) {
	acctest.Lab(t)
	config := func(manifests string) string {
		return acctest.HostProviderConfig(t) + fmt.Sprintf(`
resource "kubefed_federated_application" "bad" {
  name      = "bad"
  manifests = %s
}
`, manifests)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(`[yamlencode({ apiVersion = "v1", kind = "ConfigMap" })]`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)manifests\[0\].*metadata.name`)},
			{Config: config(`["# only a comment\n---\n"]`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)manifests\[0\].*holds no object`)},
			{Config: config(`[yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "a", namespace = "x" } }),
                   yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "a", namespace = "x" } })]`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)manifests\[1\].*ConfigMap x/a.*the same\s+object as element 0`)},
			{Config: config(`[yamlencode({ apiVersion = "v1", kind = "Secret", metadata = { name = "s", namespace = "x" } })]`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`sensitive_manifests`)},
		},
	})
}

// An object a kubefed_federated_object manages is refused, at plan, to an
// application that lists it too, naming the owner.
func TestAccFederatedApplication_refusesAnotherOwnersObject(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "app-own", uniqueName("app-own")
	cleanupObjectTest(t, prefix, ns)
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "owned" {
  type      = kubefed_federated_type.configmaps.name
  template  = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "owned", namespace = %q }, data = { by = "object" } })
  placement = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				Config: base + fmt.Sprintf(`
resource "kubefed_federated_application" "taker" {
  name      = %q
  manifests = [yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "owned", namespace = %q }, data = { by = "app" } })]
  placement = { clusters = [kubefed_federation_cluster.sf.name] }
}
`, prefix, ns),
				ExpectError: regexp.MustCompile(`(?s)Object owned by another resource.*owned by a\s+kubefed_federated_object`),
			},
			{
				Config: base,
				Check:  checkMemberField(t, "san-francisco", configMapsGVR, ns, "owned", "object", "data", "by"),
			},
		},
	})
}
