// Package plain reads plain Go values, what a dynamic Terraform value
// becomes (nil, bool, *big.Float, string, []any, map[string]any), into the
// engine's inputs, naming in each error the attribute a value came from:
// the provider functions take their arguments this way, because HCL
// object literals with optional attributes do not convert to a fixed
// object type.
package plain

import (
	"fmt"
	"math/big"
	"sort"
)

// Object reads an optional object (or map) and rejects
// attributes it does not know, so a typo is an error rather than ignored.
func Object(v any, what string, known ...string) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	object, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be an object, not %s", what, Describe(v))
	}
	allowed := map[string]bool{}
	for _, k := range known {
		allowed[k] = true
	}
	var unknown []string
	for k := range object {
		if !allowed[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s has no attribute %q (it has: %v)", what, unknown[0], known)
	}
	return object, nil
}

// Int reads a whole number; nil stays nil.
func Int(v any, what string) (*int64, error) {
	if v == nil {
		return nil, nil
	}
	number, ok := v.(*big.Float)
	if !ok {
		return nil, fmt.Errorf("%s must be a number, not %s", what, Describe(v))
	}
	whole, accuracy := number.Int64()
	if accuracy != big.Exact || !number.IsInt() {
		return nil, fmt.Errorf("%s must be a whole number, not %s", what, number.Text('g', 10))
	}
	return &whole, nil
}

// String reads a string; nil is empty.
func String(v any, what string) (string, error) {
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string, not %s", what, Describe(v))
	}
	return s, nil
}

// StringMap reads a map of strings; nil stays nil.
func StringMap(v any, what string) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	object, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a map of strings, not %s", what, Describe(v))
	}
	out := make(map[string]string, len(object))
	for k, e := range object {
		s, err := String(e, fmt.Sprintf("%s[%q]", what, k))
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

// Describe names the kind of a plain value in a message.
func Describe(v any) string {
	switch v.(type) {
	case bool:
		return "a bool"
	case *big.Float:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	default:
		return "null"
	}
}

// Bool reads a bool; nil is fallback.
func Bool(v any, what string, fallback bool) (bool, error) {
	if v == nil {
		return fallback, nil
	}
	b, ok := v.(bool)
	if !ok {
		return fallback, fmt.Errorf("%s must be a bool, not %s", what, Describe(v))
	}
	return b, nil
}
