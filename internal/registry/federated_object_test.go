package registry

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

func TestFederatedObjectRoundTripKeepsRuleOrder(t *testing.T) {
	ft := NewFederatedType(APIResource{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Namespaced: true}, Enabled, Disabled)
	obj := FederatedObject{
		Namespace: "web", Name: "web",
		Template:  map[string]any{"spec": map[string]any{"replicas": int64(2)}},
		Placement: federation.Placement{Clusters: []string{"a", "b"}, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}},
		Overrides: []federation.OverrideRule{
			{Cluster: "a", Patches: []federation.Patch{{Path: "/spec/replicas", Value: "5"}}},
			{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: "In", Values: []string{"eu"}}}},
				Patches: []federation.Patch{{Op: "add", Path: "/metadata/annotations", Value: `{"x":"y"}`}}},
			{Cluster: "b", Patches: []federation.Patch{{Op: "remove", Path: "/spec/replicas"}}},
		},
		Orphan: true,
		Status: map[string]string{"a": "OK"},
	}
	u, err := federatedObjectToUnstructured(ft, obj)
	if err != nil {
		t.Fatal(err)
	}
	if u.GetKind() != "FederatedDeployment" || u.GetAPIVersion() != "types.kubefed.io/v1beta1" {
		t.Errorf("got %s %s", u.GetAPIVersion(), u.GetKind())
	}
	// KubeFed sees only the rules that target clusters by name.
	overrides := u.Object["spec"].(map[string]any)["overrides"].([]any)
	if len(overrides) != 2 {
		t.Fatalf("spec.overrides has %d rules, want the 2 name-targeted ones", len(overrides))
	}
	u.Object["status"] = map[string]any{"clusters": []any{map[string]any{"name": "a", "status": "OK"}}}
	back, err := federatedObjectFromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, &obj) {
		t.Errorf("round trip:\n got %#v\nwant %#v", back, &obj)
	}
}

func TestFederatedObjectReadsKubeFedSample(t *testing.T) {
	sample := `
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: test-deployment, namespace: test-namespace}
spec:
  template:
    spec: {replicas: 3}
  placement:
    clusters: [{name: cluster2}, {name: cluster1}]
  overrides:
  - clusterName: cluster2
    clusterOverrides:
    - path: "/spec/replicas"
      value: 5
    - path: "/metadata/annotations"
      op: "add"
      value: {foo: bar}
`
	var m map[string]any
	if err := yaml.Unmarshal([]byte(sample), &m); err != nil {
		t.Fatal(err)
	}
	obj, err := federatedObjectFromUnstructured(&unstructured.Unstructured{Object: m})
	if err != nil {
		t.Fatal(err)
	}
	want := []federation.OverrideRule{{Cluster: "cluster2", Patches: []federation.Patch{
		{Path: "/spec/replicas", Value: "5"},
		{Op: "add", Path: "/metadata/annotations", Value: `{"foo":"bar"}`},
	}}}
	if !reflect.DeepEqual(obj.Overrides, want) {
		t.Errorf("overrides: got %#v, want %#v", obj.Overrides, want)
	}
	if !reflect.DeepEqual(obj.Placement.Clusters, []string{"cluster2", "cluster1"}) || obj.Placement.Selector != nil {
		t.Errorf("placement: got %#v", obj.Placement)
	}
}

func TestFederatedObjectRoundTripKeepsAnEmptyListOfClusters(t *testing.T) {
	ft := NewFederatedType(APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}, Enabled, Disabled)
	for name, placement := range map[string]federation.Placement{
		"no cluster listed": {Clusters: []string{}},
		"no placement":      {},
	} {
		t.Run(name, func(t *testing.T) {
			u, err := federatedObjectToUnstructured(ft, FederatedObject{Namespace: "web", Name: "web", Placement: placement})
			if err != nil {
				t.Fatal(err)
			}
			back, err := federatedObjectFromUnstructured(u)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.Placement, placement) {
				t.Errorf("placement %#v reads back as %#v", placement, back.Placement)
			}
		})
	}
}
