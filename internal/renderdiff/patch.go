package renderdiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Operation is one step of a JSON Patch: add, remove or replace.
type Operation struct {
	Op    string
	Path  string
	Value any
}

// Diff is a JSON Patch that turns from into to, both decoded as decode
// does: objects by key in sorted order, arrays element by element with
// elements added or removed at the end, any other change a replace.
func Diff(from, to any) []Operation {
	var ops []Operation
	diff(&ops, "", from, to)
	return ops
}

func diff(ops *[]Operation, path string, from, to any) {
	switch a := from.(type) {
	case map[string]any:
		if b, ok := to.(map[string]any); ok {
			diffObjects(ops, path, a, b)
			return
		}
	case []any:
		if b, ok := to.([]any); ok {
			diffArrays(ops, path, a, b)
			return
		}
	}
	if !reflect.DeepEqual(from, to) {
		*ops = append(*ops, Operation{Op: "replace", Path: path, Value: to})
	}
}

func diffObjects(ops *[]Operation, path string, a, b map[string]any) {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		at := path + "/" + escape(k)
		av, inA := a[k]
		bv, inB := b[k]
		switch {
		case !inB:
			*ops = append(*ops, Operation{Op: "remove", Path: at})
		case !inA:
			*ops = append(*ops, Operation{Op: "add", Path: at, Value: bv})
		default:
			diff(ops, at, av, bv)
		}
	}
}

func diffArrays(ops *[]Operation, path string, a, b []any) {
	common := min(len(a), len(b))
	for i := range common {
		diff(ops, path+"/"+strconv.Itoa(i), a[i], b[i])
	}
	for i := common; i < len(b); i++ {
		*ops = append(*ops, Operation{Op: "add", Path: path + "/" + strconv.Itoa(i), Value: b[i]})
	}
	for i := len(a) - 1; i >= common; i-- {
		*ops = append(*ops, Operation{Op: "remove", Path: path + "/" + strconv.Itoa(i)})
	}
}

func escape(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

func unescape(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

// Apply applies ops to doc, which it may change, and returns the result.
func Apply(doc any, ops []Operation) (any, error) {
	for i, op := range ops {
		var err error
		if doc, err = applyOne(doc, op); err != nil {
			return nil, fmt.Errorf("operation %d (%s %s): %w", i, op.Op, op.Path, err)
		}
	}
	return doc, nil
}

func applyOne(doc any, op Operation) (any, error) {
	if op.Op != "add" && op.Op != "remove" && op.Op != "replace" {
		return nil, fmt.Errorf("unknown op %q", op.Op)
	}
	if op.Path == "" {
		if op.Op == "remove" {
			return nil, errors.New("cannot remove the whole document")
		}
		return op.Value, nil
	}
	if op.Path[0] != '/' {
		return nil, errors.New("a path starts with /")
	}
	tokens := strings.Split(op.Path[1:], "/")
	parent := doc
	for _, token := range tokens[:len(tokens)-1] {
		child, err := step(parent, unescape(token))
		if err != nil {
			return nil, err
		}
		parent = child
	}
	last := unescape(tokens[len(tokens)-1])
	if array, ok := parent.([]any); ok {
		return changeArray(doc, array, last, op)
	}
	if err := change(parent, last, op); err != nil {
		return nil, err
	}
	return doc, nil
}

// step is the member token of node.
func step(node any, token string) (any, error) {
	switch n := node.(type) {
	case map[string]any:
		child, ok := n[token]
		if !ok {
			return nil, fmt.Errorf("no member %q", token)
		}
		return child, nil
	case []any:
		i, err := index(token, len(n), false)
		if err != nil {
			return nil, err
		}
		return n[i], nil
	}
	return nil, fmt.Errorf("%q is inside a %T", token, node)
}

// change carries op out on the member token of parent, an object.
func change(parent any, token string, op Operation) error {
	n, ok := parent.(map[string]any)
	if !ok {
		return fmt.Errorf("%q is inside a %T", token, parent)
	}
	_, exists := n[token]
	switch {
	case op.Op == "add":
		n[token] = op.Value
	case !exists:
		return fmt.Errorf("no member %q", token)
	case op.Op == "remove":
		delete(n, token)
	default:
		n[token] = op.Value
	}
	return nil
}

// changeArray carries op out on an element of array and returns the
// document. An add or a remove gives a new slice, which replaces the array
// where it stands (the document itself when the path has one token).
func changeArray(doc any, array []any, token string, op Operation) (any, error) {
	limit := len(array)
	if op.Op == "add" {
		limit++
	}
	i, err := index(token, limit, op.Op == "add")
	if err != nil {
		return nil, err
	}
	if op.Op == "replace" {
		array[i] = op.Value
		return doc, nil
	}
	var changed []any
	if op.Op == "add" {
		changed = slices.Insert(slices.Clone(array), i, op.Value)
	} else {
		changed = slices.Delete(slices.Clone(array), i, i+1)
	}
	return applyOne(doc, Operation{Op: "replace", Path: op.Path[:strings.LastIndex(op.Path, "/")], Value: changed})
}

func index(token string, limit int, appending bool) (int, error) {
	if token == "-" && appending {
		return limit - 1, nil
	}
	i, err := strconv.Atoi(token)
	if err != nil || i < 0 || i >= limit || (len(token) > 1 && token[0] == '0') {
		return 0, fmt.Errorf("index %q is out of range", token)
	}
	return i, nil
}

// decode reads one JSON value, keeping each number's spelling.
func decode(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// encode writes v with sorted keys, no insignificant white space and no
// HTML escaping, as the engine writes canonical JSON. A patch is written as
// an array of objects with op, path and, unless it removes, value.
func encode(v any) (string, error) {
	if ops, ok := v.([]Operation); ok {
		list := make([]any, len(ops))
		for i, op := range ops {
			entry := map[string]any{"op": op.Op, "path": op.Path}
			if op.Op != "remove" {
				entry["value"] = op.Value
			}
			list[i] = entry
		}
		v = list
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

func decodePatch(text string) ([]Operation, error) {
	raw, err := decode(text)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, errors.New("a JSON Patch is an array")
	}
	ops := make([]Operation, len(list))
	for i, e := range list {
		entry, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("operation %d is not an object", i)
		}
		op, _ := entry["op"].(string)
		path, ok := entry["path"].(string)
		if !ok {
			return nil, fmt.Errorf("operation %d has no path", i)
		}
		value, hasValue := entry["value"]
		if op != "remove" && !hasValue {
			return nil, fmt.Errorf("operation %d (%s %s) has no value", i, op, path)
		}
		ops[i] = Operation{Op: op, Path: path, Value: value}
	}
	return ops, nil
}

func deepCopy(v any) any {
	switch n := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, e := range n {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(n))
		for i, e := range n {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
