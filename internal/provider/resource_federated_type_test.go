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
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// A cluster-scoped CRD of the test's own, served by the host.
var widgetCRD = map[string]any{
	"apiVersion": "apiextensions.k8s.io/v1",
	"kind":       "CustomResourceDefinition",
	"metadata":   map[string]any{"name": "widgets.regtest.example.com"},
	"spec": map[string]any{
		"group": "regtest.example.com",
		"names": map[string]any{"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
		"scope": "Cluster",
		"versions": []any{map[string]any{
			"name": "v1alpha1", "served": true, "storage": true,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
		}},
	},
}

const federatedTypesConfig = `
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
  status_collection  = "Enabled"
}

resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}

resource "kubefed_federated_type" "widgets" {
  target_api_version = "regtest.example.com/v1alpha1"
  target_kind        = "Widget"
  propagation        = "Disabled"
}

# Served by the members only: the host cannot resolve it, so plural and scope are given.
resource "kubefed_federated_type" "gadgets" {
  target_api_version = "members.example.com/v1"
  target_kind        = "Gadget"
  target_plural      = "gadgets"
  namespaced         = true
}
`

func TestAccFederatedType_enable(t *testing.T) {
	acctest.Lab(t)
	host := newHostClients(t)
	ctx := context.Background()
	if _, err := host.dynamic.Resource(crds).Apply(ctx, "widgets.regtest.example.com",
		&unstructured.Unstructured{Object: widgetCRD}, metav1.ApplyOptions{FieldManager: "regtest", Force: true}); err != nil {
		t.Fatal(err)
	}
	waitServed(t, host, schema.GroupVersionResource{Group: "regtest.example.com", Version: "v1alpha1", Resource: "widgets"})
	federatedConfigMaps := schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federatedconfigmaps"}
	t.Cleanup(func() {
		_ = host.dynamic.Resource(federatedConfigMaps).Namespace("default").Delete(ctx, "regtest-leftover", metav1.DeleteOptions{})
		for _, name := range []string{"deployments.apps", "configmaps", "namespaces", "widgets.regtest.example.com", "gadgets.members.example.com"} {
			_ = host.dynamic.Resource(federatedTypeConfigs).Namespace(federationNamespace).Delete(ctx, name, metav1.DeleteOptions{})
		}
		for _, name := range []string{"federateddeployments", "federatedconfigmaps", "federatednamespaces", "federatedwidgets", "federatedgadgets", "widgets.regtest.example.com"} {
			if name[len(name)-1] == 's' {
				name += ".types.kubefed.io"
			}
			_ = host.dynamic.Resource(crds).Delete(ctx, name, metav1.DeleteOptions{})
		}
	})

	config := acctest.HostProviderConfig(t) + federatedTypesConfig
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					// Discovery resolves the names at plan time.
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kubefed_federated_type.deployments", tfjsonpath.New("name"), knownvalue.StringExact("deployments.apps")),
						plancheck.ExpectKnownValue("kubefed_federated_type.deployments", tfjsonpath.New("namespaced"), knownvalue.Bool(true)),
						plancheck.ExpectKnownValue("kubefed_federated_type.configmaps", tfjsonpath.New("name"), knownvalue.StringExact("configmaps")),
						plancheck.ExpectKnownValue("kubefed_federated_type.widgets", tfjsonpath.New("namespaced"), knownvalue.Bool(false)),
						plancheck.ExpectKnownValue("kubefed_federated_type.gadgets", tfjsonpath.New("federated_kind"), knownvalue.StringExact("FederatedGadget")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federated_type.deployments", tfjsonpath.New("federated_api_version"), knownvalue.StringExact("types.kubefed.io/v1beta1")),
					statecheck.ExpectKnownValue("kubefed_federated_type.deployments", tfjsonpath.New("federated_kind"), knownvalue.StringExact("FederatedDeployment")),
					statecheck.ExpectKnownValue("kubefed_federated_type.deployments", tfjsonpath.New("plural"), knownvalue.StringExact("deployments")),
					statecheck.ExpectKnownValue("kubefed_federated_type.deployments", tfjsonpath.New("propagation"), knownvalue.StringExact("Enabled")),
					statecheck.ExpectKnownValue("kubefed_federated_type.namespaces", tfjsonpath.New("name"), knownvalue.StringExact("namespaces")),
					statecheck.ExpectKnownValue("kubefed_federated_type.namespaces", tfjsonpath.New("namespaced"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("kubefed_federated_type.widgets", tfjsonpath.New("name"), knownvalue.StringExact("widgets.regtest.example.com")),
					statecheck.ExpectKnownValue("kubefed_federated_type.gadgets", tfjsonpath.New("name"), knownvalue.StringExact("gadgets.members.example.com")),
				},
				Check: resource.ComposeTestCheckFunc(
					checkTypeConfig(host, "deployments.apps",
						map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "pluralName": "deployments", "scope": "Namespaced"},
						map[string]any{"group": "types.kubefed.io", "version": "v1beta1", "kind": "FederatedDeployment", "pluralName": "federateddeployments", "scope": "Namespaced"},
						"Enabled", "Disabled"),
					checkTypeConfig(host, "configmaps",
						map[string]any{"version": "v1", "kind": "ConfigMap", "pluralName": "configmaps", "scope": "Namespaced"},
						map[string]any{"group": "types.kubefed.io", "version": "v1beta1", "kind": "FederatedConfigMap", "pluralName": "federatedconfigmaps", "scope": "Namespaced"},
						"Enabled", "Enabled"),
					checkTypeConfig(host, "namespaces",
						map[string]any{"version": "v1", "kind": "Namespace", "pluralName": "namespaces", "scope": "Cluster"},
						map[string]any{"group": "types.kubefed.io", "version": "v1beta1", "kind": "FederatedNamespace", "pluralName": "federatednamespaces", "scope": "Namespaced"},
						"Enabled", "Disabled"),
					checkTypeConfig(host, "widgets.regtest.example.com",
						map[string]any{"group": "regtest.example.com", "version": "v1alpha1", "kind": "Widget", "pluralName": "widgets", "scope": "Cluster"},
						map[string]any{"group": "types.kubefed.io", "version": "v1beta1", "kind": "FederatedWidget", "pluralName": "federatedwidgets", "scope": "Cluster"},
						"Disabled", "Disabled"),
					checkFederatedCRD(host, "federateddeployments.types.kubefed.io", "FederatedDeployment", "Namespaced"),
					checkFederatedCRD(host, "federatednamespaces.types.kubefed.io", "FederatedNamespace", "Namespaced"),
					checkFederatedCRD(host, "federatedwidgets.types.kubefed.io", "FederatedWidget", "Cluster"),
					checkFederatedCRD(host, "federatedgadgets.types.kubefed.io", "FederatedGadget", "Namespaced"),
				),
			},
			{
				ResourceName:      "kubefed_federated_type.deployments",
				ImportState:       true,
				ImportStateId:     "deployments.apps",
				ImportStateVerify: true,
			},
			{
				ResourceName:      "kubefed_federated_type.namespaces",
				ImportState:       true,
				ImportStateId:     "namespaces",
				ImportStateVerify: true,
			},
			{
				// A FederatedConfigMap remains: destroying its type must fail
				// and leave the type in place.
				PreConfig: func() {
					obj := &unstructured.Unstructured{Object: map[string]any{
						"apiVersion": "types.kubefed.io/v1beta1", "kind": "FederatedConfigMap",
						"metadata": map[string]any{"name": "regtest-leftover", "namespace": "default"},
						"spec":     map[string]any{"template": map[string]any{"data": map[string]any{"k": "v"}}},
					}}
					if _, err := host.dynamic.Resource(federatedConfigMaps).Namespace("default").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
						t.Fatalf("creating a FederatedConfigMap: %v", err)
					}
				},
				Config:      acctest.HostProviderConfig(t) + removeBlock(federatedTypesConfig, "configmaps"),
				ExpectError: regexp.MustCompile(`(?s)1 FederatedConfigMap object\(s\) remain in the host\s+\(default/regtest-leftover\)`),
				Check:       checkExists(host, federatedTypeConfigs, federationNamespace, "configmaps"),
			},
			{
				PreConfig: func() {
					if err := host.dynamic.Resource(federatedConfigMaps).Namespace("default").Delete(ctx, "regtest-leftover", metav1.DeleteOptions{}); err != nil {
						t.Fatalf("deleting the FederatedConfigMap: %v", err)
					}
				},
				Config: acctest.HostProviderConfig(t) + removeBlock(federatedTypesConfig, "configmaps"),
				Check: func(*terraform.State) error {
					if _, err := host.get(federatedTypeConfigs, federationNamespace, "configmaps"); !apierrors.IsNotFound(err) {
						return fmt.Errorf("FederatedTypeConfig configmaps still exists (err %w)", err)
					}
					if _, err := host.get(crds, "", "federatedconfigmaps.types.kubefed.io"); !apierrors.IsNotFound(err) {
						return fmt.Errorf("CRD federatedconfigmaps still exists (err %w)", err)
					}
					return nil
				},
			},
		},
	})
}

func TestAccFederatedType_unresolvable(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.HostProviderConfig(t) + `
resource "kubefed_federated_type" "nope" {
  target_api_version = "members.example.com/v1"
  target_kind        = "Gadget"
}
`,
			ExpectError: regexp.MustCompile(`(?s)the host does not serve kind Gadget in members.example.com/v1.*set\s+target_plural\s+and\s+namespaced`),
		}},
	})
}

// removeBlock drops the resource block of the named federated type.
func removeBlock(config, name string) string {
	re := regexp.MustCompile(`(?s)resource "kubefed_federated_type" "` + name + `" \{.*?\n\}\n`)
	return re.ReplaceAllString(config, "")
}

func checkTypeConfig(host hostClients, name string, target, federated map[string]any, propagation, statusCollection string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := host.get(federatedTypeConfigs, federationNamespace, name)
		if err != nil {
			return err
		}
		for field, want := range map[string]any{
			"targetType": target, "federatedType": federated, "propagation": propagation, "statusCollection": statusCollection,
		} {
			if got := nested(obj, "spec", field); fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Errorf("FederatedTypeConfig %s: spec.%s = %v, want %v", name, field, got, want)
			}
		}
		return nil
	}
}

func checkFederatedCRD(host hostClients, name, kind, scope string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := host.get(crds, "", name)
		if err != nil {
			return err
		}
		if got := nested(obj, "spec", "names", "kind"); got != kind {
			return fmt.Errorf("CRD %s: kind %v, want %s", name, got, kind)
		}
		if got := nested(obj, "spec", "scope"); got != scope {
			return fmt.Errorf("CRD %s: scope %v, want %s", name, got, scope)
		}
		versions, _ := nested(obj, "spec", "versions").([]any)
		props := versions[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
		for _, field := range []string{"template", "placement", "overrides"} {
			if _, ok := props[field]; !ok {
				return fmt.Errorf("CRD %s: spec has no %s", name, field)
			}
		}
		if props["template"].(map[string]any)["x-kubernetes-preserve-unknown-fields"] != true {
			return fmt.Errorf("CRD %s: the template does not keep unknown fields", name)
		}
		return nil
	}
}

func checkExists(host hostClients, gvr schema.GroupVersionResource, namespace, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := host.get(gvr, namespace, name)
		return err
	}
}

func waitServed(t *testing.T, host hostClients, gvr schema.GroupVersionResource) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := host.dynamic.Resource(gvr).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("%s is not served: %v", gvr, err)
	}
}
