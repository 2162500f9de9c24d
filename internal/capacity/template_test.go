package capacity

import (
	"testing"
)

func TestPodSpecOf(t *testing.T) {
	deployment := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"spec": map[string]any{"replicas": int64(3), "template": map[string]any{"spec": map[string]any{
			"nodeSelector": map[string]any{"pool": "web"},
			"containers": []any{map[string]any{"name": "app", "image": "nginx",
				"resources": map[string]any{"requests": map[string]any{"cpu": "250m", "memory": "64Mi"}}}},
		}}},
	}
	spec, found, err := PodSpecOf(deployment)
	if err != nil || !found {
		t.Fatalf("PodSpecOf = found %v, %v", found, err)
	}
	if got := RequestsFromPodSpec(spec); !sameList(got, list("cpu", "250m", "memory", "64Mi")) || spec.NodeSelector["pool"] != "web" {
		t.Fatalf("decoded spec %+v, requests %v", spec, got)
	}

	if _, found, err := PodSpecOf(map[string]any{"kind": "ConfigMap", "data": map[string]any{}}); found || err != nil {
		t.Fatalf("an object without a pod template: found %v, %v", found, err)
	}
	broken := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": "app"}}}}
	if _, found, err := PodSpecOf(broken); !found || err == nil {
		t.Fatalf("a malformed pod spec: found %v, %v; want found and an error", found, err)
	}
}
