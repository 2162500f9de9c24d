package federation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// wholeTemplate returns a copy of r that patches the whole template, as
// every render did before skeletons, and shares nothing with r.
func wholeTemplate(r *Renderer) *Renderer {
	whole := *r
	whole.skeleton = nil
	whole.shared = &sharedRenders{}
	return &whole
}

// checkSameAsWhole renders c with r, from its skeleton when it has one, and
// from the whole template, with nothing shared, and fails unless both give
// the same object or the same error.
func checkSameAsWhole(t *testing.T, r *Renderer, c Cluster, replicas *int64) {
	t.Helper()
	fresh := *r
	fresh.shared = &sharedRenders{}
	got, err := fresh.Render(c, replicas)
	want, wantErr := wholeTemplate(r).Render(c, replicas)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Fatalf("from the skeleton: %v, %v\nfrom the whole template: %v, %v\nskeleton: %s", got.Display, err, want.Display, wantErr, skeletonDoc(r))
	case err != nil:
		var oe, wantOE *OverrideError
		isOE, wantIsOE := errors.As(err, &oe), errors.As(wantErr, &wantOE)
		if err.Error() != wantErr.Error() || isOE != wantIsOE || (isOE && (oe.Rule != wantOE.Rule || oe.Patch != wantOE.Patch || oe.Cluster != wantOE.Cluster)) {
			t.Fatalf("from the skeleton: %v\nfrom the whole template: %v", err, wantErr)
		}
	case got.Display != want.Display || !bytes.Equal(got.Object, want.Object) || got.Sensitive != want.Sensitive || !slices.Equal(got.Warnings, want.Warnings):
		t.Fatalf("from the skeleton:\n%s\nfrom the whole template:\n%s\nskeleton: %s", got.Object, want.Object, skeletonDoc(r))
	}
}

func skeletonDoc(r *Renderer) string {
	if r.skeleton == nil {
		return "none"
	}
	return string(r.skeleton.doc)
}

// usesSkeleton reports whether rendering c takes the skeleton's way to
// success rather than falling back to the whole template.
func usesSkeleton(r *Renderer, c Cluster, replicas *int64) bool {
	_, ok := r.renderSkeleton(r.operations(replicas, r.targeting(c)))
	return ok
}

func TestSkeletonKeepsOnlyWhatPathsReach(t *testing.T) {
	rules := []OverrideRule{
		{Selector: &Selector{}, Patches: []Patch{{Op: OpAdd, Path: "/metadata/annotations", Value: `{"tier":"prod"}`}}},
		{Selector: &Selector{}, Patches: []Patch{{Op: OpAdd, Path: "/spec/template/spec/containers/0/env", Value: `[]`}}},
		{Cluster: "berlin", Patches: []Patch{{Path: "/spec/template/spec/containers/0/image", Value: `"nginx:2"`}}},
	}
	r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules})
	if err != nil {
		t.Fatal(err)
	}
	// Objects nothing can replace keep only the members on the paths and
	// get the others back by position; no markers are needed.
	want := `{"metadata":{},"spec":{"replicas":3,"template":{"spec":{"containers":[{"image":"nginx:1.27"}]}}}}`
	if got := skeletonDoc(r); got != want {
		t.Errorf("skeleton = %s\nwant       %s", got, want)
	}
	for _, c := range []Cluster{berlin, {Name: "tokyo"}} {
		for _, replicas := range []*int64{nil, n(0), n(5)} {
			checkSameAsWhole(t, r, c, replicas)
			if !usesSkeleton(r, c, replicas) {
				t.Errorf("%s with %v replicas did not render from the skeleton", c.Name, replicas)
			}
		}
	}

	// Paths that end at an object or at array elements make what is below
	// replaceable: what those objects left out travels with them.
	rules = append(rules,
		OverrideRule{Cluster: "tokyo", Patches: []Patch{
			{Path: "/spec/template", Value: `{"spec":{"containers":[{"name":"x","image":"y"}]}}`},
			{Op: OpAdd, Path: "/spec/template/spec/containers/0", Value: `{"name":"first","image":"z"}`},
			{Path: "/spec/selector", Value: `{"matchLabels":{"app":"other"}}`},
		}},
	)
	r, err = NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"metadata":{},"spec":{"replicas":3,"selector":{"` + skeletonKey + `":0},"template":{"spec":{"containers":[{"image":"nginx:1.27","` + skeletonKey + `":1}]},"` + skeletonKey + `":2}}}`
	if got := skeletonDoc(r); got != want {
		t.Errorf("skeleton = %q\nwant       %q", got, want)
	}
	for _, c := range []Cluster{berlin, {Name: "tokyo"}, {Name: "paris"}} {
		checkSameAsWhole(t, r, c, n(2))
		if !usesSkeleton(r, c, n(2)) {
			t.Errorf("%s did not render from the skeleton", c.Name)
		}
	}
}

func TestSkeletonNotBuilt(t *testing.T) {
	marker := skeletonKey
	if marker != "\u007f" {
		t.Fatalf("the cases below spell the marker \\u007f, not %q", marker)
	}
	cases := []struct {
		name     string
		template string
		patches  []Patch
	}{
		{"a template key is the marker", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"\u007f":"x"}}`, nil},
		{"a value holds the marker as a key", deploymentYAML, []Patch{{Op: OpAdd, Path: "/metadata/annotations", Value: `{"` + marker + `":"1"}`}}},
		{"a path names the marker", deploymentYAML, []Patch{{Op: OpAdd, Path: "/metadata/" + marker, Value: `1`}}},
		{"a path holds an empty token", deploymentYAML, []Patch{{Op: OpAdd, Path: "/metadata//x", Value: `1`}}},
		{"a Secret", secretYAML, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rules []OverrideRule
			if tc.patches != nil {
				rules = []OverrideRule{{Cluster: berlin.Name, Patches: tc.patches}}
			}
			r, err := NewRenderer(RenderSpec{Template: tc.template, Namespaced: strings.Contains(tc.template, "namespace"), Overrides: rules})
			if err != nil {
				t.Fatal(err)
			}
			if r.skeleton != nil {
				t.Errorf("a skeleton was built: %q", r.skeleton.doc)
			}
			checkSameAsWhole(t, r, berlin, nil)
		})
	}
}

// richTemplate has arrays of objects and of scalars, nested objects, empty
// containers, and strings and keys that need escaping.
const richTemplate = `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web", "tier": "<&>"},
    "annotations": {"note": "line\nbreak \u2028 \"quoted\" ✓", "a\"b": "c", "empty": {}}},
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

func TestSkeletonMatchesWholeTemplate(t *testing.T) {
	cases := []struct {
		name     string
		patches  []Patch
		skeleton bool // whether the render should come from the skeleton
	}{
		{"replace in the first container", []Patch{{Path: "/spec/template/spec/containers/0/image", Value: `"a"`}}, true},
		{"insert a container, then change the one it shifted", []Patch{
			{Op: OpAdd, Path: "/spec/template/spec/containers/0", Value: `{"name":"init","image":"busybox"}`},
			{Path: "/spec/template/spec/containers/1/image", Value: `"shifted"`},
		}, true},
		{"remove a container, then change the one that moved up", []Patch{
			{Op: OpRemove, Path: "/spec/template/spec/containers/0"},
			{Path: "/spec/template/spec/containers/0/image", Value: `"moved"`},
		}, true},
		{"append to arrays", []Patch{
			{Op: OpAdd, Path: "/spec/template/spec/containers/-", Value: `{"name":"last"}`},
			{Op: OpAdd, Path: "/spec/template/spec/containers/0/ports/-", Value: `{"containerPort":8080}`},
			{Op: OpAdd, Path: "/spec/template/spec/volumes/0", Value: `{"name":"v"}`},
		}, true},
		{"replace a whole array element", []Patch{{Path: "/spec/template/spec/containers/1", Value: `{"name":"new"}`}}, true},
		{"walk into a value an earlier patch added", []Patch{
			{Op: OpAdd, Path: "/spec/template/spec/affinity", Value: `{"nodeAffinity":{"x":[1,2]}}`},
			{Op: OpAdd, Path: "/spec/template/spec/affinity/nodeAffinity/x/1", Value: `1.5`},
			{Op: OpRemove, Path: "/spec/template/spec/affinity/nodeAffinity/x/0"},
		}, true},
		{"replace metadata keeping the identity", []Patch{{Path: "/metadata", Value: `{"name":"web","namespace":"shop","labels":{"b":"1"}}`}}, true},
		{"labels set to null", []Patch{{Path: "/metadata/labels", Value: `null`}}, true},
		{"labels removed", []Patch{{Op: OpRemove, Path: "/metadata/labels"}}, true},
		{"labels with the managed label already", []Patch{{Op: OpAdd, Path: "/metadata/labels/kubefed.io~1managed", Value: `"no"`}}, true},
		{"keys that need escaping", []Patch{
			{Op: OpAdd, Path: "/metadata/annotations/a\"b", Value: `"\u0008\u2029"`},
			{Op: OpAdd, Path: "/metadata/annotations/\u2028~1~0", Value: `{"\u0001":"<>","z":[]}`},
		}, true},
		{"remove an annotation that has a sibling", []Patch{{Op: OpRemove, Path: "/metadata/annotations/note"}}, true},
		{"numbers", []Patch{{Path: "/spec/template/spec/containers/0/resources/limits/cpu", Value: `2.50e1`}, {Op: OpAdd, Path: "/spec/x", Value: `[1e300,1.0,-0]`}}, true},
		{"labels made a string", []Patch{{Path: "/metadata/labels", Value: `"x"`}}, false},
		{"identity changed", []Patch{{Path: "/metadata", Value: `{"name":"other","namespace":"shop"}`}}, false},
		{"identity changed and back", []Patch{
			{Path: "/metadata", Value: `{"name":"other","namespace":"shop"}`},
			{Path: "/metadata", Value: `{"name":"web","namespace":"shop"}`},
		}, true},
		{"a path through a scalar", []Patch{{Op: OpAdd, Path: "/spec/replicas/x", Value: `1`}}, false},
		{"a path through a stand-in's place", []Patch{{Op: OpAdd, Path: "/spec/template/spec/containers/0/args/0/x", Value: `1`}}, false},
		{"an index past the end", []Patch{{Path: "/spec/template/spec/containers/2/image", Value: `"x"`}}, false},
		{"a leading zero index", []Patch{{Path: "/spec/template/spec/containers/01/image", Value: `"x"`}}, true},
		{"remove a missing key", []Patch{{Op: OpRemove, Path: "/spec/template/spec/containers/0/missing"}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Another cluster's rule touches paths around this one's, so
			// that the skeleton has stand-ins and markers this cluster's
			// render must restore.
			rules := []OverrideRule{
				{Cluster: "other", Patches: []Patch{
					{Path: "/spec/template/spec/containers/0/ports", Value: `[]`},
					{Path: "/spec/template/spec/containers/1/env/0", Value: `{}`},
					{Path: "/metadata/annotations/empty", Value: `"x"`},
					{Path: "/spec/template/spec/tolerations", Value: `[]`},
				}},
				{Cluster: berlin.Name, Patches: tc.patches},
			}
			r, err := NewRenderer(RenderSpec{Template: richTemplate, Namespaced: true, Overrides: rules})
			if err != nil {
				t.Fatal(err)
			}
			if r.skeleton == nil {
				t.Fatal("no skeleton was built")
			}
			for _, c := range []Cluster{berlin, {Name: "other"}, {Name: "untargeted"}} {
				for _, replicas := range []*int64{nil, n(4)} {
					checkSameAsWhole(t, r, c, replicas)
				}
			}
			if got := usesSkeleton(r, berlin, n(4)); got != tc.skeleton {
				t.Errorf("rendered from the skeleton: %v, want %v", got, tc.skeleton)
			}
		})
	}
}

// TestOverrideErrorsFromSkeletonNameRulePatchAndCluster checks that when
// the operations of several rules, applied together to the skeleton, fail,
// the error still names the rule, the patch and the cluster at fault.
func TestOverrideErrorsFromSkeletonNameRulePatchAndCluster(t *testing.T) {
	prod := Cluster{Name: "paris", Labels: map[string]string{"env": "prod"}}
	rules := []OverrideRule{
		{Selector: &Selector{MatchLabels: map[string]string{"env": "prod"}}, Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/annotations", Value: `{"a":"1"}`},
			{Op: OpAdd, Path: "/metadata/annotations/b", Value: `"2"`},
		}},
		{Cluster: "paris", Patches: []Patch{
			{Path: "/spec/template/spec/containers/0/image", Value: `"x"`},
			{Op: OpRemove, Path: "/spec/template/spec/containers/0/ports/1"},
			{Path: "/spec/replicas", Value: `2`},
		}},
		{Selector: &Selector{}, Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/x", Value: `"y"`}}},
		{Cluster: "lyon", Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/annotations/c", Value: `"3"`},
		}},
		{Cluster: "nice", Patches: []Patch{
			{Path: "/metadata/labels", Value: `{"name":"x"}`},
			{Path: "/metadata", Value: `{"name":"other","namespace":"shop"}`},
		}},
	}
	r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules})
	if err != nil {
		t.Fatal(err)
	}
	if r.skeleton == nil {
		t.Fatal("no skeleton was built")
	}
	for _, tc := range []struct {
		cluster  Cluster
		replicas *int64
		rule     int
		patch    int
		mentions string
	}{
		{prod, n(3), 1, 1, `remove "/spec/template/spec/containers/0/ports/1": the path does not exist in this cluster's object`},
		{Cluster{Name: "lyon"}, nil, 3, 0, `add "/metadata/annotations/c": the parent of the path does not exist in this cluster's object`},
		{Cluster{Name: "nice"}, n(1), 4, 1, `replace "/metadata" changes the object's kind, name, namespace or generateName, which overrides may not change`},
	} {
		checkSameAsWhole(t, r, tc.cluster, tc.replicas)
		_, err := r.Render(tc.cluster, tc.replicas)
		var oe *OverrideError
		if !errors.As(err, &oe) || oe.Rule != tc.rule || oe.Patch != tc.patch || oe.Cluster != tc.cluster.Name {
			t.Errorf("%s: err = %v, want rule %d, patch %d, cluster %q", tc.cluster.Name, err, tc.rule, tc.patch, tc.cluster.Name)
			continue
		}
		want := fmt.Sprintf("override rule %d, patch %d, cluster %q: %s", tc.rule, tc.patch, tc.cluster.Name, tc.mentions)
		if err.Error() != want {
			t.Errorf("err = %q\nwant  %q", err, want)
		}
	}
	// The replicas, applied with the rules, are blamed on their own.
	noSpec, err := NewRenderer(RenderSpec{Template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", Overrides: rules[2:3]})
	if err != nil {
		t.Fatal(err)
	}
	checkSameAsWhole(t, noSpec, prod, n(2))
	_, err = noSpec.Render(prod, n(2))
	if err == nil || !strings.HasPrefix(err.Error(), `cluster "paris": setting 2 replicas at "/spec/replicas": `) {
		t.Errorf("replicas error = %v", err)
	}
}

// FuzzSkeletonMatchesWholeTemplate applies two fuzzed patches, from a rule
// by selector and a rule by name, with a fuzzed replica count, to a template
// with nested arrays, and checks that rendering from the skeleton gives
// what rendering from the whole template gives, object or error.
func FuzzSkeletonMatchesWholeTemplate(f *testing.F) {
	f.Add("add", "/spec/template/spec/containers/0", `{"name":"a"}`, "replace", "/spec/template/spec/containers/1/image", `"b"`, int16(2))
	f.Add("remove", "/spec/template/spec/containers/0", "", "add", "/spec/template/spec/containers/0/ports/-", `{"containerPort":1}`, int16(-1))
	f.Add("replace", "/metadata", `{"name":"web","namespace":"shop"}`, "add", "/metadata/labels", `null`, int16(0))
	f.Add("add", "/metadata/annotations/x", `{"y":[1,{"z":2}]}`, "add", "/metadata/annotations/x/y/1/w", `"\u2028"`, int16(9))
	f.Add("replace", "/spec/template/spec/containers/0/ports", `[]`, "remove", "/spec/template/spec/containers/0/args/1", "", int16(1))
	f.Add("", "/spec/selector/matchLabels/app", `"x"`, "remove", "/metadata/annotations", "", int16(3))
	f.Fuzz(func(t *testing.T, op1, path1, value1, op2, path2, value2 string, replicas int16) {
		rules := []OverrideRule{
			{Selector: &Selector{}, Patches: []Patch{{Op: op1, Path: path1, Value: value1}}},
			{Cluster: berlin.Name, Patches: []Patch{{Op: op2, Path: path2, Value: value2}}},
			{Cluster: "other", Patches: []Patch{
				{Path: "/spec/template/spec/containers/0/resources", Value: `{}`},
				{Op: OpRemove, Path: "/spec/template/spec/tolerations/0"},
			}},
		}
		r, err := NewRenderer(RenderSpec{Template: richTemplate, Namespaced: true, Overrides: rules})
		if err != nil {
			return
		}
		var count *int64
		if replicas >= 0 {
			count = n(int64(replicas))
		}
		for _, c := range []Cluster{berlin, {Name: "other"}} {
			checkSameAsWhole(t, r, c, count)
		}
	})
}

// FuzzRewriteMatchesEncoder puts fuzzed JSON into an object, as an
// annotation and as the labels, and checks that the rewriter writes what
// decoding, labelling and encodeCanonical write, whenever it does not
// leave the object to the slow way.
func FuzzRewriteMatchesEncoder(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null,"x"]}`, `"plain"`, `"esc\"aped\\ \/ \b\f\n\r\t \u0000 \u00e9 \ud83d\ude80 \ud800 \udc00x"`,
		`"<&> ` + "\u2028\u2029 ü \xff\xfe" + `"`, `-0.5e-3`, `1E+2`, `{"k\u0001":{"":[]}, "kubefed.io/managed":"false"}`,
		` [ 1 , { "a" : { } } ] `, `{"a":1,"a":2}`, `null`, `"x`, `[1,]`, `01`, `{"\u007f":0}`,
	} {
		f.Add(s)
	}
	id, _ := identityJSONOf(map[string]any{"kind": "K", "metadata": map[string]any{"name": "n"}})
	f.Fuzz(func(t *testing.T, value string) {
		if !json.Valid([]byte(value)) {
			return
		}
		for _, doc := range []string{
			`{"metadata":{"name":"n","annotations":{"v":` + value + `}},"kind":"K"}`,
			`{"kind":"K","metadata":{"labels":` + value + `,"name":"n"}}`,
			`{"kind":"K","x":` + value + `,"metadata":{"name":"n"}}`,
		} {
			got, err := (&skeleton{}).rewrite([]byte(doc), id)
			if err != nil {
				continue
			}
			v, err := decodeJSONAsIs([]byte(doc))
			if err != nil {
				t.Fatalf("the rewriter accepted %s, which encoding/json refuses: %v", doc, err)
			}
			obj := v.(map[string]any)
			if !addManagedLabel(obj) {
				t.Fatalf("the rewriter accepted labels that cannot be labelled: %s", doc)
			}
			want, err := encodeCanonical(obj)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("rewriting %s gives\n%s\nencoding gives\n%s", doc, got, want)
			}
		}
	})
}

func TestRenderSharesObjectsBetweenClusters(t *testing.T) {
	rules := []OverrideRule{
		{Selector: &Selector{MatchLabels: map[string]string{"env": "prod"}}, Patches: []Patch{{Op: OpAdd, Path: "/metadata/annotations", Value: `{"tier":"prod"}`}}},
		{Cluster: "b", Patches: []Patch{{Path: "/spec/paused", Value: `true`}}},
	}
	template := strings.Replace(deploymentYAML, "  name: web\n", "  name: web\n  resourceVersion: \"1\"\n", 1)
	r, err := NewRenderer(RenderSpec{Template: template, Namespaced: true, Overrides: rules})
	if err != nil {
		t.Fatal(err)
	}
	a := Cluster{Name: "a", Labels: map[string]string{"env": "prod"}}
	c := Cluster{Name: "c", Labels: map[string]string{"env": "prod", "zone": "1"}}
	first, err := r.Render(a, n(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.shared.renders) != 1 {
		t.Fatalf("%d objects shared, want 1", len(r.shared.renders))
	}
	first.Object[0] = 'X'
	first.Warnings[0] = "changed"
	second, err := r.Render(c, n(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.shared.renders) != 1 {
		t.Errorf("a cluster with the same rules and replicas was rendered again")
	}
	if second.Object[0] != '{' || second.Display != string(second.Object) || len(second.Warnings) != 1 || second.Warnings[0] == "changed" {
		t.Errorf("a shared object was changed through another cluster's copy: %s, %v", second.Object, second.Warnings)
	}
	checkSameAsWhole(t, r, c, n(2))
	if _, err := r.Render(a, n(3)); err != nil || len(r.shared.renders) != 2 {
		t.Errorf("another replica count should be another object: %v, %d shared", err, len(r.shared.renders))
	}
	if _, err := r.Render(a, nil); err != nil || len(r.shared.renders) != 3 {
		t.Errorf("no replica count should be another object: %v, %d shared", err, len(r.shared.renders))
	}
	// Errors name their cluster, so they are not shared.
	_, err = r.Render(Cluster{Name: "b"}, nil)
	if err == nil || !strings.Contains(err.Error(), `cluster "b"`) || len(r.shared.renders) != 3 {
		t.Errorf("err = %v, %d shared", err, len(r.shared.renders))
	}

	secret, err := NewRenderer(RenderSpec{Template: secretYAML, Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := secret.Render(a, nil)
	two, _ := secret.Render(c, nil)
	if !two.Sensitive || two.Display != one.Display || !bytes.Equal(two.Object, one.Object) || bytes.Equal([]byte(two.Display), two.Object) {
		t.Errorf("a shared Secret lost its masking: %+v", two)
	}
}

func TestShareKeyTellsRuleListsApart(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range []string{
		shareKey(nil, nil), shareKey(n(0), nil), shareKey(n(1), []int{}), shareKey(nil, []int{1}),
		shareKey(n(1), []int{2}), shareKey(n(12), nil), shareKey(nil, []int{1, 2}), shareKey(nil, []int{12}),
	} {
		if keys[k] {
			t.Errorf("key %q is given twice", k)
		}
		keys[k] = true
	}
	if shareKey(n(1), []int{}) != shareKey(n(1), nil) {
		t.Error("no rules should be no rules")
	}
}
