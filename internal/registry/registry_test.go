package registry

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCoreCRDsDescribeKubeFedTypes(t *testing.T) {
	crds, err := CoreCRDs()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"kubefedclusters.core.kubefed.io":                    "KubeFedCluster",
		"federatedtypeconfigs.core.kubefed.io":               "FederatedTypeConfig",
		"replicaschedulingpreferences.scheduling.kubefed.io": "ReplicaSchedulingPreference",
	}
	if len(crds) != len(want) {
		t.Fatalf("got %d CRDs, want %d", len(crds), len(want))
	}
	for _, crd := range crds {
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		if want[crd.GetName()] != kind {
			t.Errorf("CRD %s has kind %q, want %q", crd.GetName(), kind, want[crd.GetName()])
		}
	}
	// The YAML anchor shares one schema among the FTC's API resources.
	ftc := crds[1]
	versions, _, _ := unstructured.NestedSlice(ftc.Object, "spec", "versions")
	spec := versions[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)
	federated, _, _ := unstructured.NestedStringSlice(spec, "properties", "federatedType", "required")
	if len(federated) != 4 {
		t.Errorf("federatedType requires %v, want kind, pluralName, scope and version", federated)
	}
}

func TestNewFederatedTypeFollowsKubeFedNaming(t *testing.T) {
	tests := []struct {
		name                    string
		target                  APIResource
		wantConfig, wantKind    string
		wantPlural              string
		wantFederatedNamespaced bool
	}{
		{"namespaced in a group", APIResource{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Namespaced: true},
			"deployments.apps", "FederatedDeployment", "federateddeployments", true},
		{"core group", APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true},
			"configmaps", "FederatedConfigMap", "federatedconfigmaps", true},
		{"namespaces stay namespaced", APIResource{Version: "v1", Kind: "Namespace", Plural: "namespaces"},
			"namespaces", "FederatedNamespace", "federatednamespaces", true},
		{"cluster-scoped", APIResource{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Plural: "clusterroles"},
			"clusterroles.rbac.authorization.k8s.io", "FederatedClusterRole", "federatedclusterroles", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft := NewFederatedType(tt.target, Enabled, Disabled)
			if ft.Name() != tt.wantConfig || ft.Federated.Kind != tt.wantKind || ft.Federated.Plural != tt.wantPlural ||
				ft.Federated.Namespaced != tt.wantFederatedNamespaced || ft.Federated.APIVersion() != "types.kubefed.io/v1beta1" {
				t.Errorf("got %s %+v", ft.Name(), ft.Federated)
			}
			crd, err := FederatedCRD(ft.Federated)
			if err != nil {
				t.Fatal(err)
			}
			if scope := crd.Object["spec"].(map[string]any)["scope"]; scope != map[bool]string{true: "Namespaced", false: "Cluster"}[ft.Federated.Namespaced] {
				t.Errorf("CRD scope %v for namespaced=%v", scope, ft.Federated.Namespaced)
			}
			if crd.GetName() != tt.wantPlural+".types.kubefed.io" {
				t.Errorf("CRD name %s", crd.GetName())
			}
		})
	}
}
