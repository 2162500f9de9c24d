package federation

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/render-golden.json with what the engine renders now")

const goldenFile = "testdata/render-golden.json"

// goldenResult is what one case renders: the object and its display, or
// the error.
type goldenResult struct {
	Display string   `json:"display,omitempty"`
	Object  string   `json:"object,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	Error   string   `json:"error,omitempty"`
}

type goldenCase struct {
	name     string
	spec     RenderSpec
	cluster  Cluster
	replicas *int64
}

// goldenPatches are one cluster's patches on richTemplate: insertions and
// removals that shift array elements, values added and then walked into,
// metadata and labels rewritten, keys and values that need escaping,
// numbers, and patches that fail.
var goldenPatches = []struct {
	name    string
	patches []Patch
}{
	{"replace in the first container", []Patch{{Path: "/spec/template/spec/containers/0/image", Value: `"a"`}}},
	{"insert a container, then change the one it shifted", []Patch{
		{Op: OpAdd, Path: "/spec/template/spec/containers/0", Value: `{"name":"init","image":"busybox"}`},
		{Path: "/spec/template/spec/containers/1/image", Value: `"shifted"`},
	}},
	{"remove a container, then change the one that moved up", []Patch{
		{Op: OpRemove, Path: "/spec/template/spec/containers/0"},
		{Path: "/spec/template/spec/containers/0/image", Value: `"moved"`},
	}},
	{"append to arrays", []Patch{
		{Op: OpAdd, Path: "/spec/template/spec/containers/-", Value: `{"name":"last"}`},
		{Op: OpAdd, Path: "/spec/template/spec/containers/0/ports/-", Value: `{"containerPort":8080}`},
		{Op: OpAdd, Path: "/spec/template/spec/volumes/0", Value: `{"name":"v"}`},
	}},
	{"replace a whole array element", []Patch{{Path: "/spec/template/spec/containers/1", Value: `{"name":"new"}`}}},
	{"walk into a value an earlier patch added", []Patch{
		{Op: OpAdd, Path: "/spec/template/spec/affinity", Value: `{"nodeAffinity":{"x":[1,2]}}`},
		{Op: OpAdd, Path: "/spec/template/spec/affinity/nodeAffinity/x/1", Value: `1.5`},
		{Op: OpRemove, Path: "/spec/template/spec/affinity/nodeAffinity/x/0"},
	}},
	{"replace metadata keeping the identity", []Patch{{Path: "/metadata", Value: `{"name":"web","namespace":"shop","labels":{"b":"1"}}`}}},
	{"labels set to null", []Patch{{Path: "/metadata/labels", Value: `null`}}},
	{"labels removed", []Patch{{Op: OpRemove, Path: "/metadata/labels"}}},
	{"labels with the managed label already", []Patch{{Op: OpAdd, Path: "/metadata/labels/kubefed.io~1managed", Value: `"no"`}}},
	{"keys that need escaping", []Patch{
		{Op: OpAdd, Path: "/metadata/annotations/a\"b", Value: `"\u0008\u2029"`},
		{Op: OpAdd, Path: "/metadata/annotations/\u2028~1~0", Value: `{"\u0001":"<>","z":[]}`},
	}},
	{"surrogates and non-ASCII in a value", []Patch{{Op: OpAdd, Path: "/metadata/annotations/s", Value: `"\ud800 \udc00x \ud83d\ude80 \u00e9"`}}},
	{"remove an annotation that has a sibling", []Patch{{Op: OpRemove, Path: "/metadata/annotations/note"}}},
	{"numbers", []Patch{
		{Path: "/spec/template/spec/containers/0/resources/limits/cpu", Value: `2.50e1`},
		{Op: OpAdd, Path: "/spec/x", Value: `[1e300,1.0,-0,9007199254740993,0.000001]`},
	}},
	{"labels made a string", []Patch{{Path: "/metadata/labels", Value: `"x"`}}},
	{"identity changed", []Patch{{Path: "/metadata", Value: `{"name":"other","namespace":"shop"}`}}},
	{"identity changed and back", []Patch{
		{Path: "/metadata", Value: `{"name":"other","namespace":"shop"}`},
		{Path: "/metadata", Value: `{"name":"web","namespace":"shop"}`},
	}},
	{"a path through a scalar", []Patch{{Op: OpAdd, Path: "/spec/replicas/x", Value: `1`}}},
	{"a path through a string in a list", []Patch{{Op: OpAdd, Path: "/spec/template/spec/containers/0/args/0/x", Value: `1`}}},
	{"an index past the end", []Patch{{Path: "/spec/template/spec/containers/2/image", Value: `"x"`}}},
	{"a leading zero index", []Patch{{Path: "/spec/template/spec/containers/01/image", Value: `"x"`}}},
	{"remove a missing key", []Patch{{Op: OpRemove, Path: "/spec/template/spec/containers/0/missing"}}},
	{"add below a missing parent", []Patch{{Op: OpAdd, Path: "/spec/strategy/type", Value: `"Recreate"`}}},
	{"replace of missing members, as KubeFed did", []Patch{
		{Path: "/metadata/labels/track", Value: `"stable"`},
		{Path: "/spec/template/spec/containers/0/ports/-1/name", Value: `"https"`},
	}},
	{"negative indices, as KubeFed read them", []Patch{
		{Op: OpAdd, Path: "/spec/template/spec/containers/-1", Value: `{"name":"last"}`},
		{Path: "/spec/template/spec/containers/-2/image", Value: `"envoy:2"`},
		{Op: OpRemove, Path: "/spec/template/spec/containers/0/args/-1"},
	}},
}

// goldenTemplates render on their own, with and without a replica count.
var goldenTemplates = []struct {
	name, template string
	namespaced     bool
}{
	{"a deployment", deploymentYAML, true},
	{"a secret", secretYAML, true},
	{"numbers", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nx: [1.0, -0, 1e2, 0.1, 1e21, 1e-7, 123456789012345678901234567890, 9007199254740993]\n", false},
	{"server-owned fields", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n, uid: x, resourceVersion: \"1\", generation: 2}\nstatus: {phase: x}\ndata: {k: v}\n", true},
	{"strings that need escaping", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{\"<&>\":\"\\u2028\\u2029 \\u0001 \\t\\n \\\"q\\\" \\\\ ✓ 🚀\",\"b\\u00e9\":\"\\u007f\"}}", false},
	{"surrogate escapes, which YAML refuses", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{\"k\":\"\\ud83d\\ude80\"}}", false},
	{"no labels at all", "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n", false},
}

func goldenCases() []goldenCase {
	var cases []goldenCase
	for _, p := range goldenPatches {
		rules := []OverrideRule{
			// Another cluster's rule, so that each case also shows what
			// clusters the case does not target receive.
			{Cluster: "other", Patches: []Patch{
				{Path: "/spec/template/spec/containers/0/ports", Value: `[]`},
				{Path: "/spec/template/spec/containers/1/env/0", Value: `{}`},
				{Path: "/metadata/annotations/empty", Value: `"x"`},
			}},
			{Cluster: berlin.Name, Patches: p.patches},
		}
		spec := RenderSpec{Template: richTemplate, Namespaced: true, Overrides: rules}
		for _, c := range []Cluster{berlin, {Name: "other"}, {Name: "untargeted"}} {
			cases = append(cases,
				goldenCase{fmt.Sprintf("%s/%s", p.name, c.Name), spec, c, nil},
				goldenCase{fmt.Sprintf("%s/%s/4 replicas", p.name, c.Name), spec, c, n(4)})
		}
	}
	for _, tc := range goldenTemplates {
		spec := RenderSpec{Template: tc.template, Namespaced: tc.namespaced}
		cases = append(cases,
			goldenCase{"template " + tc.name, spec, berlin, nil},
			goldenCase{"template " + tc.name + "/2 replicas", spec, berlin, n(2)})
	}
	return cases
}

func renderGolden(c goldenCase) goldenResult {
	got, err := Render(c.spec, c.cluster, c.replicas)
	if err != nil {
		return goldenResult{Error: err.Error()}
	}
	out := goldenResult{Display: got.Display, Object: string(got.Object)}
	for _, n := range got.Notes {
		out.Notes = append(out.Notes, n.String())
	}
	return out
}

// TestRenderGoldenVectors renders a fixed set of templates and overrides
// and compares every object, display and error with the recorded ones,
// byte for byte: rendering is what plans compare, so any change of it is a
// change users see. Run with -update to record a deliberate change.
func TestRenderGoldenVectors(t *testing.T) {
	cases := goldenCases()
	if *update {
		out := map[string]goldenResult{}
		for _, c := range cases {
			out[c.name] = renderGolden(c)
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]goldenResult
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cases {
		names = append(names, c.name)
		w, ok := want[c.name]
		if !ok {
			t.Errorf("%s: no recorded result; run with -update", c.name)
			continue
		}
		if got := renderGolden(c); !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", c.name, got, w)
		}
	}
	for name := range want {
		if !slices.Contains(names, name) {
			t.Errorf("%s: recorded, but no longer a case", name)
		}
	}
	if len(cases) < 100 || !strings.Contains(string(b), `"error"`) {
		t.Errorf("the vectors should hold well over a hundred cases, failures among them; got %d", len(cases))
	}
}

// richTemplate has arrays of objects and of scalars, nested objects, empty
// containers, and strings and keys that need escaping.
const richTemplate = `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web", "tier": "front-end"},
    "annotations": {"note": "line\nbreak \u2028 \"quoted\" ✓", "a\"b": "c", "html": "<&>", "empty": {}}},
  "spec": {
    "replicas": 3,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {
        "containers": [
          {"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80}, {"containerPort": 443}],
           "args": ["--a", "--b"], "resources": {"limits": {"cpu": 1.5, "memory": "1Gi"}}},
          {"name": "sidecar", "image": "envoy", "env": [{"name": "X", "value": "1"}]}
        ],
        "volumes": [],
        "tolerations": [{"key": "k", "operator": "Exists"}]
      }
    }
  }
}`
