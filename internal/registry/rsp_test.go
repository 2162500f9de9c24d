package registry

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestSchedulingPreferenceRoundTrip(t *testing.T) {
	two := int64(2)
	p := SchedulingPreference{
		Namespace: "shop", Name: "web", TargetKind: "FederatedDeployment", TotalReplicas: 9, Rebalance: true,
		IntersectWithClusterSelector: true,
		Clusters: map[string]ClusterPreference{
			"*":      {Weight: 2},
			"berlin": {MinReplicas: 1, MaxReplicas: &two, Weight: 1},
		},
		Strategy: "balanced", ReplicasPath: "/spec/replicas",
		ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
		Status: SchedulingStatus{
			Replicas:         map[string]int64{"berlin": 2, "new-york": 4},
			ExcludedClusters: map[string]string{"san-francisco": "ClusterNotReachable: down"},
		},
	}
	obj, err := schedulingPreferenceObject(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.Object["spec"].(map[string]any)["clusters"].(map[string]any)["berlin"]; !reflect.DeepEqual(got,
		map[string]any{"minReplicas": int64(1), "maxReplicas": int64(2), "weight": int64(1)}) {
		t.Errorf("KubeFed's field names: %v", got)
	}
	back, err := schedulingPreferenceFromObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*back, p) {
		t.Errorf("round trip\n got %+v\nwant %+v", *back, p)
	}
}

func TestSchedulingPreferenceFromKubeFedObject(t *testing.T) {
	// As KubeFed's sample writes it: numbers decoded from JSON, no
	// annotations, no status.
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "test-deployment", "namespace": "test-namespace"},
		"spec": map[string]any{
			"targetKind": "FederatedDeployment", "totalReplicas": float64(10), "rebalance": true,
			"clusters": map[string]any{"cluster1": map[string]any{"weight": float64(2)}, "cluster2": map[string]any{"weight": int64(3)}},
		},
	}}
	p, err := schedulingPreferenceFromObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	if p.TotalReplicas != 10 || !p.Rebalance || p.Clusters["cluster1"].Weight != 2 || p.Clusters["cluster2"].Weight != 3 ||
		p.Clusters["cluster1"].MaxReplicas != nil || p.Strategy != "" || p.ClusterSelector != nil || p.Status.Replicas != nil {
		t.Fatalf("unexpected %+v", p)
	}
}

func TestSchedulingPreferenceBadSelectorAnnotation(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "w", "namespace": "n", "annotations": map[string]any{AnnotationClusterSelector: "{"}},
	}}
	if _, err := schedulingPreferenceFromObject(obj); err == nil {
		t.Fatal("a broken selector annotation is an error")
	}
}
