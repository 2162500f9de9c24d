package federation

import (
	"fmt"
)

// AdoptedAnnotation marks, in what a cluster receives, an object that was
// there before the federation wrote it, and that the configuration agreed
// to take over (adopt = true). It is part of the rendered object, so the
// plan shows it and the state keeps it: a removal gives such an object
// back (label, annotation and the provider's fields taken off) instead of
// deleting it, unless the deletion policy deletes adopted objects too.
const AdoptedAnnotation = "kubefed.terraform.io/adopted"

// MarkAdopted returns the rendered object rendered (canonical JSON) with
// the AdoptedAnnotation set.
func MarkAdopted(rendered []byte) ([]byte, error) {
	doc, err := decodeJSONAsIs(rendered)
	if err != nil {
		return nil, fmt.Errorf("marking the object adopted: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("marking the object adopted: %s is not an object", describe(doc))
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
		meta["annotations"] = annotations
	}
	annotations[AdoptedAnnotation] = "true"
	return encodeCanonical(obj)
}

// IsAdopted reports whether a rendered object carries the
// AdoptedAnnotation.
func IsAdopted(rendered string) bool {
	return annotationOf(rendered, AdoptedAnnotation) == "true"
}

func annotationOf(rendered, key string) string {
	doc, err := decodeJSONAsIs([]byte(rendered))
	if err != nil {
		return ""
	}
	obj, _ := doc.(map[string]any)
	meta, _ := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	value, _ := annotations[key].(string)
	return value
}

// Ownership is whose an object a cluster holds is, as far as a federation
// that writes with one field manager can tell.
type Ownership int

const (
	// Foreign objects were put on the cluster by someone else: taking
	// them over needs the configuration's consent.
	Foreign Ownership = iota
	// Ours are objects this provider wrote (its managed label and its
	// field manager, such as what an interrupted apply left) or adopted
	// earlier: an apply completes them.
	Ours
)

// OwnershipOf says whose the live object obj is, given the provider's
// field manager.
func OwnershipOf(obj map[string]any, fieldManager string) Ownership {
	meta, _ := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations[AdoptedAnnotation] == "true" {
		return Ours
	}
	labels, _ := meta["labels"].(map[string]any)
	if labels[ManagedLabel] != ManagedLabelValue {
		return Foreign
	}
	entries, _ := meta["managedFields"].([]any)
	for _, e := range entries {
		entry, _ := e.(map[string]any)
		if entry["manager"] == fieldManager {
			return Ours
		}
	}
	return Foreign
}
