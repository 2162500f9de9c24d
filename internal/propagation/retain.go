package propagation

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// ReplicasToKeep is the replica count an apply that leaves spec.replicas
// to the member (retain_replicas) must send once more: server-side apply
// drops a field whose only owner stops setting it, so an object whose
// replicas only this field manager set would fall back to one replica the
// first time. When anyone else owns the field too (an autoscaler through
// the scale subresource), or it is unset, nothing is sent: keep is false.
func ReplicasToKeep(ctx context.Context, m Member, o Object, fieldManager string) (replicas int64, keep bool, err error) {
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
