package federation

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Position locates an object in a set's manifests: a list of elements,
// each holding one or more YAML or JSON documents separated by "---" lines.
type Position struct {
	// Element is the index of the element in the list.
	Element int
	// Document counts, from 0, the element's documents that hold
	// something: empty and comment-only documents are not counted. It is
	// -1 in errors about the element as a whole.
	Document int
	// Line is the line of the element, from 1, where the document starts.
	Line int
	// Item is the index of the object in a List document's items, or -1
	// when the document is the object.
	Item int
}

func (p Position) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "element %d", p.Element)
	if p.Document >= 0 {
		fmt.Fprintf(&b, ", document %d (from line %d)", p.Document, p.Line)
	}
	if p.Item >= 0 {
		fmt.Fprintf(&b, ", item %d", p.Item)
	}
	return b.String()
}

// Manifest is one object of a set.
type Manifest struct {
	Position
	Key Key
	// Template is the object as one JSON document, as written (server-owned
	// fields included, which the renderer drops with a warning) with the
	// default namespace given: what a RenderSpec takes as its Template.
	Template string
	// Hook is the value of the object's helm.sh/hook annotation: empty for
	// an object of the chart, "test" or "pre-install,pre-upgrade" for one
	// that Helm runs at a release event instead of installing it.
	Hook string
}

// ManifestOptions say how a set reads objects that name no namespace.
type ManifestOptions struct {
	// DefaultNamespace is the namespace of the objects of a namespaced
	// kind that name none, as `helm install -n` gives them; empty for
	// none.
	DefaultNamespace string
	// Scope tells which kinds are namespaced. An object of a kind it does
	// not know is taken as written; nil knows none.
	Scope Scope
}

// scope is o.Scope, which may be nil.
func (o ManifestOptions) scope(group, kind string) (namespaced, known bool) {
	if o.Scope == nil {
		return false, false
	}
	return o.Scope(group, kind)
}

// ManifestError reports a document that does not hold usable objects, or
// an object given twice.
type ManifestError struct {
	Position
	// Object names the object, as in "Deployment shop/web", as far as the
	// document says.
	Object string
	Err    error
}

func (e *ManifestError) Error() string {
	where := e.String()
	if e.Object != "" {
		where += " (" + e.Object + ")"
	}
	return where + ": " + e.Err.Error()
}

func (e *ManifestError) Unwrap() error { return e.Err }

// DuplicateObjectError is the Err of a ManifestError positioned at the
// second occurrence of an object: same group, kind, namespace and name,
// whatever the versions.
type DuplicateObjectError struct {
	First Position
}

func (e *DuplicateObjectError) Error() string {
	return fmt.Sprintf("the same object as %s; a set holds each object once", e.First)
}

// MissingNamespaceError is the Err of a ManifestError for an object of a
// namespaced kind that names no namespace, in a set without a default one.
type MissingNamespaceError struct {
	Kind string
}

func (e *MissingNamespaceError) Error() string {
	return fmt.Sprintf("metadata.namespace is required: %s is namespaced", e.Kind)
}

// ParseManifests reads the objects of a set, in order. Each element holds
// one or more YAML or JSON documents separated by "---" lines, as
// yamlencode, a file or `helm template` give them; documents that are empty
// or only comments are skipped, a List (kind List, or a kind ending in
// "List", with items and no name) stands for its items. Each object needs
// apiVersion, kind and metadata.name. An object of a kind opts.Scope knows
// to be namespaced that names no namespace gets opts.DefaultNamespace, or is
// a *MissingNamespaceError when there is none; other kinds are for the
// renderer to check, once their scope is known. Helm's hooks and tests are
// read with their Hook, and never count as a second copy of an object.
// Every problem found is a *ManifestError; several are joined with
// errors.Join.
func ParseManifests(elements []string, opts ManifestOptions) ([]Manifest, error) {
	var objects []Manifest
	var problems []error
	first := map[Key]Position{}
	for i, text := range elements {
		found, errs := parseElement(i, text, opts)
		problems = append(problems, errs...)
		for _, m := range found {
			if m.Hook != "" {
				objects = append(objects, m)
				continue
			}
			if pos, dup := first[m.Key.unversioned()]; dup {
				problems = append(problems, &ManifestError{Position: m.Position, Object: m.Key.Object(), Err: &DuplicateObjectError{First: pos}})
				continue
			}
			first[m.Key.unversioned()] = m.Position
			objects = append(objects, m)
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return objects, nil
}

// parseElement reads the objects of one element.
func parseElement(element int, text string, opts ManifestOptions) ([]Manifest, []error) {
	var objects []Manifest
	var problems []error
	document := 0
	for _, d := range splitDocuments(text) {
		if !hasContent(d.text) {
			continue
		}
		pos := Position{Element: element, Document: document, Line: d.line, Item: -1}
		document++
		found, errs := parseDocument(pos, d.text, opts)
		objects, problems = append(objects, found...), append(problems, errs...)
	}
	if document == 0 {
		problems = append(problems, &ManifestError{Position: Position{Element: element, Document: -1, Item: -1},
			Err: errors.New("holds no object, only blank lines, comments or separators; remove the element or give it an object")})
	}
	return objects, problems
}

// parseDocument reads the object of one document, or the items of a List.
func parseDocument(pos Position, doc []byte, opts ManifestOptions) ([]Manifest, []error) {
	v, err := decodeDocument(doc)
	if err != nil {
		return nil, []error{&ManifestError{Position: pos, Err: err}}
	}
	items, isList := listItems(v)
	if !isList {
		m, err := manifestOf(pos, v, opts)
		if err != nil {
			return nil, []error{err}
		}
		return []Manifest{m}, nil
	}
	var objects []Manifest
	var problems []error
	for i, item := range items {
		pos.Item = i
		m, err := manifestOf(pos, item, opts)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		objects = append(objects, m)
	}
	return objects, problems
}

// manifestOf checks one object, gives it the default namespace where it
// needs one, and keeps it as a template.
func manifestOf(pos Position, v any, opts ManifestOptions) (Manifest, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return Manifest{}, &ManifestError{Position: pos, Err: fmt.Errorf("must be an object (a YAML mapping), not %s", describe(v))}
	}
	id, err := manifestIdentity(obj)
	if err != nil {
		return Manifest{}, &ManifestError{Position: pos, Object: objectLabel(obj), Err: err}
	}
	hook := hookOf(obj)
	key := keyOf(id)
	if namespaced, known := opts.scope(key.Group, key.Kind); known && namespaced && key.Namespace == "" {
		if opts.DefaultNamespace == "" && hook == "" {
			return Manifest{}, &ManifestError{Position: pos, Object: key.Object(), Err: &MissingNamespaceError{Kind: key.Kind}}
		}
		if opts.DefaultNamespace != "" {
			key.Namespace = opts.DefaultNamespace
			obj["metadata"].(map[string]any)["namespace"] = key.Namespace
		}
	}
	text, err := encodeCanonical(obj)
	if err != nil {
		return Manifest{}, &ManifestError{Position: pos, Object: objectLabel(obj), Err: err}
	}
	return Manifest{Position: pos, Key: key, Template: string(text), Hook: hook}, nil
}

// manifestIdentity checks the fields that identify obj, and its labels, as
// the renderer will, on a copy: the renderer drops the server-owned fields
// itself, with warnings. Whether the kind is namespaced is not known yet, so
// a namespace is taken as given.
func manifestIdentity(obj map[string]any) (Identity, error) {
	probe := maps.Clone(obj)
	meta, _ := obj["metadata"].(map[string]any)
	if meta != nil {
		probe["metadata"] = maps.Clone(meta)
	}
	namespace, _ := meta["namespace"].(string)
	id, _, err := checkObject(probe, namespace != "")
	if err != nil {
		return Identity{}, err
	}
	// "apps/" and "/v1" parse, into keys that would not read back.
	if gv, err := schema.ParseGroupVersion(id.APIVersion); err != nil || gv.Version == "" || gv.String() != id.APIVersion {
		return Identity{}, fmt.Errorf("apiVersion %q is not <group>/<version> or <version>", id.APIVersion)
	}
	for _, f := range []struct{ value, name string }{{id.Kind, "kind"}, {id.Namespace, "metadata.namespace"}, {id.Name, "metadata.name"}} {
		if strings.Contains(f.value, "/") {
			return Identity{}, fmt.Errorf("%s %q may not contain \"/\"", f.name, f.value)
		}
	}
	return id, nil
}

// listItems returns the items of a List: `kubectl get -o yaml` writes one
// of kind List, and typed lists such as ConfigMapList exist too. A kind
// that ends in "List" but has a name is an object of that kind.
func listItems(v any) ([]any, bool) {
	obj, _ := v.(map[string]any)
	kind, _ := obj["kind"].(string)
	items, hasItems := obj["items"].([]any)
	meta, _ := obj["metadata"].(map[string]any)
	_, named := meta["name"]
	return items, strings.HasSuffix(kind, "List") && hasItems && !named
}

// objectLabel names an object in an error as far as it names itself.
func objectLabel(obj map[string]any) string {
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	namespace, _ := meta["namespace"].(string)
	switch {
	case name == "":
		return kind
	case kind == "":
		kind = "object"
	}
	return Key{Kind: kind, Namespace: namespace, Name: name}.Object()
}
