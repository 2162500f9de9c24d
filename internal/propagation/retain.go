package propagation

import (
	"context"
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// KeepReplicas is what an apply that leaves spec.replicas to the member
// (retain_replicas) sends: payload, with the live replica count once more
// when only fieldManager owns it. Server-side apply drops a field whose
// only owner stops setting it, so such an object would fall back to one
// replica the first time. When anyone else owns the field too (an
// autoscaler through the scale subresource), or it is unset, payload goes
// as it is.
func KeepReplicas(ctx context.Context, m Member, o Object, payload []byte, fieldManager string) ([]byte, error) {
	replicas, keep, err := replicasToKeep(ctx, m, o, fieldManager)
	if err != nil {
		return nil, err
	}
	if !keep {
		return payload, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(payload, &obj); err != nil {
		return nil, err
	}
	if err := unstructured.SetNestedField(obj, replicas, "spec", "replicas"); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// replicasToKeep is the member's replica count, and whether fieldManager
// alone owns it.
func replicasToKeep(ctx context.Context, m Member, o Object, fieldManager string) (replicas int64, keep bool, err error) {
	live, found, err := Get(ctx, m, o)
	if err != nil || !found {
		return 0, false, err
	}
	replicas, set, _ := unstructured.NestedInt64(live, "spec", "replicas")
	if !set {
		return 0, false, nil
	}
	u := unstructured.Unstructured{Object: live}
	path := fieldpath.MakePathOrDie("spec", "replicas")
	owners := map[string]bool{}
	for _, e := range u.GetManagedFields() {
		if e.FieldsV1 == nil {
			continue
		}
		var owned fieldpath.Set
		if err := owned.FromJSON(e.FieldsV1.GetRawReader()); err == nil && owned.Has(path) {
			owners[e.Manager] = true
		}
	}
	return replicas, len(owners) == 1 && owners[fieldManager], nil
}
