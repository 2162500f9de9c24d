package federation

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ObjectRef names one object of a set: by kind and name, with a namespace
// or an apiVersion only where those are needed to tell objects apart.
type ObjectRef struct {
	Kind, Name string
	// Namespace, when set, is the object's namespace.
	Namespace string
	// APIVersion, when set, is the object's apiVersion: "apps/v1", or "v1"
	// for the core group.
	APIVersion string
}

func (r ObjectRef) String() string {
	s := Key{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}.Object()
	if r.APIVersion != "" {
		s += " (" + r.APIVersion + ")"
	}
	return s
}

func (r ObjectRef) matches(k Key) bool {
	return r.Kind == k.Kind && r.Name == k.Name &&
		(r.Namespace == "" || r.Namespace == k.Namespace) &&
		(r.APIVersion == "" || r.APIVersion == k.APIVersion())
}

// resolve returns the one object of the set that r names.
func (r ObjectRef) resolve(objects []Key) (Key, error) {
	return r.resolveAmong(objects, objects)
}

// resolveAmong is resolve with the set's objects of r's kind and name found
// already, among others (candidates, in the set's order): a set's rules
// then cost a lookup each, not a look through the set.
func (r ObjectRef) resolveAmong(candidates, objects []Key) (Key, error) {
	if r.Kind == "" || r.Name == "" {
		return Key{}, errors.New("an object is named by kind and name; set both")
	}
	var matched []Key
	for _, k := range candidates {
		if r.matches(k) {
			matched = append(matched, k)
		}
	}
	switch len(matched) {
	case 1:
		return matched[0], nil
	case 0:
		return Key{}, noSuchObject(r, objects)
	}
	return Key{}, fmt.Errorf("%s matches %d objects of the set: %s; add namespace or api_version to name one", r, len(matched), objectList(matched))
}

// noSuchObject says what the set holds instead: the objects of the kind,
// or its kinds.
func noSuchObject(r ObjectRef, objects []Key) error {
	var sameKind []Key
	var kinds []string
	for _, k := range objects {
		if k.Kind == r.Kind {
			sameKind = append(sameKind, k)
		}
		kinds = append(kinds, k.Kind)
	}
	switch {
	case len(objects) == 0:
		return fmt.Errorf("no object of the set is %s: the set is empty", r)
	case len(sameKind) > 0:
		return fmt.Errorf("no object of the set is %s; its %s objects: %s", r, r.Kind, objectList(sameKind))
	}
	slices.Sort(kinds)
	return fmt.Errorf("no object of the set is %s; the set holds no %s, only %s", r, r.Kind, strings.Join(slices.Compact(kinds), ", "))
}

// objectList names objects in a message, in key order.
func objectList(keys []Key) string {
	names := make([]string, len(keys))
	for i, k := range slices.SortedFunc(slices.Values(keys), compareKeys) {
		names[i] = k.Object()
		if k.Group != "" {
			names[i] += " (" + k.APIVersion() + ")"
		}
	}
	return strings.Join(names, ", ")
}

func compareKeys(a, b Key) int { return strings.Compare(a.String(), b.String()) }

// SelectListed reports, for each object of a set, whether one of refs
// names it. Every ref must name exactly one object; each that does not is
// an error naming the ref by its index, joined with errors.Join.
func SelectListed(refs []ObjectRef, objects []Key) ([]bool, error) {
	index, named := indexObjects(objects)
	listed := make([]bool, len(objects))
	var problems []error
	for i, r := range refs {
		k, err := r.resolveAmong(named[kindName{r.Kind, r.Name}], objects)
		if err != nil {
			problems = append(problems, &ListedObjectError{Index: i, Err: err})
			continue
		}
		listed[index[k]] = true
	}
	return listed, errors.Join(problems...)
}

// ListedObjectError is an element of a list of the set's objects that
// names none of them, or several.
type ListedObjectError struct {
	Index int
	Err   error
}

func (e *ListedObjectError) Error() string { return fmt.Sprintf("element %d: %v", e.Index, e.Err) }
func (e *ListedObjectError) Unwrap() error { return e.Err }

// ShortestRef names key among the set's objects as a configuration would:
// by kind and name, adding the namespace and then the apiVersion only when
// another object of the set shares what is named so far.
func ShortestRef(key Key, objects []Key) ObjectRef {
	ref := ObjectRef{Kind: key.Kind, Name: key.Name}
	if countMatching(ref, objects) <= 1 {
		return ref
	}
	ref.Namespace = key.Namespace
	if countMatching(ref, objects) <= 1 {
		return ref
	}
	ref.APIVersion = key.APIVersion()
	return ref
}

func countMatching(ref ObjectRef, objects []Key) int {
	n := 0
	for _, k := range objects {
		if ref.matches(k) {
			n++
		}
	}
	return n
}
