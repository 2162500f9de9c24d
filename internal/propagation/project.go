package propagation

import (
	"encoding/base64"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Project returns the parts of live found at the paths present in applied:
// the fields the federation set. Server defaults, server-assigned fields
// (a Service's clusterIP) and fields of other managers fall away, so that
// reading back an untouched object gives exactly what was applied, while a
// field that was applied and then changed keeps its changed value.
//
// Lists are projected element by element when both sides have the same
// length; otherwise the live list is kept whole, because elements added or
// removed by someone else are a change of a field that was applied.
//
// What the API server stores differently from what it was sent, without a
// change of meaning, reads back as it was applied:
//   - a quantity written in another form (1000m stored as 1, 0.5 as 500m,
//     a number as a string);
//   - an empty or zero value the server leaves out (false, 0, "", {}, []);
//   - a Secret's stringData, which the server moves into data.
func Project(live, applied map[string]any) map[string]any {
	out := projectMap(live, applied, func(key string) bool {
		// Metadata and a ConfigMap's or Secret's payload are opaque strings:
		// no quantity equivalence applies there.
		return key == "metadata" || key == "data" || key == "stringData" || key == "binaryData"
	})
	if isSecret(applied) {
		foldStringData(out, live, applied)
	}
	return out
}

func notOpaque(string) bool { return false }

func allOpaque(string) bool { return true }

// projectMap projects live onto applied; opaque says which keys hold values
// to take as they are, without quantity equivalence.
func projectMap(live, applied map[string]any, opaque func(key string) bool) map[string]any {
	out := make(map[string]any, len(applied))
	for key, want := range applied {
		got, ok := live[key]
		if !ok || got == nil {
			if isZero(want) {
				out[key] = want
			}
			continue
		}
		out[key] = projectValue(got, want, opaque(key))
	}
	return out
}

func projectValue(got, want any, opaque bool) any {
	switch w := want.(type) {
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			if opaque {
				return projectMap(g, w, allOpaque)
			}
			return projectMap(g, w, notOpaque)
		}
	case []any:
		if g, ok := got.([]any); ok && len(g) == len(w) {
			out := make([]any, len(g))
			for i := range g {
				out[i] = projectValue(g[i], w[i], opaque)
			}
			return out
		}
	default:
		if !opaque && sameQuantity(got, want) {
			return want
		}
	}
	return got
}

// isZero reports whether v is a value the API server omits when it stores an
// object: null, false, 0, "", an empty map or an empty list.
func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case float64:
		return x == 0
	case int64:
		return x == 0
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// sameQuantity reports whether got is how the API server writes the
// quantity want: its canonical form. Only that exact form counts, so that a
// value someone changed by hand still shows as a change.
func sameQuantity(got, want any) bool {
	g, ok := got.(string)
	if !ok {
		return false
	}
	var text string
	switch w := want.(type) {
	case string:
		text = w
	case float64:
		text = strconv.FormatFloat(w, 'f', -1, 64)
	case int64:
		text = strconv.FormatInt(w, 10)
	default:
		return false
	}
	q, err := resource.ParseQuantity(text)
	if err != nil {
		return false
	}
	return q.String() == g
}

func isSecret(obj map[string]any) bool {
	kind, _ := obj["kind"].(string)
	return kind == "Secret"
}

// foldStringData reads a Secret's applied stringData back from data, where
// the API server keeps it: each key of stringData gets the decoded value of
// the same key in live data. A key that data does not hold reads as absent.
// Data keys that only stringData set leave the projected data.
func foldStringData(out, live, applied map[string]any) {
	wantStrings, ok := applied["stringData"].(map[string]any)
	if !ok || len(wantStrings) == 0 {
		return
	}
	liveData, _ := live["data"].(map[string]any)
	wantData, _ := applied["data"].(map[string]any)
	strings := make(map[string]any, len(wantStrings))
	for key := range wantStrings {
		encoded, ok := liveData[key].(string)
		if !ok {
			continue
		}
		decoded, err := base64.StdEncoding.DecodeString(encoded)
		if err != nil {
			continue
		}
		strings[key] = string(decoded)
		if projected, ok := out["data"].(map[string]any); ok {
			if _, fromData := wantData[key]; !fromData {
				delete(projected, key)
			}
		}
	}
	out["stringData"] = strings
}
