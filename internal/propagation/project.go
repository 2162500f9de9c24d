package propagation

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Project returns the parts of live found at the paths present in applied:
// the fields the federation set. Server defaults, server-assigned fields
// (a Service's clusterIP) and fields of other managers fall away, so that
// reading back an untouched object gives exactly what was applied, while a
// field that was applied and then changed keeps its changed value.
//
// Lists are compared as server-side apply merges them, by the schema of the
// kind applied names (client-go's, for built-in kinds):
//   - a keyed list (containers by name, ports by port and protocol) is
//     matched by key: elements another manager added (an injected sidecar)
//     are theirs and fall away, applied elements read back in the applied
//     order, and an applied element that is gone is missing;
//   - a set of scalars (finalizers) likewise, by value;
//   - an atomic list (args, tolerations) belongs to one manager whole: it is
//     projected element by element when both sides have the same length,
//     and otherwise kept whole, since an apply replaces it whole.
//
// For a kind whose schema is unknown (a custom resource), a list whose
// elements all have distinct names is matched by name, and any other list
// is atomic.
//
// What the API server stores differently from what it was sent, without a
// change of meaning, reads back as it was applied:
//   - a quantity written in another form (1000m stored as 1, 0.5 as 500m,
//     a number as a string);
//   - an empty or zero value the server leaves out (false, 0, "", {}, []);
//   - a Secret's stringData, which the server moves into data.
func Project(live, applied map[string]any) map[string]any {
	out := projectMap(live, applied, listShape(applied), func(key string) bool {
		// Metadata and a ConfigMap's or Secret's payload are opaque strings:
		// no quantity equivalence applies there.
		return key == "metadata" || key == "data" || key == "stringData" || key == "binaryData"
	})
	if isSecret(applied) {
		foldStringData(out, live, applied)
	}
	return out
}

// listShape is the shape of applied where it has lists, the only values
// the shape decides for. An object without lists (most ConfigMaps and
// Secrets) takes the zero shape, and the schema of the built-in kinds,
// which takes a tenth of a second to load, is not loaded for it.
func listShape(applied map[string]any) shape {
	if !containsList(applied) {
		return shape{}
	}
	return shapeOf(applied)
}

func containsList(v any) bool {
	switch v := v.(type) {
	case []any:
		return true
	case map[string]any:
		for _, e := range v {
			if containsList(e) {
				return true
			}
		}
	}
	return false
}

func notOpaque(string) bool { return false }

func allOpaque(string) bool { return true }

// projectMap projects live onto applied, whose shape is sh; opaque says
// which keys hold values to take as they are, without quantity equivalence.
func projectMap(live, applied map[string]any, sh shape, opaque func(key string) bool) map[string]any {
	out := make(map[string]any, len(applied))
	for key, want := range applied {
		got, ok := live[key]
		if !ok || got == nil {
			if isZero(want) {
				out[key] = want
			}
			continue
		}
		out[key] = projectValue(got, want, sh.field(key), opaque(key))
	}
	return out
}

func projectValue(got, want any, sh shape, opaque bool) any {
	switch w := want.(type) {
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			if opaque {
				return projectMap(g, w, sh, allOpaque)
			}
			return projectMap(g, w, sh, notOpaque)
		}
	case []any:
		if g, ok := got.([]any); ok {
			return projectList(g, w, sh, opaque)
		}
	default:
		if !opaque && sameQuantity(got, want) {
			return want
		}
	}
	return got
}

func projectList(got, want []any, sh shape, opaque bool) any {
	elem, keys, defaults, set := sh.listKeys()
	switch {
	case set:
		return projectSet(got, want)
	case len(keys) > 0:
		if out, ok := projectKeyed(got, want, elem, keyer{keys: keys, defaults: defaults}, opaque); ok {
			return out
		}
	}
	if len(got) != len(want) {
		return got
	}
	out := make([]any, len(got))
	for i := range got {
		out[i] = projectValue(got[i], want[i], elem, opaque)
	}
	return out
}

// projectKeyed matches the elements of want with those of got by key, in
// the order of want. It fails, for the caller to fall back on positions,
// when an element on either side has no key or shares its key with another.
func projectKeyed(got, want []any, elem shape, k keyer, opaque bool) ([]any, bool) {
	live := make(map[string]any, len(got))
	for _, g := range got {
		key, ok := k.of(g)
		if _, dup := live[key]; !ok || dup {
			return nil, false
		}
		live[key] = g
	}
	out := make([]any, 0, len(want))
	seen := make(map[string]bool, len(want))
	for _, w := range want {
		key, ok := k.of(w)
		if !ok || seen[key] {
			return nil, false
		}
		seen[key] = true
		if g, found := live[key]; found {
			out = append(out, projectValue(g, w, elem, opaque))
		}
	}
	return out, true
}

// projectSet keeps the values of want that got holds, in the order of want.
func projectSet(got, want []any) []any {
	live := make(map[string]any, len(got))
	for _, g := range got {
		if text, err := json.Marshal(g); err == nil {
			live[string(text)] = g
		}
	}
	out := make([]any, 0, len(want))
	for _, w := range want {
		text, err := json.Marshal(w)
		if g, found := live[string(text)]; err == nil && found {
			out = append(out, g)
		}
	}
	return out
}

// keyer computes the key of a keyed list's element: the values of its key
// fields, a missing one taking the schema's default (a port's protocol is
// TCP), written as JSON so that 80 applied and 80 read back are one key.
type keyer struct {
	keys     []string
	defaults map[string]any
}

func (k keyer) of(element any) (string, bool) {
	m, ok := element.(map[string]any)
	if !ok {
		return "", false
	}
	values := make([]any, len(k.keys))
	for i, field := range k.keys {
		v := m[field]
		if v == nil {
			v = k.defaults[field]
		}
		switch v.(type) {
		case string, bool, float64, int64, int:
		default:
			return "", false
		}
		values[i] = v
	}
	text, err := json.Marshal(values)
	return string(text), err == nil
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
