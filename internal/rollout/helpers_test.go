package rollout

import (
	"fmt"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// object decodes a live object written in YAML the way the dynamic client
// decodes one: whole numbers become int64.
func object(t testing.TB, src string) map[string]any {
	t.Helper()
	raw, err := yaml.YAMLToJSON([]byte(src))
	if err != nil {
		t.Fatalf("fixture is not YAML: %v", err)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("fixture is not an object: %v", err)
	}
	return obj
}

// webTemplate is the pod template of the web Deployment, running image,
// with the extra labels given.
func webTemplate(image, labels string) string {
	return fmt.Sprintf(`{metadata: {labels: {app: web%s}}, spec: {containers: [{name: app, image: %q, resources: {requests: {cpu: 100m}}}]}}`, labels, image)
}

// webDeployment is the web Deployment with the given replicas, running
// image, and status.
func webDeployment(replicas int, image, status string) string {
	return fmt.Sprintf(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, uid: d-1, generation: 2},
		spec: {replicas: %d, selector: {matchLabels: {app: web}}, template: %s}, status: %s}`, replicas, webTemplate(image, ""), status)
}

// webReplicaSet is a ReplicaSet that the Deployment with uid owner
// controls, created at the given time, whose pods run image.
func webReplicaSet(hash, image, owner, created string) string {
	return fmt.Sprintf(`{apiVersion: apps/v1, kind: ReplicaSet,
		metadata: {name: web-%s, creationTimestamp: %q, labels: {app: web, pod-template-hash: %s}, ownerReferences: [{uid: %s, controller: true}]},
		spec: {selector: {matchLabels: {app: web, pod-template-hash: %s}}, template: %s}}`,
		hash, created, hash, owner, hash, webTemplate(image, ", pod-template-hash: "+hash))
}

// webReplicaSets are the ReplicaSets of the web Deployment: hash old runs
// web:1, hash new web:2.
func webReplicaSets(t testing.TB) []map[string]any {
	t.Helper()
	return []map[string]any{
		object(t, webReplicaSet("old", "web:1", "d-1", "2026-04-01T10:00:00Z")),
		object(t, webReplicaSet("new", "web:2", "d-1", "2026-05-01T10:00:00Z")),
	}
}
