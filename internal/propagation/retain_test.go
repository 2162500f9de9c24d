package propagation

import (
	"context"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

func TestKeepReplicas(t *testing.T) {
	o := Object{Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespace: "default", Name: "web"}
	ownsReplicas := func(manager string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply,
			FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:replicas":{}}}`)}
	}
	payload := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"paused":false}}`
	tests := []struct {
		name         string
		live         *unstructured.Unstructured
		wantReplicas any
	}{
		{name: "replicas only this provider set are sent once more", live: scaledDeployment(5, ownsReplicas("kubefed")), wantReplicas: float64(5)},
		{name: "replicas an autoscaler owns too are left to it", live: scaledDeployment(5, ownsReplicas("kubefed"), ownsReplicas("autoscaler"))},
		{name: "replicas only another manager set are left to it", live: scaledDeployment(5, ownsReplicas("autoscaler"))},
		{name: "no object on the member: nothing to keep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var objects []runtime.Object
			if tt.live != nil {
				objects = append(objects, tt.live)
			}
			m := Member{Name: "berlin", Clients: &kube.Clients{Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), objects...)}}
			got, err := KeepReplicas(context.Background(), m, o, []byte(payload), "kubefed")
			if err != nil {
				t.Fatal(err)
			}
			var obj map[string]any
			if err := json.Unmarshal(got, &obj); err != nil {
				t.Fatal(err)
			}
			spec, _ := obj["spec"].(map[string]any)
			if spec["replicas"] != tt.wantReplicas || spec["paused"] != false {
				t.Errorf("sent spec %v, want replicas %v and the rest of the payload", spec, tt.wantReplicas)
			}
		})
	}
}

func scaledDeployment(replicas int64, owners ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "default"}, "spec": map[string]any{"replicas": replicas}}}
	u.SetManagedFields(owners)
	return u
}
