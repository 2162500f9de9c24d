package federation

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const configMapDoc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  color: blue\n"

const deploymentDoc = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {replicas: 2}\n"

// placed is what a table expects of one accepted object: its key and
// where it was found.
type placed struct {
	key                           string
	element, document, line, item int
}

func placedOf(ms []Manifest) []placed {
	out := make([]placed, len(ms))
	for i, m := range ms {
		out[i] = placed{m.Key.String(), m.Element, m.Document, m.Line, m.Item}
	}
	return out
}

func TestParseManifestsFindsEveryObject(t *testing.T) {
	tests := []struct {
		name     string
		elements []string
		want     []placed
	}{
		{"one YAML object", []string{configMapDoc}, []placed{{"/v1/ConfigMap/shop/settings", 0, 0, 1, -1}}},
		{"one JSON object", []string{`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`}, []placed{{"/v1/Namespace/shop", 0, 0, 1, -1}}},
		{"documents in one element", []string{configMapDoc + "---\n" + deploymentDoc}, []placed{
			{"/v1/ConfigMap/shop/settings", 0, 0, 1, -1}, {"apps/v1/Deployment/shop/web", 0, 1, 9, -1},
		}},
		{"objects in several elements", []string{deploymentDoc, configMapDoc}, []placed{
			{"apps/v1/Deployment/shop/web", 0, 0, 1, -1}, {"/v1/ConfigMap/shop/settings", 1, 0, 1, -1},
		}},
		{"empty and comment-only documents are skipped and not counted", []string{"---\n# Source: chart/templates/empty.yaml\n---\n\n---\n# Source: chart/templates/cm.yaml\n" + configMapDoc + "--- # trailing\n...\n"}, []placed{
			{"/v1/ConfigMap/shop/settings", 0, 0, 6, -1},
		}},
		{"a separator followed by a comment", []string{"--- # first\n" + configMapDoc + "--- # second\n" + deploymentDoc}, []placed{
			{"/v1/ConfigMap/shop/settings", 0, 0, 2, -1}, {"apps/v1/Deployment/shop/web", 0, 1, 10, -1},
		}},
		{"a marker followed by content starts a document", []string{configMapDoc + "--- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}\n--- !!map\n" + deploymentDoc}, []placed{
			{"/v1/ConfigMap/shop/settings", 0, 0, 1, -1}, {"/v1/Namespace/shop", 0, 1, 8, -1}, {"apps/v1/Deployment/shop/web", 0, 2, 9, -1},
		}},
		{"a document end marker ends a document", []string{configMapDoc + "...\n" + deploymentDoc + "... # end\n"}, []placed{
			{"/v1/ConfigMap/shop/settings", 0, 0, 1, -1}, {"apps/v1/Deployment/shop/web", 0, 1, 9, -1},
		}},
		{"Windows line ends", []string{strings.ReplaceAll(configMapDoc+"---\n"+deploymentDoc, "\n", "\r\n")}, []placed{
			{"/v1/ConfigMap/shop/settings", 0, 0, 1, -1}, {"apps/v1/Deployment/shop/web", 0, 1, 9, -1},
		}},
		{"a line that only starts like a separator", []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  text: |\n    ---\n    body\n"}, []placed{
			{"/v1/ConfigMap/c", 0, 0, 1, -1},
		}},
		{"a List stands for its items", []string{"apiVersion: v1\nkind: List\nmetadata: {resourceVersion: \"\"}\nitems:\n- " + strings.ReplaceAll(strings.TrimSpace(configMapDoc), "\n", "\n  ") + "\n- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}\n"}, []placed{
			{"/v1/ConfigMap/shop/settings", 0, 0, 1, 0}, {"/v1/Namespace/shop", 0, 0, 1, 1},
		}},
		{"a typed list stands for its items", []string{`{"apiVersion":"v1","kind":"ConfigMapList","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n"}}]}`}, []placed{
			{"/v1/ConfigMap/n/a", 0, 0, 1, 0},
		}},
		{"an empty List holds nothing", []string{"apiVersion: v1\nkind: List\nitems: []\n---\n" + configMapDoc}, []placed{
			{"/v1/ConfigMap/shop/settings", 0, 1, 5, -1},
		}},
		{"a named object of a kind ending in List is that object", []string{"apiVersion: policy.example.com/v1\nkind: AllowList\nmetadata: {name: ips}\nitems: [10.0.0.1]\n"}, []placed{
			{"policy.example.com/v1/AllowList/ips", 0, 0, 1, -1},
		}},
		{"the same name in other namespaces and kinds", []string{configMapDoc, strings.Replace(configMapDoc, "shop", "auth", 1), strings.Replace(configMapDoc, "ConfigMap", "Secret", 1)}, []placed{
			{"/v1/ConfigMap/shop/settings", 0, 0, 1, -1}, {"/v1/ConfigMap/auth/settings", 1, 0, 1, -1}, {"/v1/Secret/shop/settings", 2, 0, 1, -1},
		}},
		{"no elements", nil, []placed{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseManifests(tt.elements, ManifestOptions{})
			if err != nil {
				t.Fatalf("ParseManifests: %v", err)
			}
			if p := placedOf(got); !reflect.DeepEqual(p, tt.want) {
				t.Fatalf("found %+v\nwant  %+v", p, tt.want)
			}
		})
	}
}

// manifestProblems returns every *ManifestError in err.
func manifestProblems(t *testing.T, err error) []*ManifestError {
	t.Helper()
	var all []error
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		all = joined.Unwrap()
	} else {
		all = []error{err}
	}
	out := make([]*ManifestError, len(all))
	for i, e := range all {
		if !errors.As(e, &out[i]) {
			t.Fatalf("problem %v is not a *ManifestError", e)
		}
	}
	return out
}

func TestParseManifestsLocatesEveryProblem(t *testing.T) {
	tests := []struct {
		name     string
		elements []string
		// want holds, per problem, "element/document/item object: text".
		want []string
	}{
		{"an empty element", []string{configMapDoc, ""}, []string{"1/-1/-1 : holds no object"}},
		{"an element of comments and separators", []string{"---\n# Source: x.yaml\n---\n"}, []string{"0/-1/-1 : holds no object"}},
		{"no kind", []string{"apiVersion: v1\nmetadata: {name: a}\n"}, []string{"0/0/-1 object a: kind is required"}},
		{"no name", []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: a}\n"}, []string{"0/0/-1 ConfigMap: metadata.name is required"}},
		{"no apiVersion", []string{"kind: ConfigMap\nmetadata: {name: a}\n"}, []string{"0/0/-1 ConfigMap a: apiVersion is required"}},
		{"an apiVersion of three parts", []string{"apiVersion: a/b/c\nkind: ConfigMap\nmetadata: {name: a}\n"}, []string{`0/0/-1 ConfigMap a: apiVersion "a/b/c" is not`}},
		{"an apiVersion without a version", []string{"apiVersion: apps/\nkind: Deployment\nmetadata: {name: a}\n"}, []string{`0/0/-1 Deployment a: apiVersion "apps/" is not`}},
		{"an apiVersion with an empty group", []string{"apiVersion: /v1\nkind: ConfigMap\nmetadata: {name: a}\n"}, []string{`0/0/-1 ConfigMap a: apiVersion "/v1" is not`}},
		{"a name with a slash", []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a/b}\n"}, []string{`0/0/-1 ConfigMap a/b: metadata.name "a/b" may not contain "/"`}},
		{"a name that is a number", []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 7}\n"}, []string{"0/0/-1 ConfigMap: metadata.name must be a string, not a number"}},
		{"metadata that is a string", []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: a\n"}, []string{"0/0/-1 ConfigMap: metadata must be an object, not a string"}},
		{"a label the API server refuses", []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {tier: 3}}\n"}, []string{"0/0/-1 ConfigMap a: metadata.labels"}},
		{"a document that is a list", []string{"- " + strings.ReplaceAll(strings.TrimSpace(configMapDoc), "\n", "\n  ") + "\n"}, []string{"0/0/-1 : must be an object (a YAML mapping), not a list"}},
		{"a document that is a string", []string{configMapDoc + "---\nhello\n"}, []string{"0/1/-1 : must be an object (a YAML mapping), not a string"}},
		{"a document that is null", []string{"~\n"}, []string{"0/0/-1 : must be an object (a YAML mapping), not null"}},
		{"broken YAML", []string{"kind: [unclosed\n"}, []string{"0/0/-1 : yaml:"}},
		{"broken JSON", []string{configMapDoc + "---\n{\"apiVersion\": \"v1\",\n \"kind\" \"ConfigMap\"}\n"}, []string{"0/1/-1 : invalid JSON at line 2"}},
		{"a key given twice", []string{"apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: a}\n"}, []string{`0/0/-1 : yaml: unmarshal errors`}},
		{"a List item without a name", []string{"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n- {apiVersion: v1, kind: Namespace}\n"}, []string{"0/0/1 Namespace: metadata.name is required"}},
		{"a List item that is a string", []string{"apiVersion: v1\nkind: List\nitems: [x]\n"}, []string{"0/0/0 : must be an object (a YAML mapping), not a string"}},
		{"problems in several elements", []string{"kind: ConfigMap\nmetadata: {name: a}\n", configMapDoc, "apiVersion: v1\nmetadata: {name: b}\n"}, []string{
			"0/0/-1 ConfigMap a: apiVersion is required", "2/0/-1 object b: kind is required",
		}},
		{"an object given twice", []string{configMapDoc, deploymentDoc + "---\n" + configMapDoc}, []string{
			"1/1/-1 ConfigMap shop/settings: the same object as element 0, document 0 (from line 1); a set holds each object once",
		}},
		{"an object given twice in other versions", []string{deploymentDoc, strings.Replace(deploymentDoc, "apps/v1", "apps/v1beta2", 1)}, []string{
			"1/0/-1 Deployment shop/web: the same object as element 0, document 0 (from line 1)",
		}},
		{"an object given twice in one List", []string{"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n- {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n"}, []string{
			"0/0/1 Namespace a: the same object as element 0, document 0 (from line 1), item 0",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseManifests(tt.elements, ManifestOptions{})
			if err == nil {
				t.Fatalf("accepted %+v", placedOf(got))
			}
			problems := manifestProblems(t, err)
			if len(problems) != len(tt.want) {
				t.Fatalf("%d problems, want %d: %v", len(problems), len(tt.want), err)
			}
			for i, p := range problems {
				text := fmt.Sprintf("%d/%d/%d %s: %v", p.Element, p.Document, p.Item, p.Object, p.Err)
				if !strings.HasPrefix(text, tt.want[i]) {
					t.Errorf("problem %d is %q, want it to start with %q", i, text, tt.want[i])
				}
				if !strings.HasPrefix(p.Error(), fmt.Sprintf("element %d", p.Element)) {
					t.Errorf("problem %d says %q, without its element first", i, p.Error())
				}
			}
		})
	}
}

func TestManifestErrorSaysWhereAndWhat(t *testing.T) {
	_, err := ParseManifests([]string{configMapDoc, "# Source: a.yaml\n---\n" + configMapDoc}, ManifestOptions{})
	want := "element 1, document 0 (from line 3) (ConfigMap shop/settings): the same object as element 0, document 0 (from line 1); a set holds each object once"
	var dup *DuplicateObjectError
	if err == nil || err.Error() != want || !errors.As(err, &dup) || dup.First.Element != 0 {
		t.Fatalf("error %v, want %q wrapping a *DuplicateObjectError about element 0", err, want)
	}
}

// A manifest's template goes through the renderer as any template does:
// the set is the same pipeline with a list in it.
func TestManifestTemplatesRenderAsTemplates(t *testing.T) {
	ms, err := ParseManifests([]string{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: shop\n  uid: x\ndata: {count: \"1\"}\nbig: 1e3\n"}, ManifestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRenderer(RenderSpec{Template: ms[0].Template, Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	if id := r.Identity(); keyOf(id) != ms[0].Key {
		t.Fatalf("renderer identity %+v, manifest key %v", id, ms[0].Key)
	}
	if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0], "metadata.uid") {
		t.Fatalf("the renderer should warn about the server-owned uid once, warned %q", w)
	}
	got, err := r.Render(berlin, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"v1","big":1000,"data":{"count":"1"},"kind":"ConfigMap","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"c","namespace":"shop"}}`
	if got.Display != want {
		t.Fatalf("rendered %s\nwant     %s", got.Display, want)
	}
}
