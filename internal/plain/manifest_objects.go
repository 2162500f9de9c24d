package plain

import (
	"fmt"
	"maps"
	"slices"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// ManifestObjects reads an application's manifest_objects: an object or
// map whose values are Kubernetes objects. It gives the keys in order and
// each object as JSON.
func ManifestObjects(v any) (keys, texts []string, err error) {
	byKey, ok := v.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("manifest_objects is %s; write an object or map whose values are Kubernetes objects, as "+
			"in manifest_objects = { web = yamldecode(file(\"web.yaml\")) }, or provider::kubefed::decode_manifests(...)", kindOf(v))
	}
	for _, key := range slices.Sorted(maps.Keys(byKey)) {
		if _, ok := byKey[key].(map[string]any); !ok {
			return nil, nil, fmt.Errorf("manifest_objects[%q] is %s, not a Kubernetes object", key, kindOf(byKey[key]))
		}
		text, err := tfvalue.PlainJSON(byKey[key])
		if err != nil {
			return nil, nil, fmt.Errorf("manifest_objects[%q]: %w", key, err)
		}
		keys, texts = append(keys, key), append(texts, string(text))
	}
	return keys, texts, nil
}

// kindOf names the kind of a plain value, for errors.
func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a bool"
	case nil:
		return "null"
	}
	return "a number"
}
