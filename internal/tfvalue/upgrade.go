package tfvalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// UpgradeToDynamic rewrites the JSON of a stored state so that the value at
// each path (attribute names from the root) becomes a dynamic attribute's
// value: the same value with its null attributes left out, typed as an HCL
// literal of it would be (objects and tuples), which is how a
// configuration that wrote it reads now. A path whose parent is null or
// absent is left alone.
func UpgradeToDynamic(state []byte, paths ...[]string) ([]byte, error) {
	decoder := json.NewDecoder(bytes.NewReader(state))
	decoder.UseNumber()
	var root map[string]any
	if err := decoder.Decode(&root); err != nil {
		return nil, fmt.Errorf("the stored state is not a JSON object: %w", err)
	}
	for _, p := range paths {
		parent := root
		for _, name := range p[:len(p)-1] {
			next, _ := parent[name].(map[string]any)
			if next == nil {
				parent = nil
				break
			}
			parent = next
		}
		last := p[len(p)-1]
		if parent == nil || parent[last] == nil {
			continue
		}
		value := withoutNulls(parent[last])
		typ, err := literalType(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(p, "."), err)
		}
		parent[last] = map[string]any{"value": value, "type": typ}
	}
	return json.Marshal(root)
}

// withoutNulls is v with the null attributes of its objects left out.
func withoutNulls(v any) any {
	switch value := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range value {
			if e != nil {
				out[k] = withoutNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(value))
		for i, e := range value {
			out[i] = withoutNulls(e)
		}
		return out
	}
	return v
}

// literalType is the JSON form of the type of a value written as an HCL
// literal.
func literalType(v any) (any, error) {
	switch value := v.(type) {
	case string:
		return "string", nil
	case json.Number:
		return "number", nil
	case bool:
		return "bool", nil
	case []any:
		types := make([]any, len(value))
		for i, e := range value {
			t, err := literalType(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			types[i] = t
		}
		return []any{"tuple", types}, nil
	case map[string]any:
		types := map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(value)) {
			t, err := literalType(value[k])
			if err != nil {
				return nil, fmt.Errorf("%q: %w", k, err)
			}
			types[k] = t
		}
		return []any{"object", types}, nil
	}
	return nil, fmt.Errorf("no type for %T", v)
}
