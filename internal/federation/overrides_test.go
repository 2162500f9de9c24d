package federation

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateOverridesRejects(t *testing.T) {
	ok := Patch{Path: "/spec/replicas", Value: "2"}
	cases := []struct {
		name     string
		rules    []OverrideRule
		rule     int
		patch    int
		mentions string
	}{
		{"metadata.name", []OverrideRule{{Cluster: "berlin", Patches: []Patch{ok, {Path: "/metadata/name", Value: `"x"`}}}}, 0, 1, `path "/metadata/name" may not be overridden`},
		{"metadata.namespace", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpRemove, Path: "/metadata/namespace"}}}}, 0, 0, `path "/metadata/namespace" may not be overridden`},
		{"metadata.generateName", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/generateName", Value: `"x-"`}}}}, 0, 0, `path "/metadata/generateName" may not be overridden`},
		{"kind", []OverrideRule{{Cluster: "a"}, {Cluster: "berlin", Patches: []Patch{{Path: "/kind", Value: `"Pod"`}}}}, 1, 0, `path "/kind" may not be overridden`},
		{"below a forbidden path", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/name/x", Value: `1`}}}}, 0, 0, "may not be overridden: /metadata/name identifies the object"},
		{"the whole object", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "", Value: `{}`}}}}, 0, 0, "is the whole object"},
		{"a pointer without a leading slash", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "spec/replicas", Value: "1"}}}}, 0, 0, `path "spec/replicas" is not a JSON pointer: it must start with "/"`},
		{"a bad escape", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/metadata/labels/a~2b", Value: `"1"`}}}}, 0, 0, `"~" must be followed by 0 or 1`},
		{"a trailing tilde", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/spec~", Value: "1"}}}}, 0, 0, `"~" must be followed by 0 or 1`},
		{"a doubled slash", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata//x", Value: "1"}}}}, 0, 0, `path "/metadata//x" has an empty segment, from a doubled or trailing "/"; name every field, as in "/metadata/labels/tier"`},
		{"a trailing slash, which made KubeFed write a label named \"\"", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/", Value: `"e"`}}}}, 0, 0, `path "/metadata/labels/" has an empty segment`},
		{"an unknown op", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: "move", Path: "/spec/replicas"}}}}, 0, 0, `unknown op "move"; use add, replace or remove`},
		{"an op in the wrong case", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: "Add", Path: "/spec/replicas", Value: "1"}}}}, 0, 0, `unknown op "Add"`},
		{"a value that is not JSON", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/spec/template/spec/containers/0/image", Value: "nginx:1.27"}}}}, 0, 0, `value "nginx:1.27" is not JSON text`},
		{"trailing data after the value", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/spec/replicas", Value: "1 2"}}}}, 0, 0, "is not JSON text"},
		{"a missing value", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/spec/replicas"}}}}, 0, 0, "op add needs a value"},
		{"a missing value with the default op", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/spec/replicas"}}}}, 0, 0, "op replace needs a value"},
		{"a value on remove", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpRemove, Path: "/spec/replicas", Value: "1"}}}}, 0, 0, "op remove takes no value"},
		{"both targets", []OverrideRule{{Cluster: "berlin", Selector: &metav1.LabelSelector{}, Patches: []Patch{ok}}}, 0, -1, "sets both cluster and cluster_selector"},
		{"no target", []OverrideRule{{Patches: []Patch{ok}}}, 0, -1, "targets no cluster"},
		{"an invalid selector", []OverrideRule{{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Has"}}}, Patches: []Patch{ok}}}, 0, -1, `cluster_selector: match_expressions[0] (key "env", operator "Has")`},
		{"the same cluster named twice", []OverrideRule{
			{Cluster: "berlin", Patches: []Patch{ok}},
			{Selector: &metav1.LabelSelector{}, Patches: []Patch{ok}},
			{Cluster: "berlin", Patches: []Patch{ok}},
		}, 2, -1, `cluster "berlin" is already targeted by name in override rule 0`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateOverrides(tc.rules)
			var oe *OverrideError
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v, want *OverrideError", err)
			}
			if oe.Rule != tc.rule || oe.Patch != tc.patch || oe.Cluster != "" {
				t.Errorf("error locates rule %d patch %d cluster %q, want rule %d patch %d and no cluster", oe.Rule, oe.Patch, oe.Cluster, tc.rule, tc.patch)
			}
			if !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("error %q does not say %q", err, tc.mentions)
			}
			prefix := "override rule " + itoa(tc.rule)
			if tc.patch >= 0 {
				prefix += ", patch " + itoa(tc.patch)
			}
			if !strings.HasPrefix(err.Error(), prefix+": ") {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
			if _, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: tc.rules}); !errors.As(err, &oe) {
				t.Errorf("NewRenderer error = %v, want the same *OverrideError", err)
			}
		})
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestValidateOverridesAccepts(t *testing.T) {
	rules := []OverrideRule{
		{Cluster: "berlin", Patches: []Patch{
			{Path: "/apiVersion", Value: `"apps/v1beta2"`},
			{Op: OpAdd, Path: "/metadata/labels/team", Value: `"web"`},
			{Op: OpAdd, Path: "/metadata/annotations", Value: `{"a~b/c":"1"}`},
			{Op: OpRemove, Path: "/metadata/annotations/a~0b~1c"},
			{Op: OpReplace, Path: "/spec/template/spec/containers/0/image", Value: `"nginx:1.27-alpine"`},
			{Op: OpAdd, Path: "/spec/template/spec/containers/-", Value: `{"name":"sidecar","image":"envoy"}`},
			{Op: OpAdd, Path: "/metadata/nameSuffix", Value: `null`},
		}},
		{Cluster: "new-york"},
		{Selector: &metav1.LabelSelector{}},
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}},
	}
	if err := ValidateOverrides(rules); err != nil {
		t.Fatalf("ValidateOverrides: %v", err)
	}
	if err := ValidateOverrides(nil); err != nil {
		t.Fatalf("ValidateOverrides(nil): %v", err)
	}
}

func TestOverridesApply(t *testing.T) {
	newYork := Cluster{Name: "new-york", Labels: map[string]string{"region": "us-east", "env": "prod"}}
	rules := []OverrideRule{
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, Patches: []Patch{
			{Path: "/spec/template/spec/containers/0/image", Value: `"nginx:1.27-prod"`},
			{Op: OpAdd, Path: "/metadata/annotations", Value: `{"tier":"prod"}`},
		}},
		{Cluster: "berlin", Patches: []Patch{
			{Path: "/spec/template/spec/containers/0/image", Value: `"nginx:1.27-berlin"`},
			{Op: OpRemove, Path: "/spec/template/spec/containers/0/ports"},
		}},
		{Selector: &metav1.LabelSelector{}, Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/labels/federated", Value: `"yes"`},
		}},
		{Cluster: "new-york", Patches: []Patch{
			{Path: "/spec/template/spec/containers/0/image", Value: `"nginx:1.27-ny"`},
		}},
	}
	spec := RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules}
	r, err := NewRenderer(spec)
	if err != nil {
		t.Fatal(err)
	}

	ny, err := r.Render(newYork, nil)
	if err != nil {
		t.Fatal(err)
	}
	if img := field(t, ny.Display, "spec", "template", "spec", "containers", "0", "image"); img != "nginx:1.27-ny" {
		t.Errorf("new-york image = %v; the later rule should win", img)
	}
	if a := field(t, ny.Display, "metadata", "annotations", "tier"); a != "prod" {
		t.Errorf("new-york annotation = %v", a)
	}
	if l := field(t, ny.Display, "metadata", "labels", "federated"); l != "yes" {
		t.Errorf("the empty selector should target every cluster, label = %v", l)
	}

	be, err := r.Render(berlin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if img := field(t, be.Display, "spec", "template", "spec", "containers", "0", "image"); img != "nginx:1.27-berlin" {
		t.Errorf("berlin image = %v", img)
	}
	if p := field(t, be.Display, "spec", "template", "spec", "containers", "0", "ports"); p != nil {
		t.Errorf("berlin ports should be removed, got %v", p)
	}
	if a := field(t, be.Display, "metadata", "annotations"); a != nil {
		t.Errorf("berlin is not prod and should have no annotations, got %v", a)
	}

	other, err := r.Render(Cluster{Name: "tokyo"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if img := field(t, other.Display, "spec", "template", "spec", "containers", "0", "image"); img != "nginx:1.27" {
		t.Errorf("an untargeted cluster should get the template image, got %v", img)
	}
}

func TestOverridesApplyErrorsNameRulePatchAndCluster(t *testing.T) {
	cases := []struct {
		name     string
		rules    []OverrideRule
		rule     int
		patch    int
		mentions string
	}{
		{"replace below a missing parent", []OverrideRule{{Cluster: "berlin", Patches: []Patch{
			{Path: "/spec/replicas", Value: "1"},
			{Path: "/spec/strategy/type", Value: `"Recreate"`},
		}}}, 0, 1, `replace "/spec/strategy/type": the path does not exist in this cluster's object`},
		{"remove of a missing path", []OverrideRule{{Selector: &metav1.LabelSelector{}, Patches: []Patch{{Op: OpRemove, Path: "/metadata/annotations/x"}}}}, 0, 0, `remove "/metadata/annotations/x": the path does not exist in this cluster's object`},
		{"remove of an array index out of range", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpRemove, Path: "/spec/template/spec/containers/3"}}}}, 0, 0, `index "3" is not in the list at "/spec/template/spec/containers", which has 1 element: use 0, or -1 to count from the end`},
		{"a negative array index before the first element", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/spec/template/spec/containers/-2/image", Value: `"x"`}}}}, 0, 0, `replace "/spec/template/spec/containers/-2/image": index "-2" is not in the list at "/spec/template/spec/containers", which has 1 element: use 0, or -1 to count from the end`},
		{"add below a missing parent", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/metadata/annotations/x", Value: `"1"`}}}}, 0, 0, `add "/metadata/annotations/x": the parent of the path does not exist`},
		{"a path made missing by an earlier rule", []OverrideRule{
			{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "staging"}}, Patches: []Patch{{Op: OpRemove, Path: "/spec/template/spec/containers/0/ports"}}},
			{Cluster: "berlin", Patches: []Patch{{Path: "/spec/template/spec/containers/0/ports/0/containerPort", Value: "8080"}}},
		}, 1, 0, `replace "/spec/template/spec/containers/0/ports/0/containerPort": the path does not exist`},
		{"replacing metadata with another name", []OverrideRule{{Cluster: "berlin", Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/labels/x", Value: `"1"`},
			{Path: "/metadata", Value: `{"name":"other","namespace":"shop"}`},
		}}}, 0, 1, `replace "/metadata" changes the object's kind, name, namespace or generateName`},
		{"removing metadata", []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpRemove, Path: "/metadata"}}}}, 0, 0, "changes the object's kind, name, namespace or generateName"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: tc.rules})
			if err != nil {
				t.Fatalf("NewRenderer: %v", err)
			}
			_, err = r.Render(berlin, nil)
			var oe *OverrideError
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v, want *OverrideError", err)
			}
			if oe.Rule != tc.rule || oe.Patch != tc.patch || oe.Cluster != "berlin" {
				t.Errorf("error locates rule %d patch %d cluster %q, want rule %d patch %d cluster berlin", oe.Rule, oe.Patch, oe.Cluster, tc.rule, tc.patch)
			}
			want := "override rule " + itoa(tc.rule) + ", patch " + itoa(tc.patch) + `, cluster "berlin": `
			if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("error %q, want it to start with %q and say %q", err, want, tc.mentions)
			}
		})
	}
}

func TestOverridesMayRewriteMetadataKeepingIdentity(t *testing.T) {
	rules := []OverrideRule{{Cluster: "berlin", Patches: []Patch{
		{Path: "/metadata", Value: `{"name":"web","namespace":"shop","annotations":{"a":"b"}}`},
	}}}
	got := mustRender(t, RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules}, berlin, nil)
	if field(t, got.Display, "metadata", "annotations", "a") != "b" || field(t, got.Display, "metadata", "labels", "app") != nil {
		t.Errorf("metadata was not replaced: %s", got.Display)
	}
	if field(t, got.Display, "metadata", "labels", ManagedLabel) != "true" {
		t.Errorf("the managed label must be added even when the labels were replaced: %s", got.Display)
	}
}

func TestOverridesMayChangeAPIVersion(t *testing.T) {
	rules := []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/apiVersion", Value: `"apps/v1beta2"`}}}}
	got := mustRender(t, RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules}, berlin, nil)
	if field(t, got.Display, "apiVersion") != "apps/v1beta2" {
		t.Errorf("apiVersion = %v", field(t, got.Display, "apiVersion"))
	}
}

func TestOverridesLeavingLabelsUnusable(t *testing.T) {
	rules := []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/metadata/labels", Value: `"none"`}}}}
	_, err := Render(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules}, berlin, nil)
	if err == nil || !strings.Contains(err.Error(), `cluster "berlin": the overrides leave metadata.labels as a string`) {
		t.Errorf("err = %v", err)
	}
}

func TestParsePointer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"/", []string{""}},
		{"/a/b", []string{"a", "b"}},
		{"/a~1b/c~0d", []string{"a/b", "c~d"}},
		{"/~01", []string{"~1"}},
	} {
		got, err := ParsePointer(tc.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("ParsePointer(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestOverridesIdentityChecks(t *testing.T) {
	spec := func(patches ...Patch) RenderSpec {
		return RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: []OverrideRule{{Cluster: "berlin", Patches: patches}}}
	}
	_, err := Render(spec(Patch{Path: "/metadata", Value: `{"name":5,"namespace":"shop"}`}), berlin, nil)
	var oe *OverrideError
	if !errors.As(err, &oe) || oe.Patch != 0 || !strings.Contains(err.Error(), "changes the object's kind, name") {
		t.Errorf("a numeric name: err = %v", err)
	}
	_, err = Render(spec(Patch{Op: OpAdd, Path: "/metadata/generateName2", Value: `"x"`}, Patch{Path: "/metadata", Value: `{"name":"web","namespace":"shop","generateName":"w-"}`}), berlin, nil)
	if !errors.As(err, &oe) || oe.Patch != 1 {
		t.Errorf("adding generateName through /metadata: err = %v", err)
	}
	restored := spec(
		Patch{Path: "/metadata", Value: `{"name":"tmp","namespace":"shop"}`},
		Patch{Path: "/metadata/name", Value: `"web"`},
	)
	if _, err := Render(restored, berlin, nil); err == nil {
		t.Error("a forbidden path in a later patch must be refused")
	}
	renamedBack := spec(
		Patch{Path: "/metadata", Value: `{"name":"tmp","namespace":"shop"}`},
		Patch{Path: "/metadata", Value: `{"name":"web","namespace":"shop"}`},
	)
	if _, err := Render(renamedBack, berlin, nil); err != nil {
		t.Errorf("an identity changed and restored within the overrides should be accepted, got %v", err)
	}
}

func TestOverrideErrorUnwraps(t *testing.T) {
	inner := errors.New("inner")
	err := error(&OverrideError{Rule: 1, Patch: -1, Err: inner})
	if !errors.Is(err, inner) {
		t.Error("errors.Is does not reach the wrapped error")
	}
	if got := err.Error(); got != "override rule 1: inner" {
		t.Errorf("Error() = %q", got)
	}
}

func TestOverrideValueErrorsAreShort(t *testing.T) {
	long := strings.Repeat("x", 500)
	err := ValidateOverrides([]OverrideRule{{Cluster: "a", Patches: []Patch{{Path: "/a", Value: long}}}})
	if err == nil || len(err.Error()) > 250 || !strings.Contains(err.Error(), "…") {
		t.Errorf("error for a long value should quote it clipped, got %v", err)
	}
	err = ValidateOverrides([]OverrideRule{{Cluster: "a", Patches: []Patch{{Path: "/a", Value: "1e400"}}}})
	if err == nil || !strings.Contains(err.Error(), "cannot be represented") {
		t.Errorf("an out-of-range number should be refused, got %v", err)
	}
}

// TestOverrideErrorsAmongSeveralRulesNameTheCulprit checks that when the
// operations of several rules, applied together, fail, the error still
// names the rule, the patch and the cluster at fault.
func TestOverrideErrorsAmongSeveralRulesNameTheCulprit(t *testing.T) {
	prod := Cluster{Name: "paris", Labels: map[string]string{"env": "prod"}}
	rules := []OverrideRule{
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/annotations", Value: `{"a":"1"}`},
			{Op: OpAdd, Path: "/metadata/annotations/b", Value: `"2"`},
		}},
		{Cluster: "paris", Patches: []Patch{
			{Path: "/spec/template/spec/containers/0/image", Value: `"x"`},
			{Op: OpRemove, Path: "/spec/template/spec/containers/0/ports/1"},
			{Path: "/spec/replicas", Value: `2`},
		}},
		{Selector: &metav1.LabelSelector{}, Patches: []Patch{{Op: OpAdd, Path: "/metadata/labels/x", Value: `"y"`}}},
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
	for _, tc := range []struct {
		cluster  Cluster
		replicas *int64
		rule     int
		patch    int
		mentions string
	}{
		{prod, n(3), 1, 1, `remove "/spec/template/spec/containers/0/ports/1": index "1" is not in the list at "/spec/template/spec/containers/0/ports", which has 1 element: use 0, or -1 to count from the end`},
		{Cluster{Name: "lyon"}, nil, 3, 0, `add "/metadata/annotations/c": the parent of the path does not exist in this cluster's object`},
		{Cluster{Name: "nice"}, n(1), 4, 1, `replace "/metadata" changes the object's kind, name, namespace or generateName, which overrides may not change`},
	} {
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
	_, err = noSpec.Render(prod, n(2))
	if err == nil || !strings.HasPrefix(err.Error(), `cluster "paris": setting 2 replicas at "/spec/replicas": `) {
		t.Errorf("replicas error = %v", err)
	}
}
