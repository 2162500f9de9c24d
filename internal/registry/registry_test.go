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
			crd := FederatedCRD(ft.Federated)
			if crd.GetName() != tt.wantPlural+".types.kubefed.io" {
				t.Errorf("CRD name %s", crd.GetName())
			}
		})
	}
}

func TestSnapshotSeesPlannedClusters(t *testing.T) {
	s := NewSnapshot([]Cluster{
		{Name: "berlin", Labels: map[string]string{"region": "eu"}, Health: ClusterHealth{Ready: true}},
		{Name: "paris", Labels: map[string]string{"region": "eu"}},
	})
	s.PlanCluster("tokyo", map[string]string{"region": "ap"}, true)
	s.PlanCluster("berlin", map[string]string{"region": "eu-central"}, true)
	s.PlanRemoval("paris")
	s.PlanCluster("later", nil, false)

	var names []string
	for _, c := range s.Clusters() {
		names = append(names, c.Name)
	}
	if got := len(names); got != 3 || names[0] != "berlin" || names[1] != "later" || names[2] != "tokyo" {
		t.Fatalf("clusters %v, want berlin, later, tokyo", names)
	}
	berlin, _ := s.Cluster("berlin")
	if !berlin.Planned || berlin.Labels["region"] != "eu-central" || !berlin.Health.Ready {
		t.Errorf("berlin %+v: want planned labels and its last health", berlin)
	}
	later, _ := s.Cluster("later")
	if later.LabelsKnown {
		t.Errorf("labels of a cluster planned with unknown labels are known")
	}
	s.Applied(Cluster{Name: "tokyo", Labels: map[string]string{"region": "ap"}, Health: ClusterHealth{Ready: true}})
	if tokyo, _ := s.Cluster("tokyo"); tokyo.Planned || !tokyo.Health.Ready || !tokyo.InRun {
		t.Errorf("tokyo after apply %+v: want applied in this run", tokyo)
	}
	if berlin, _ := s.Cluster("berlin"); !berlin.InRun {
		t.Error("berlin, planned in this run, is not marked so")
	}
	if got := s.Names(); len(got) != 3 || got[0] != "berlin" || got[2] != "tokyo" {
		t.Errorf("names %v", got)
	}
	fresh := NewSnapshot([]Cluster{{Name: "oslo"}})
	if oslo, _ := fresh.Cluster("oslo"); oslo.InRun {
		t.Error("a cluster read from the host is marked as part of the run")
	}
}

func TestConnectionTLSSettings(t *testing.T) {
	base := Connection{APIEndpoint: "https://127.0.0.1:6443", CABundle: []byte("ca"), Token: "t"}

	all := base
	all.DisabledTLSValidations = []string{TLSAll}
	cfg, err := all.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Insecure || cfg.CAData != nil {
		t.Errorf(`"*" must turn verification off and drop the CA: %+v`, cfg.TLSClientConfig)
	}

	cfg, err = base.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Insecure || string(cfg.CAData) != "ca" || cfg.BearerToken != "t" {
		t.Errorf("default settings lost: %+v", cfg)
	}
}
