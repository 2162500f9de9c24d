package rollout

import (
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// object decodes a live object written in YAML the way the dynamic client
// decodes one: whole numbers become int64.
func object(t *testing.T, src string) map[string]any {
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
