package federation

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serviceYAML has a list of three ports, for indices counted from either
// end, and labels, for members that do not exist yet.
const serviceYAML = `
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
  labels: {app: web}
spec:
  ports: [{port: 1}, {port: 2}, {port: 3}]
`

// kubeFedResult is the part of a rendered Service the cases look at.
func kubeFedResult(t *testing.T, display string) string {
	t.Helper()
	labels := field(t, display, "metadata", "labels").(map[string]any)
	delete(labels, ManagedLabel)
	out := map[string]any{"labels": labels, "spec": field(t, display, "spec")}
	if a := field(t, display, "metadata", "annotations"); a != nil {
		out["annotations"] = a
	}
	b, err := encodeCanonical(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOverridesAsKubeFedAppliedThem pins the results KubeFed's patch
// library (evanphx/json-patch v4.12.0, which KubeFed v0.10 used through
// jsonpatch.DecodePatch and Apply) gave for these patches on this Service,
// so that overrides written for KubeFed render the same objects here.
func TestOverridesAsKubeFedAppliedThem(t *testing.T) {
	const ports = `{"ports":[{"port":1},{"port":2},{"port":3}]}`
	cases := []struct {
		name    string
		patches []Patch
		want    string // labels, spec and annotations, or "" for an error
		notes   []int  // the patches the notes are about
		failing int    // the failing patch, when want is ""
		says    string // what the error says
	}{
		{"replace of a missing label adds it", []Patch{{Op: OpReplace, Path: "/metadata/labels/tier", Value: `"gold"`}},
			`{"labels":{"app":"web","tier":"gold"},"spec":` + ports + `}`, []int{0}, 0, ""},
		{"replace of a missing object adds it", []Patch{{Path: "/metadata/annotations", Value: `{"a":"b"}`}},
			`{"annotations":{"a":"b"},"labels":{"app":"web"},"spec":` + ports + `}`, []int{0}, 0, ""},
		{"replace of a missing member of a list element adds it", []Patch{{Path: "/spec/ports/0/name", Value: `"http"`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"name":"http","port":1},{"port":2},{"port":3}]}}`, []int{0}, 0, ""},
		{"replace of a missing member with null adds null", []Patch{{Path: "/spec/x", Value: `null`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"port":3}],"x":null}}`, []int{0}, 0, ""},
		{"replace of an existing member needs no note", []Patch{{Path: "/metadata/labels/app", Value: `"api"`}},
			`{"labels":{"app":"api"},"spec":` + ports + `}`, nil, 0, ""},
		{"replace of the last element's missing member", []Patch{{Path: "/spec/ports/-1/name", Value: `"last"`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"name":"last","port":3}]}}`, []int{0}, 0, ""},
		{"replace below the last element", []Patch{{Path: "/spec/ports/-1/port", Value: `9`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"port":9}]}}`, nil, 0, ""},
		{"replace of the first element counted from the end", []Patch{{Path: "/spec/ports/-3", Value: `{"port":9}`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":9},{"port":2},{"port":3}]}}`, nil, 0, ""},
		{"add at -1 appends", []Patch{{Op: OpAdd, Path: "/spec/ports/-1", Value: `{"port":9}`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"port":3},{"port":9}]}}`, nil, 0, ""},
		{"add at -2 inserts before the last", []Patch{{Op: OpAdd, Path: "/spec/ports/-2", Value: `{"port":9}`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"port":9},{"port":3}]}}`, nil, 0, ""},
		{"add at minus the length plus one prepends", []Patch{{Op: OpAdd, Path: "/spec/ports/-4", Value: `{"port":9}`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":9},{"port":1},{"port":2},{"port":3}]}}`, nil, 0, ""},
		{"add at the length appends", []Patch{{Op: OpAdd, Path: "/spec/ports/3", Value: `{"port":9}`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"port":3},{"port":9}]}}`, nil, 0, ""},
		{"add at -0 is add at 0", []Patch{{Op: OpAdd, Path: "/spec/ports/-0", Value: `{"port":0}`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":0},{"port":1},{"port":2},{"port":3}]}}`, nil, 0, ""},
		{"remove at -1 removes the last", []Patch{{Op: OpRemove, Path: "/spec/ports/-1"}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2}]}}`, nil, 0, ""},
		{"remove at minus the length removes the first", []Patch{{Op: OpRemove, Path: "/spec/ports/-3"}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":2},{"port":3}]}}`, nil, 0, ""},
		{"indices with a sign or a leading zero", []Patch{{Path: "/spec/ports/01/port", Value: `7`}, {Path: "/spec/ports/+2/port", Value: `8`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":7},{"port":8}]}}`, nil, 0, ""},
		{"-1 after an insertion is the new last", []Patch{{Op: OpAdd, Path: "/spec/ports/1", Value: `{"port":9}`}, {Path: "/spec/ports/-1", Value: `{"port":8}`}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":9},{"port":2},{"port":8}]}}`, nil, 0, ""},
		{"add at -1 of an empty list", []Patch{{Op: OpAdd, Path: "/spec/empty", Value: `[]`}, {Op: OpAdd, Path: "/spec/empty/-1", Value: `1`}},
			`{"labels":{"app":"web"},"spec":{"empty":[1],"ports":[{"port":1},{"port":2},{"port":3}]}}`, nil, 0, ""},

		{"add before the start", []Patch{{Op: OpAdd, Path: "/spec/ports/-5", Value: `{"port":9}`}},
			"", nil, 0, `add "/spec/ports/-5": index "-5" is not in the list at "/spec/ports", which has 3 elements: use 0 to 3, or -1 to -4 to count from the end; "-" appends`},
		{"add past the end", []Patch{{Op: OpAdd, Path: "/spec/ports/4", Value: `{"port":9}`}},
			"", nil, 0, `add "/spec/ports/4": index "4" is not in the list at "/spec/ports"`},
		{"remove before the start", []Patch{{Op: OpRemove, Path: "/spec/ports/-4"}},
			"", nil, 0, `remove "/spec/ports/-4": index "-4" is not in the list at "/spec/ports", which has 3 elements: use 0 to 2, or -1 to -3 to count from the end`},
		{"remove at -1 of an empty list", []Patch{{Op: OpAdd, Path: "/spec/empty", Value: `[]`}, {Op: OpRemove, Path: "/spec/empty/-1"}},
			"", nil, 1, `remove "/spec/empty/-1": the list at "/spec/empty" is empty, so there is nothing to remove; use op "add" to add an element`},
		{"replace before the start", []Patch{{Path: "/spec/ports/-4", Value: `{"port":9}`}},
			"", nil, 0, `replace "/spec/ports/-4": index "-4" is not in the list at "/spec/ports", which has 3 elements: use 0 to 2, or -1 to -3 to count from the end`},
		{"replace past the end, which is not a member", []Patch{{Path: "/spec/ports/3", Value: `{"port":9}`}},
			"", nil, 0, `replace "/spec/ports/3": index "3" is not in the list at "/spec/ports", which has 3 elements: use 0 to 2`},
		{"replace of the append position", []Patch{{Path: "/spec/ports/-", Value: `1`}},
			"", nil, 0, `replace "/spec/ports/-": index "-" is not in the list at "/spec/ports"`},
		{"replace below a missing parent", []Patch{{Path: "/spec/missing/x", Value: `1`}},
			"", nil, 0, `replace "/spec/missing/x": the path does not exist in this cluster's object`},
		{"replace below a scalar", []Patch{{Path: "/spec/ports/-1/port/x", Value: `7`}},
			"", nil, 0, `replace "/spec/ports/-1/port/x": the path does not exist in this cluster's object`},
		{"replace of a key in a list", []Patch{{Path: "/spec/ports/x", Value: `7`}},
			"", nil, 0, `replace "/spec/ports/x": index "x" is not in the list at "/spec/ports"`},
		{"remove of a missing label", []Patch{{Op: OpRemove, Path: "/metadata/labels/missing"}},
			"", nil, 0, `remove "/metadata/labels/missing": the path does not exist in this cluster's object`},
		// KubeFed's library crashed here, on the null it had just added.
		{"add below a null added before", []Patch{{Op: OpAdd, Path: "/spec/x", Value: `null`}, {Op: OpAdd, Path: "/spec/x/y", Value: `1`}},
			"", nil, 1, `add "/spec/x/y": the parent of the path, "/spec/x", is null in this cluster's object, not an object or a list; set it to an object or a list first`},
		{"add below a number", []Patch{{Op: OpAdd, Path: "/spec/ports/0/port/x", Value: `1`}},
			"", nil, 0, `add "/spec/ports/0/port/x": the parent of the path, "/spec/ports/0/port", is a number in this cluster's object, not an object or a list; nothing can be added inside it`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRenderer(RenderSpec{Template: serviceYAML, Namespaced: true, Overrides: []OverrideRule{
				{Cluster: "other", Patches: []Patch{{Op: OpAdd, Path: "/spec/type", Value: `"NodePort"`}}},
				{Cluster: berlin.Name, Patches: tc.patches},
			}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Render(berlin, nil)
			if tc.want == "" {
				var oe *OverrideError
				if !errors.As(err, &oe) || oe.Rule != 1 || oe.Patch != tc.failing || oe.Cluster != berlin.Name {
					t.Fatalf("err = %v, want an *OverrideError at rule 1, patch %d, cluster berlin", err, tc.failing)
				}
				if !strings.Contains(err.Error(), tc.says) {
					t.Errorf("error %q does not say %q", err, tc.says)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res := kubeFedResult(t, got.Display); res != tc.want {
				t.Errorf("got  %s\nwant %s", res, tc.want)
			}
			var notes []int
			for _, n := range got.Notes {
				notes = append(notes, n.Patch)
				if n.Rule != 1 || n.Cluster != berlin.Name || n.Path != tc.patches[n.Patch].Path ||
					!strings.Contains(n.Message, `so it is added, as KubeFed did; use op "add"`) {
					t.Errorf("note %+v does not name rule 1, the patch's path and berlin, or does not suggest add", n)
				}
			}
			if !reflect.DeepEqual(notes, tc.notes) {
				t.Errorf("notes about patches %v, want %v", notes, tc.notes)
			}
		})
	}
}

func TestReplaceOfAMissingMemberNotesNameEachCluster(t *testing.T) {
	r, err := NewRenderer(RenderSpec{Template: serviceYAML, Namespaced: true, Overrides: []OverrideRule{
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, Patches: []Patch{
			{Op: OpAdd, Path: "/spec/type", Value: `"NodePort"`},
			{Path: "/metadata/labels/tier", Value: `"gold"`},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"paris", "lyon", "paris"} {
		got, err := r.Render(Cluster{Name: name, Labels: map[string]string{"env": "prod"}}, n(2))
		if err != nil {
			t.Fatal(err)
		}
		want := []Note{{Rule: 0, Patch: 1, Cluster: name, Path: "/metadata/labels/tier",
			Message: `replace "/metadata/labels/tier": the field does not exist in this cluster's object, so it is added, as KubeFed did; use op "add" to add a field`}}
		if !reflect.DeepEqual(got.Notes, want) {
			t.Errorf("%s: notes = %+v, want %+v", name, got.Notes, want)
		}
	}
	if len(r.shared.renders) != 1 {
		t.Errorf("%d renderings for clusters that receive the same object, want 1", len(r.shared.renders))
	}
	untargeted, err := r.Render(Cluster{Name: "berlin"}, n(2))
	if err != nil || untargeted.Notes != nil {
		t.Errorf("an untargeted cluster got notes %v, %v", untargeted.Notes, err)
	}
}

func TestOverridesLeavingInvalidLabels(t *testing.T) {
	cases := []struct {
		name        string
		rules       []OverrideRule
		rule, patch int
		says        string
	}{
		{"a number", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/version", Value: `2`}}}},
			0, 0, `label "version" is a number, but label values are strings; write "2", in JSON quotes`},
		{"a boolean", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/canary", Value: `true`}}}},
			0, 0, `label "canary" is a boolean, but label values are strings; write "true", in JSON quotes`},
		{"null", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/metadata/labels/app", Value: `null`}}}},
			0, 0, `label "app" is null, but label values are strings; remove the label with op "remove" instead`},
		{"an object", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/x", Value: `{"y":"z"}`}}}},
			0, 0, `label "x" is an object, but label values are strings`},
		{"the whole labels map", []OverrideRule{{Cluster: "berlin", Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/annotations", Value: `{}`},
			{Path: "/metadata/labels", Value: `{"a":"1","b":2}`},
		}}}, 0, 1, `label "b" is a number`},
		{"labels in a whole metadata", []OverrideRule{{Cluster: "berlin", Patches: []Patch{
			{Path: "/metadata", Value: `{"name":"web","namespace":"shop","labels":{"a":[1]}}`},
		}}}, 0, 0, `label "a" is a list`},
		{"labels that are not an object", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/metadata/labels", Value: `"none"`}}}},
			0, 0, `the overrides leave metadata.labels as a string, where the kubefed.io/managed label must go`},
		{"an invalid key", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/a~1b~1c", Value: `"v"`}}}},
			0, 0, `label key "a/b/c" is not valid: a valid label key must consist of`},
		{"an invalid value", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/team", Value: `"web team"`}}}},
			0, 0, `label "team": value "web team" is not valid`},
		{"a value too long", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/team", Value: `"` + strings.Repeat("a", 64) + `"`}}}},
			0, 0, `is not valid: must be no more than 63 bytes`},
		{"an earlier rule's label among a later rule's", []OverrideRule{
			{Selector: &metav1.LabelSelector{}, Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/version", Value: `2`}}},
			{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/team", Value: `"web"`}, {Op: OpRemove, Path: "/metadata/labels/app"}}},
		}, 0, 0, `label "version" is a number`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: tc.rules})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Render(berlin, n(2))
			var oe *OverrideError
			if !errors.As(err, &oe) || oe.Rule != tc.rule || oe.Patch != tc.patch || oe.Cluster != berlin.Name {
				t.Fatalf("err = %v, want an *OverrideError at rule %d, patch %d, cluster berlin", err, tc.rule, tc.patch)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
		})
	}
}

func TestOverridesLeavingValidLabels(t *testing.T) {
	rules := []OverrideRule{{Cluster: "berlin", Patches: []Patch{
		{Op: OpAdd, Path: "/metadata/labels/version", Value: `2`},
		{Path: "/metadata/labels/version", Value: `"2"`},
		{Op: OpAdd, Path: "/metadata/labels/example.com~1team", Value: `""`},
		{Op: OpAdd, Path: "/metadata/labels/kubefed.io~1managed", Value: `false`},
	}}}
	got := mustRender(t, RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules}, berlin, nil)
	want := map[string]any{"app": "web", "version": "2", "example.com/team": "", ManagedLabel: "true"}
	if l := field(t, got.Display, "metadata", "labels"); !reflect.DeepEqual(l, want) {
		t.Errorf("labels = %v, want %v: a label fixed by a later patch, or overwritten by the managed label, is fine", l, want)
	}
}

func TestLabelsWrittenByTheReplicaCount(t *testing.T) {
	_, err := Render(RenderSpec{Template: deploymentYAML, Namespaced: true, ReplicasPath: "/metadata/labels/replicas"}, berlin, n(2))
	want := `cluster "berlin": setting 2 replicas at "/metadata/labels/replicas": label "replicas" is a number, but label values are strings`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want it to start with %q", err, want)
	}
}

func TestTemplateFinalizers(t *testing.T) {
	const warning = "template: dropped metadata.finalizers: nothing on the member clusters would remove them, so deleting the object there would never finish; the members' own controllers add the finalizers they handle"
	cases := []struct {
		name, finalizers string
		warned           bool
	}{
		{"some finalizers", "[example.com/cleanup]", true},
		{"an empty list", "[]", false},
		{"null", "null", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			template := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop, finalizers: %s}\ndata: {k: v}\n", tc.finalizers)
			r, err := NewRenderer(RenderSpec{Template: template, Namespaced: true})
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Render(berlin, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(got.Display, "finalizers") {
				t.Errorf("finalizers reach the member: %s", got.Display)
			}
			if _, ok := r.HostTemplate()["metadata"]; ok {
				t.Errorf("the host template keeps them: %v", r.HostTemplate())
			}
			if warned := len(got.Warnings) == 1 && got.Warnings[0] == warning; warned != tc.warned || len(got.Warnings) > 1 {
				t.Errorf("warnings = %q, want the warning: %v", got.Warnings, tc.warned)
			}
		})
	}
	// Overrides may still add finalizers, as in KubeFed.
	rules := []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/finalizers", Value: `["example.com/x"]`}}}}
	got := mustRender(t, RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules}, berlin, nil)
	if f := field(t, got.Display, "metadata", "finalizers", "0"); f != "example.com/x" {
		t.Errorf("an override's finalizer is gone: %s", got.Display)
	}
}

// TestWhereRenderingDiffersFromKubeFed pins the documented differences from
// KubeFed's rendering that the tables above do not: what KubeFed refused or
// dropped is rendered here, and numbers KubeFed rounded stay exact.
func TestWhereRenderingDiffersFromKubeFed(t *testing.T) {
	annotated := strings.Replace(serviceYAML, "  labels: {app: web}\n", "  labels: {app: web}\n  annotations: {team: web}\n", 1)
	cases := []struct {
		name     string
		template string
		rules    []OverrideRule
		want     string
	}{
		{"the template's annotations reach the member", annotated, nil,
			`{"annotations":{"team":"web"},"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"port":3}]}}`},
		{"an override adds to the template's annotations", annotated,
			[]OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/annotations/tier", Value: `"gold"`}}}},
			`{"annotations":{"team":"web","tier":"gold"},"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"port":3}]}}`},
		{"one path twice in one rule: the later patch wins", serviceYAML,
			[]OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/spec/ports/0/port", Value: `7`}, {Path: "/spec/ports/0/port", Value: `8`}}}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":8},{"port":2},{"port":3}]}}`},
		{"one path in a named rule and a selector rule: list order wins", serviceYAML,
			[]OverrideRule{
				{Cluster: "berlin", Patches: []Patch{{Path: "/spec/ports/-1/port", Value: `7`}}},
				{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu-central"}}, Patches: []Patch{{Path: "/spec/ports/2/port", Value: `9`}}},
			},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"port":9}]}}`},
		{"an add then a remove of one path leaves nothing", serviceYAML,
			[]OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/spec/type", Value: `"NodePort"`}, {Op: OpRemove, Path: "/spec/type"}}}},
			`{"labels":{"app":"web"},"spec":{"ports":[{"port":1},{"port":2},{"port":3}]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustRender(t, RenderSpec{Template: tc.template, Namespaced: true, Overrides: tc.rules}, berlin, nil)
			if res := kubeFedResult(t, got.Display); res != tc.want {
				t.Errorf("got  %s\nwant %s", res, tc.want)
			}
			if len(got.Notes) > 0 || len(got.Warnings) > 0 {
				t.Errorf("notes %v, warnings %v, want none", got.Notes, got.Warnings)
			}
		})
	}
	t.Run("an integer above 2^53 stays exact", func(t *testing.T) {
		// KubeFed decoded the object into float64s, which would send 9007199254740992.
		rules := []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/spec/ports/0/port", Value: `9007199254740993`}}}}
		got := mustRender(t, RenderSpec{Template: serviceYAML, Namespaced: true, Overrides: rules}, berlin, nil)
		if want := `"ports":[{"port":9007199254740993},{"port":2},{"port":3}]`; !strings.Contains(got.Display, want) {
			t.Errorf("rendered %s, want it to hold %s", got.Display, want)
		}
	})
}
