package propagation

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// builtinTypes knows the server-side apply schema of the kinds client-go
// ships: which lists are keyed, by what, and which are atomic. Building it
// parses that schema once, on first use.
var builtinTypes = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(scheme.Scheme)
})

// shape is what the schema says about one value of an object. The zero
// shape belongs to a kind whose schema is unknown (a custom resource); a
// shape of a known kind that does not resolve is a value the schema leaves
// untyped, whose lists are atomic.
type shape struct {
	schema *smdschema.Schema
	ref    smdschema.TypeRef
}

// shapeOf is the shape of the object obj's apiVersion and kind name, or
// the zero shape when client-go does not know the kind.
func shapeOf(obj map[string]any) shape {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion == "" || kind == "" {
		return shape{}
	}
	typed, err := builtinTypes().ObjectToTyped(&unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}})
	if err != nil {
		return shape{}
	}
	return shape{schema: typed.Schema(), ref: typed.TypeRef()}
}

func (s shape) known() bool { return s.schema != nil }

func (s shape) resolve() smdschema.Atom {
	if s.schema == nil {
		return smdschema.Atom{}
	}
	atom, _ := s.schema.Resolve(s.ref)
	return atom
}

// field is the shape of a map's entry key: a struct's field, or the
// element of a map keyed by arbitrary strings (labels, data).
func (s shape) field(key string) shape {
	if !s.known() {
		return s
	}
	m := s.resolve().Map
	if m == nil {
		return shape{schema: s.schema}
	}
	if f, ok := m.FindField(key); ok {
		return shape{schema: s.schema, ref: f.Type}
	}
	return shape{schema: s.schema, ref: m.ElementType}
}

// listKeys says how a list's elements are matched: by the fields keys
// (with the defaults the schema gives them), as a set of scalars (set), or
// by position (neither). A list of an unknown kind is keyed by name.
func (s shape) listKeys() (elem shape, keys []string, defaults map[string]any, set bool) {
	if !s.known() {
		return s, []string{"name"}, nil, false
	}
	l := s.resolve().List
	if l == nil {
		return shape{schema: s.schema}, nil, nil, false
	}
	elem = shape{schema: s.schema, ref: l.ElementType}
	if l.ElementRelationship != smdschema.Associative {
		return elem, nil, nil, false
	}
	if len(l.Keys) == 0 {
		return elem, nil, nil, elem.resolve().Scalar != nil
	}
	defaults = map[string]any{}
	if m := elem.resolve().Map; m != nil {
		for _, k := range l.Keys {
			if f, ok := m.FindField(k); ok && f.Default != nil {
				defaults[k] = f.Default
			}
		}
	}
	return elem, l.Keys, defaults, false
}
