package capacity

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// PodSpecOf decodes the pod template of a workload held as an unstructured
// object (spec.template.spec, as in Deployments, ReplicaSets, StatefulSets
// and Jobs). found is false when the object has no pod template.
func PodSpecOf(workload map[string]any) (spec corev1.PodSpec, found bool, err error) {
	raw, found, err := unstructured.NestedMap(workload, "spec", "template", "spec")
	if err != nil || !found {
		return spec, found, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &spec); err != nil {
		return spec, true, fmt.Errorf("spec.template.spec is not a pod spec: %w", err)
	}
	return spec, true, nil
}
