package federation

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// widgetHead is the start of a cluster-scoped custom object's template, as
// canonical JSON shows it: the tests below complete it with a spec.
const widgetHead = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"w"}`

func TestTemplateNullFieldsAreAbsent(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a null top-level field",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1},"extra":null}`,
			widgetHead + `,"spec":{"size":1}}`},
		{"a nested null field",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"foo":null,"deep":{"bar":null,"baz":"x"}}}`,
			widgetHead + `,"spec":{"deep":{"baz":"x"},"size":1}}`},
		{"a null field of a mapping inside a list",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"ports":[{"name":"http","port":80,"protocol":null},{"port":443}]}}`,
			widgetHead + `,"spec":{"ports":[{"name":"http","port":80},{"port":443}]}}`},
		{"a null field of a mapping in a list in a list",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"matrix":[[{"a":null,"b":1}]]}}`,
			widgetHead + `,"spec":{"matrix":[[{"b":1}]]}}`},
		{"a null element of a list is kept",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"args":["a",null,"b"]}}`,
			widgetHead + `,"spec":{"args":["a",null,"b"]}}`},
		{"a mapping whose fields are all null is kept empty",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"a":null}}`,
			widgetHead + `,"spec":{}}`},
		{"a mapping emptied inside a list is kept empty",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"volumes":[{"name":"tmp","emptyDir":{"sizeLimit":null}}]}}`,
			widgetHead + `,"spec":{"volumes":[{"emptyDir":{},"name":"tmp"}]}}`},
		{"a null label and annotations",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"team":null,"app":"w"},"annotations":null}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"labels":{"app":"w","kubefed.io/managed":"true"},"name":"w"}}`},
		{"YAML tilde",
			"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  foo: ~\n  size: 1\n",
			widgetHead + `,"spec":{"size":1}}`},
		{"YAML null in any spelling, and an empty value",
			"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  a: null\n  b: Null\n  c: NULL\n  d:\n  size: 1\n",
			widgetHead + `,"spec":{"size":1}}`},
		{"a quoted null is a string",
			"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {a: \"null\", b: \"~\"}\n",
			widgetHead + `,"spec":{"a":"null","b":"~"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustRender(t, RenderSpec{Template: tt.in}, berlin, nil)
			if got.Display != tt.want {
				t.Errorf("rendered %s\nwant     %s", got.Display, tt.want)
			}
			if string(got.Object) != got.Display {
				t.Errorf("object sent %s\ndiffers from what the plan shows %s", got.Object, got.Display)
			}
			if len(got.Warnings) != 0 {
				t.Errorf("a null field is absent, not worth a warning; warned %q", got.Warnings)
			}
		})
	}
}

// TestTemplateNullFieldRendersAsIfAbsent pins that writing a field as null
// is the same as leaving it out, in every form of the object: what the plan
// shows, what members receive, what the host stores and what a set's
// manifest holds.
func TestTemplateNullFieldRendersAsIfAbsent(t *testing.T) {
	without := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop, labels: {app: c}}\ndata: {a: \"1\"}\n"
	tests := []struct {
		name, with string
	}{
		{"a null field in YAML", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop, labels: {app: c, team: ~}}\ndata: {a: \"1\", b: null}\nbinaryData: ~\n"},
		{"a null field in JSON", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"shop","labels":{"app":"c"},"annotations":null},"data":{"a":"1","b":null}}`},
	}
	base := mustRenderer(t, without)
	want := mustRender(t, RenderSpec{Template: without, Namespaced: true}, berlin, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustRender(t, RenderSpec{Template: tt.with, Namespaced: true}, berlin, nil)
			if got.Display != want.Display || string(got.Object) != string(want.Object) {
				t.Errorf("rendered %s\nwant     %s", got.Object, want.Object)
			}
			if host, wantHost := mustRenderer(t, tt.with).HostTemplate(), base.HostTemplate(); !reflect.DeepEqual(host, wantHost) {
				t.Errorf("host template %v\nwant          %v", host, wantHost)
			}
			ms, err := ParseManifests([]string{tt.with}, ManifestOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(ms[0].Template, "null") {
				t.Errorf("the manifest keeps a null: %s", ms[0].Template)
			}
			fromManifest := mustRender(t, RenderSpec{Template: ms[0].Template, Namespaced: true}, berlin, nil)
			if fromManifest.Display != want.Display {
				t.Errorf("the manifest renders %s\nwant               %s", fromManifest.Display, want.Display)
			}
		})
	}
}

func TestTemplateNullIdentityFieldsAreMissing(t *testing.T) {
	_, err := NewRenderer(RenderSpec{Template: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":null}}`})
	if err == nil || !strings.Contains(err.Error(), "metadata.name is required") {
		t.Errorf("error %v, want metadata.name is required", err)
	}
}

// TestOverrideNullValueSetsNull pins that an override's value is a JSON
// patch value: null sets the field to null, and "remove" is how an override
// takes a field away.
func TestOverrideNullValueSetsNull(t *testing.T) {
	template := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 1}\n"
	tests := []struct {
		name  string
		patch Patch
		want  string
	}{
		{"a null value is kept", Patch{Op: OpAdd, Path: "/spec/size", Value: `null`}, widgetHead + `,"spec":{"size":null}}`},
		{"remove takes the field away", Patch{Op: OpRemove, Path: "/spec/size"}, widgetHead + `,"spec":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules := []OverrideRule{{Cluster: berlin.Name, Patches: []Patch{tt.patch}}}
			got := mustRender(t, RenderSpec{Template: template, Overrides: rules}, berlin, nil)
			if got.Display != tt.want {
				t.Errorf("rendered %s\nwant     %s", got.Display, tt.want)
			}
		})
	}
}

func mustRenderer(t *testing.T, template string) *Renderer {
	t.Helper()
	r, err := NewRenderer(RenderSpec{Template: template, Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkNoNullFields fails when a mapping in the rendered object holds a
// null: the template's nulls are absent fields.
func checkNoNullFields(t *testing.T, object []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(object, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch node := v.(type) {
		case map[string]any:
			for _, child := range node {
				if child == nil || !walk(child) {
					return false
				}
			}
		case []any:
			for _, child := range node {
				if !walk(child) {
					return false
				}
			}
		}
		return true
	}
	if !walk(v) {
		t.Fatalf("a null field reaches the member: %s", object)
	}
}
