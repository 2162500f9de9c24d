package provider_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// skipWithoutIdentity skips a test of resource identity on a CLI that has
// none: identity in state and in import blocks came with Terraform 1.12 and
// OpenTofu 1.12.
func skipWithoutIdentity(t *testing.T) {
	t.Helper()
	acctest.Lab(t)
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if major, minor := cliVersion(t, cli); major == 1 && minor < 12 {
		t.Skipf("%s is %d.%d: resource identity needs Terraform or OpenTofu 1.12 or later", cli, major, minor)
	}
}

// identityImportBlocks take a KubeFed installation over by identity.
func (k kubeFedInstallation) identityImportBlocks() string {
	return fmt.Sprintf(`
import {
  to       = kubefed_federation_cluster.sf
  identity = { name = "%[1]s-sf" }
}

import {
  to       = kubefed_federation_cluster.berlin
  identity = { name = "%[1]s-berlin" }
}

import {
  to       = kubefed_federated_type.deployments
  identity = { name = "deployments.apps" }
}

import {
  to       = kubefed_federated_object.web
  identity = { type = "deployments.apps", namespace = %[2]q, name = "web" }
}
`, k.prefix, k.namespace)
}

// identityOf are the checks of an identity's string attributes.
func identityOf(values map[string]string) map[string]knownvalue.Check {
	checks := map[string]knownvalue.Check{}
	for name, v := range values {
		checks[name] = knownvalue.StringExact(v)
	}
	return checks
}

// What KubeFed ran is taken over by import blocks that give identities
// instead of IDs, as it is by IDs: the plan imports everything and changes
// only the template's annotations, apply makes that change, the state holds
// each resource's identity and the next plan is empty.
func TestAccMigration_fromKubeFedByIdentity(t *testing.T) {
	skipWithoutIdentity(t)
	k := writeKubeFedInstallation(t, "migid")
	prefix, ns := k.prefix, k.namespace
	config := k.resources(t) + k.identityImportBlocks()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kubefed_federation_cluster.sf", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("kubefed_federation_cluster.berlin", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("kubefed_federated_type.deployments", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("kubefed_federated_object.web", plancheck.ResourceActionUpdate),
					onlyAnnotationsChange{address: "kubefed_federated_object.web", clusters: []string{prefix + "-sf", prefix + "-berlin"},
						added: map[string]any{"team": "web"}},
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity("kubefed_federation_cluster.sf", identityOf(map[string]string{"name": prefix + "-sf"})),
				statecheck.ExpectIdentity("kubefed_federation_cluster.berlin", identityOf(map[string]string{"name": prefix + "-berlin"})),
				statecheck.ExpectIdentity("kubefed_federated_type.deployments", identityOf(map[string]string{"name": "deployments.apps"})),
				statecheck.ExpectIdentity("kubefed_federated_object.web",
					identityOf(map[string]string{"type": "deployments.apps", "namespace": ns, "name": "web"})),
				statecheck.ExpectKnownValue("kubefed_federated_object.web", tfjsonpath.New("id"),
					knownvalue.StringExact("deployments.apps/"+ns+"/web")),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				checkMemberField(t, "san-francisco", deploymentsGVR, ns, "web", "web", "metadata", "annotations", "team"),
				checkMemberField(t, "berlin", deploymentsGVR, ns, "web", 1, "spec", "replicas"),
			),
		}},
	})
}

// A preference KubeFed wrote is imported by its identity.
func TestAccReplicaSchedulingPreference_importByIdentity(t *testing.T) {
	skipWithoutIdentity(t)
	acctest.Lab(t)
	host := newHostClients(t)
	namespace := uniqueName("rsp-identity")
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
import {
  to       = kubefed_replica_scheduling_preference.web
  identity = { namespace = %[1]q, name = "web" }
}

resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = %[1]q
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
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity(rsp, identityOf(map[string]string{"namespace": namespace, "name": "web"})),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("id"), knownvalue.StringExact(namespace+"/web")),
					statecheck.ExpectKnownValue(rsp, tfjsonpath.New("total_replicas"), knownvalue.Int64Exact(10)),
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

// A preference the provider created is imported by its identity into a
// fresh state with the same configuration, and the plan is empty.
func TestAccReplicaSchedulingPreference_importByIdentityIntoFreshState(t *testing.T) {
	skipWithoutIdentity(t)
	const prefix = "rspfi"
	namespace := uniqueName("rspfi")
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, prefix+"-sf", prefix+"-ny", prefix+"-berlin") })
	config := rspConfig(t, prefix, namespace, `  clusters = { "*" = { weight = 1 } }`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				Config:           providerSource + config,
				ResourceName:     "kubefed_replica_scheduling_preference.web",
				ImportState:      true,
				ImportStateKind:  resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// Create sets each resource's identity, and the plan after it is empty.
func TestAccIdentity_setOnCreate(t *testing.T) {
	skipWithoutIdentity(t)
	const prefix = "idc"
	ns := uniqueName("idc")
	cleanupObjectTest(t, prefix, ns)
	config := acctest.HostProviderConfig(t) + memberBlock("berlin", prefix+"-berlin", "berlin", "")(t) + fmt.Sprintf(`
resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
}

resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_object" "settings" {
  type = kubefed_federated_type.configmaps.name
  template = yamlencode({
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "settings", namespace = "default" }
    data       = { LOG_LEVEL = "info" }
  })
  placement  = { clusters = [kubefed_federation_cluster.berlin.name] }
}

resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = %[1]q
  name           = "web"
  total_replicas = 3
  clusters       = { %[2]q = { weight = 1 } }
  depends_on     = [kubefed_federated_type.deployments, kubefed_federation_cluster.berlin]
}
`, ns, prefix+"-berlin")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity("kubefed_federation_cluster.berlin", identityOf(map[string]string{"name": prefix + "-berlin"})),
				statecheck.ExpectIdentity("kubefed_federated_type.configmaps", identityOf(map[string]string{"name": "configmaps"})),
				statecheck.ExpectIdentity("kubefed_federated_object.settings",
					identityOf(map[string]string{"type": "configmaps", "namespace": "default", "name": "settings"})),
				statecheck.ExpectIdentity("kubefed_replica_scheduling_preference.web", identityOf(map[string]string{"namespace": ns, "name": "web"})),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		}},
	})
}
