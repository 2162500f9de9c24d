package propagation

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestUnmanaged(t *testing.T) {
	configmaps := schema.GroupResource{Resource: "configmaps"}
	endpoints := schema.GroupResource{Resource: "endpoints"}
	meta := func(m map[string]any) map[string]any { return map[string]any{"metadata": m} }
	tests := []struct {
		name     string
		resource schema.GroupResource
		obj      map[string]any
		want     bool
	}{
		{"a ConfigMap someone put there", configmaps, meta(map[string]any{"name": "settings"}), true},
		{"the root CA every namespace gets", configmaps, meta(map[string]any{"name": "kube-root-ca.crt"}), false},
		{"the default ServiceAccount", schema.GroupResource{Resource: "serviceaccounts"}, meta(map[string]any{"name": "default"}), false},
		{"another ServiceAccount", schema.GroupResource{Resource: "serviceaccounts"}, meta(map[string]any{"name": "app"}), true},
		{"federated", configmaps, meta(map[string]any{"name": "a", "labels": map[string]any{"kubefed.io/managed": "true"}}), false},
		{"owned by a Deployment's ReplicaSet", schema.GroupResource{Resource: "pods"},
			meta(map[string]any{"name": "web-1", "ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u"}}}), false},
		{"being deleted", configmaps, meta(map[string]any{"name": "old", "deletionTimestamp": "2026-01-01T00:00:00Z"}), false},
		{"a Service's Endpoints", endpoints, meta(map[string]any{"name": "web", "labels": map[string]any{endpointsControllerLabel: "true"}}), false},
		{"Endpoints written by hand", endpoints, meta(map[string]any{"name": "external"}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unmanaged(tt.resource, tt.obj); got != tt.want {
				t.Fatalf("Unmanaged = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGiveBackPatch(t *testing.T) {
	ours := map[string]any{"manager": "kubefed-terraform", "operation": "Apply"}
	theirs := map[string]any{"manager": "kubectl-client-side-apply", "operation": "Update"}
	tests := []struct {
		name        string
		managers    []any
		wantEntries string
	}{
		{"another manager keeps its entry", []any{theirs, ours}, `[{"manager":"kubectl-client-side-apply","operation":"Update"}]`},
		{"only ours: all cleared", []any{ours}, `[{}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := map[string]any{"metadata": map[string]any{"name": "a", "resourceVersion": "42", "managedFields": tt.managers}}
			raw, err := giveBackPatch(obj, "kubefed-terraform")
			if err != nil {
				t.Fatal(err)
			}
			var patch struct {
				Metadata struct {
					ResourceVersion string          `json:"resourceVersion"`
					Labels          map[string]any  `json:"labels"`
					Annotations     map[string]any  `json:"annotations"`
					ManagedFields   json.RawMessage `json:"managedFields"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(raw, &patch); err != nil {
				t.Fatal(err)
			}
			m := patch.Metadata
			if m.ResourceVersion != "42" || string(m.ManagedFields) != tt.wantEntries {
				t.Fatalf("patch %s: want resourceVersion 42 and managedFields %s", raw, tt.wantEntries)
			}
			if v, ok := m.Labels["kubefed.io/managed"]; !ok || v != nil {
				t.Fatalf("patch %s does not remove the managed label", raw)
			}
			if v, ok := m.Annotations["kubefed.terraform.io/adopted"]; !ok || v != nil {
				t.Fatalf("patch %s does not remove the adopted mark", raw)
			}
		})
	}
}
