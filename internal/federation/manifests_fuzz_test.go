package federation

import (
	"errors"
	"testing"
)

// FuzzParseManifests parses two fuzzed elements. It never panics; a
// problem is a *ManifestError about one of the elements; every object
// accepted has a kind and a name, a key that parses back, a canonical JSON
// template that says the same identity, and no twin in the set but Helm's
// hooks; an object of a namespaced built-in kind has a namespace.
func FuzzParseManifests(f *testing.F) {
	f.Add(configMapDoc, deploymentDoc)
	f.Add("---\n# Source: x.yaml\n---\n"+configMapDoc+"--- # c\n", "")
	f.Add("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n", `{"apiVersion":"v1","kind":"ConfigMapList","items":[1]}`)
	f.Add(configMapDoc, configMapDoc)
	f.Add("apiVersion: a/b/c\nkind: K\nmetadata: {name: x/y}\n", "{\"kind\": ,}")
	f.Add("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a}\n", "apiVersion: v1\nkind: Pod\nmetadata: {name: t, annotations: {helm.sh/hook: test}}\n")
	f.Fuzz(func(t *testing.T, first, second string) {
		elements := []string{first, second}
		ms, err := ParseManifests(elements, ManifestOptions{DefaultNamespace: "fuzz", Scope: BuiltinScope})
		if err != nil {
			checkManifestProblems(t, err, len(elements))
			return
		}
		seen := map[Key]bool{}
		for _, m := range ms {
			if m.Key.Kind == "" || m.Key.Name == "" || m.Key.Version == "" {
				t.Fatalf("accepted an object without kind, name or version: %+v", m.Key)
			}
			if back, err := ParseKey(m.Key.String()); err != nil || back != m.Key {
				t.Fatalf("key %q parses back as %+v, %v", m.Key, back, err)
			}
			if seen[m.Key.unversioned()] && m.Hook == "" {
				t.Fatalf("accepted %s twice", m.Key)
			}
			seen[m.Key.unversioned()] = seen[m.Key.unversioned()] || m.Hook == ""
			if namespaced, _ := BuiltinScope(m.Key.Group, m.Key.Kind); namespaced && m.Key.Namespace == "" {
				t.Fatalf("accepted %s, of a namespaced kind, without a namespace", m.Key)
			}
			if m.Element < 0 || m.Element >= len(elements) || m.Document < 0 || m.Line < 1 {
				t.Fatalf("accepted %s at an impossible position %+v", m.Key, m.Position)
			}
			checkCanonical(t, []byte(m.Template))
			v, _ := decodeJSON([]byte(m.Template))
			id, err := manifestIdentity(v.(map[string]any))
			if err != nil || keyOf(id) != m.Key {
				t.Fatalf("template %s identifies as %+v, %v; key %v", m.Template, id, err, m.Key)
			}
		}
	})
}

func checkManifestProblems(t *testing.T, err error, elements int) {
	t.Helper()
	all := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		all = joined.Unwrap()
	}
	for _, e := range all {
		var me *ManifestError
		if !errors.As(e, &me) || me.Element < 0 || me.Element >= elements {
			t.Fatalf("problem %v is not a *ManifestError about an element", e)
		}
	}
}
