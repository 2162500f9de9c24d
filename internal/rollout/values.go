package rollout

import (
	"encoding/json"
	"math"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// integer reads the whole number at path in obj. Objects from the dynamic
// client hold int64; objects decoded by encoding/json hold float64 or, with
// UseNumber, json.Number: all three are read.
func integer(obj map[string]any, path ...string) (int64, bool) {
	v, ok, _ := unstructured.NestedFieldNoCopy(obj, path...)
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// count is integer with a missing value read as 0, as the API server omits
// zero counts from a status.
func count(obj map[string]any, path ...string) int64 {
	n, _ := integer(obj, path...)
	return n
}

// text reads the string at path in obj, or "".
func text(obj map[string]any, path ...string) string {
	s, _, _ := unstructured.NestedString(obj, path...)
	return s
}

// groupKind is the API group and kind of obj.
func groupKind(obj map[string]any) schema.GroupKind {
	gv, _ := schema.ParseGroupVersion(text(obj, "apiVersion"))
	return schema.GroupKind{Group: gv.Group, Kind: text(obj, "kind")}
}

// conditions lists the entries of status.conditions that are objects.
func conditions(obj map[string]any) []map[string]any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, "status", "conditions")
	list, _ := v.([]any)
	var out []map[string]any
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
