package federation

import (
	"errors"
	"fmt"
	"strings"
)

// ObjectsByName decodes the objects of text (documents as a manifests
// element holds them) into a map from each object's name (ObjectName) to
// the object, with its null fields left out: what an application's
// manifest_objects takes. A text with no object gives an empty map.
func ObjectsByName(text string) (map[string]any, error) {
	found, err := ParseManifests([]string{text}, ManifestOptions{})
	var empty *ManifestError
	if errors.As(err, &empty) && empty.Document < 0 {
		return map[string]any{}, nil
	}
	if err != nil {
		// The text is the one element: positions name its documents.
		return nil, errors.New(strings.ReplaceAll(err.Error(), "element 0, ", ""))
	}
	out := make(map[string]any, len(found))
	for _, m := range found {
		object, err := decodeJSONAsIs([]byte(m.Template))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Key.Object(), err)
		}
		name := ObjectName(m.Key)
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%s is given twice", m.Key.Object())
		}
		dropNullFields(object)
		out[name] = object
	}
	return out, nil
}

// ObjectName names an object as kubectl does, with its namespace:
// Deployment.apps/shop/web, ConfigMap/shop/settings, Namespace/shop.
func ObjectName(k Key) string {
	kind := k.Kind
	if k.Group != "" {
		kind += "." + k.Group
	}
	if k.Namespace == "" {
		return kind + "/" + k.Name
	}
	return kind + "/" + k.Namespace + "/" + k.Name
}
