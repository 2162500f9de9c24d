package federation

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseFieldPath(t *testing.T) {
	cases := []struct {
		name string
		path string
		want []string
	}{
		{"one name", "spec", []string{"spec"}},
		{"names joined by dots", "spec.replicas", []string{"spec", "replicas"}},
		{"names with dashes, underscores and digits", "spec.x-y_z.v1", []string{"spec", "x-y_z", "v1"}},
		{"a quoted key with dots and a slash", `metadata.annotations["sidecar.istio.io/status"]`, []string{"metadata", "annotations", "sidecar.istio.io/status"}},
		{"a list index", "spec.template.spec.containers[0].resources", []string{"spec", "template", "spec", "containers", "0", "resources"}},
		{"a list index after a dot", "spec.containers.0.image", []string{"spec", "containers", "0", "image"}},
		{"an index with a leading zero", "spec.ports[01]", []string{"spec", "ports", "1"}},
		{"brackets one after another", `data["a"]["b"][2]`, []string{"data", "a", "b", "2"}},
		{"a quoted key with escapes", `metadata.labels["a\"b\\c\u00e9"]`, []string{"metadata", "labels", "a\"b\\cé"}},
		{"a quoted key with brackets and spaces", `data["[x] y"]`, []string{"data", "[x] y"}},
		{"a quoted key that looks like an index", `data["0"]`, []string{"data", "0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseFieldPath(tc.path)
			if err != nil {
				t.Fatalf("ParseFieldPath(%q): %v", tc.path, err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ParseFieldPath(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

func TestParseFieldPathRejects(t *testing.T) {
	cases := []struct {
		name, path, mentions string
	}{
		{"an empty path", "", "field path is empty"},
		{"a leading dot", ".spec", `a field path starts with a field name, such as metadata, not '.'`},
		{"a leading bracket", `["spec"]`, `a field path starts with a field name`},
		{"a trailing dot", "spec.", "a field name must follow the last dot"},
		{"two dots", "spec..replicas", `a field name must follow the dot at character 5, not '.'`},
		{"a dot before a bracket", `metadata.["a"]`, "a field name must follow the dot at character 9"},
		{"a key with a slash outside brackets", "metadata.annotations.example.com/key", `unexpected '/' at character 33: write keys with other characters in brackets and double quotes`},
		{"a space", "spec replicas", `unexpected ' ' at character 5`},
		{"an unquoted key in brackets", "metadata.labels[app]", `brackets at character 16 must hold a list index of 0 or more, such as [0], or a key in double quotes, such as ["app"], not "app"`},
		{"a negative index", "spec.ports[-1]", `not "-1"`},
		{"a signed index", "spec.ports[+1]", `not "+1"`},
		{"empty brackets", "spec.ports[]", `not ""`},
		{"single quotes", "metadata.labels['app']", `not "'app'"`},
		{"an unclosed bracket", "spec.ports[0", "the bracket at character 11 is not closed"},
		{"an unclosed quote", `metadata.labels["app]`, "the key that starts at character 17 has no closing quote"},
		{"a quoted key not followed by a bracket", `metadata.labels["app"x]`, "the bracket at character 16 is not closed"},
		{"an empty key", `metadata.labels[""]`, "the key at character 17 is empty"},
		{"a bad escape", `metadata.labels["a\q"]`, `the key "a\q" is not a valid quoted string`},
		{"something after brackets", "spec.ports[0]x", `unexpected 'x' at character 14`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseFieldPath(tc.path)
			if err == nil {
				t.Fatalf("ParseFieldPath(%q) = %q, want an error", tc.path, got)
			}
			if !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("error %q does not say %q", err, tc.mentions)
			}
			if tc.path != "" && !strings.HasPrefix(err.Error(), "field path "+strconv.Quote(tc.path)+": ") {
				t.Errorf("error %q does not quote the path first", err)
			}
		})
	}
}

func FuzzParseFieldPath(f *testing.F) {
	for _, s := range []string{"spec.replicas", `metadata.annotations["a.b/c"]`, "spec.containers[0].image", `x["\""]`, "a..b", "a[", `a["`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		tokens, err := ParseFieldPath(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "field path ") {
				t.Fatalf("error %q does not say it is about a field path", err)
			}
			return
		}
		if len(tokens) == 0 {
			t.Fatalf("ParseFieldPath(%q) accepted a path with no tokens", path)
		}
		for _, tok := range tokens {
			if tok == "" {
				t.Fatalf("ParseFieldPath(%q) = %q holds an empty token", path, tokens)
			}
		}
	})
}

func TestRemoveField(t *testing.T) {
	doc := `{"metadata":{"annotations":{"a.b/c":"1","keep":"2"}},"spec":{"replicas":3,"containers":[{"name":"a","resources":{"cpu":1}},{"name":"b"}]}}`
	cases := []struct {
		name, path, want string
	}{
		{"a scalar", "spec.replicas", `{"metadata":{"annotations":{"a.b/c":"1","keep":"2"}},"spec":{"containers":[{"name":"a","resources":{"cpu":1}},{"name":"b"}]}}`},
		{"a quoted key", `metadata.annotations["a.b/c"]`, `{"metadata":{"annotations":{"keep":"2"}},"spec":{"containers":[{"name":"a","resources":{"cpu":1}},{"name":"b"}],"replicas":3}}`},
		{"a field of a list element", "spec.containers[0].resources", `{"metadata":{"annotations":{"a.b/c":"1","keep":"2"}},"spec":{"containers":[{"name":"a"},{"name":"b"}],"replicas":3}}`},
		{"a list element", "spec.containers[0]", `{"metadata":{"annotations":{"a.b/c":"1","keep":"2"}},"spec":{"containers":[{"name":"b"}],"replicas":3}}`},
		{"a whole object", "metadata.annotations", `{"metadata":{},"spec":{"containers":[{"name":"a","resources":{"cpu":1}},{"name":"b"}],"replicas":3}}`},
		{"a missing key", "spec.paused", doc},
		{"below a missing key", "spec.strategy.type", doc},
		{"an index past the end", "spec.containers[2].name", doc},
		{"below a scalar", "spec.replicas.x", doc},
		{"a key in a list", "spec.containers.name", doc},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := decodeJSON([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			tokens, err := ParseFieldPath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeCanonical(removeField(v, tokens))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := decodeJSON([]byte(tc.want))
			wantJSON, _ := encodeCanonical(want)
			if string(got) != string(wantJSON) {
				t.Errorf("removing %s gives\n%s\nwant\n%s", tc.path, got, wantJSON)
			}
		})
	}
}

func TestRenderIgnoreFields(t *testing.T) {
	spec := RenderSpec{
		Template:   strings.Replace(deploymentYAML, "  labels:\n    app: web\n", "  labels:\n    app: web\n  annotations:\n    sidecar.istio.io/status: injected\n    team: web\n", 1),
		Namespaced: true,
		Overrides: []OverrideRule{{Cluster: "berlin", Patches: []Patch{
			{Path: "/spec/replicas", Value: "9"},
			{Op: OpAdd, Path: "/spec/template/spec/containers/0/resources", Value: `{"limits":{"cpu":"1"}}`},
		}}},
		IgnoreFields: []string{`metadata.annotations["sidecar.istio.io/status"]`, "spec.template.spec.containers[0].resources", "spec.replicas", "spec.paused"},
	}
	r, err := NewRenderer(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Cluster{berlin, {Name: "tokyo"}} {
		for _, replicas := range []*int64{nil, n(4)} {
			got, err := r.Render(c, replicas)
			if err != nil {
				t.Fatal(err)
			}
			for _, gone := range []string{"sidecar.istio.io/status", `"resources"`, `"replicas"`} {
				if strings.Contains(got.Display, gone) || strings.Contains(string(got.Object), gone) {
					t.Errorf("%s with %v replicas: %s is still in %s", c.Name, replicas, gone, got.Object)
				}
			}
			if field(t, got.Display, "metadata", "annotations", "team") != "web" || field(t, got.Display, "spec", "template", "spec", "containers", "0", "image") != "nginx:1.27" {
				t.Errorf("%s: fields next to the ignored ones are gone: %s", c.Name, got.Display)
			}
		}
	}
}

func TestRenderIgnoreFieldsRejected(t *testing.T) {
	cases := []struct {
		name     string
		fields   []string
		index    int
		mentions string
	}{
		{"bad syntax", []string{"spec.replicas", "spec..x"}, 1, `ignored field 1: field path "spec..x": a field name must follow the dot`},
		{"the name", []string{"metadata.name"}, 0, `field path "metadata.name" would remove metadata.name, which identifies the object`},
		{"all of metadata", []string{"metadata"}, 0, "would remove metadata.name"},
		{"the kind", []string{"kind"}, 0, "would remove kind"},
		{"the apiVersion", []string{"apiVersion"}, 0, "would remove apiVersion"},
		{"the namespace", []string{`metadata["namespace"]`}, 0, "would remove metadata.namespace"},
		{"generateName", []string{"spec.x", "spec.y", "metadata.generateName"}, 2, "would remove metadata.generateName"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, IgnoreFields: tc.fields})
			var fe *FieldPathError
			if !errors.As(err, &fe) || fe.Index != tc.index {
				t.Fatalf("err = %v, want a *FieldPathError at index %d", err, tc.index)
			}
			if !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("error %q does not say %q", err, tc.mentions)
			}
		})
	}
	if _, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, IgnoreFields: []string{"metadata.labels", "metadata.annotations"}}); err != nil {
		t.Errorf("metadata fields that do not identify the object should be accepted: %v", err)
	}
}
