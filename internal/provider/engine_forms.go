package provider

import (
	"bytes"
	"encoding/json"

	"sigs.k8s.io/yaml"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// canonicalOf is the engine's canonical, display-safe form of a live object.
func canonicalOf(live map[string]any, namespaced bool) (string, error) {
	raw, err := json.Marshal(live)
	if err != nil {
		return "", err
	}
	rendered, err := federation.Render(federation.RenderSpec{Template: string(raw), Namespaced: namespaced}, federation.Cluster{}, nil)
	if err != nil {
		return "", err
	}
	return rendered.Display, nil
}

// kubeFedTemplate is the template as KubeFed stores it: without apiVersion,
// kind, name and namespace, which come from the type and the federated
// object. Numbers stay as written.
func kubeFedTemplate(text string) map[string]any {
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil {
		return nil
	}
	delete(obj, "apiVersion")
	delete(obj, "kind")
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "name")
		delete(meta, "namespace")
		if len(meta) == 0 {
			delete(obj, "metadata")
		}
	}
	return obj
}
