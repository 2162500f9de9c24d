package federation

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSamePlacement(t *testing.T) {
	eu := &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}
	for _, tc := range []struct {
		name string
		a, b Placement
		want bool
	}{
		{"both unset", Placement{}, Placement{}, true},
		{"same list", Placement{Clusters: []string{"a", "b"}}, Placement{Clusters: []string{"a", "b"}}, true},
		{"list order counts", Placement{Clusters: []string{"a", "b"}}, Placement{Clusters: []string{"b", "a"}}, false},
		{"empty list is not unset", Placement{Clusters: []string{}}, Placement{}, false},
		{"empty selector and empty labels", Placement{Selector: &metav1.LabelSelector{}},
			Placement{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{}}}, true},
		{"empty selector is not unset", Placement{Selector: &metav1.LabelSelector{}}, Placement{}, false},
		{"same labels", Placement{Selector: eu}, Placement{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}}, true},
		{"other value", Placement{Selector: eu}, Placement{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "us"}}}, false},
		{"other key", Placement{Selector: eu}, Placement{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"zone": "eu"}}}, false},
		{"expressions", Placement{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "In", Values: []string{"x"}}}}},
			Placement{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "In", Values: []string{"y"}}}}}, false},
	} {
		if got := SamePlacement(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: SamePlacement = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSameOverrideRules(t *testing.T) {
	rule := func(op, value string) []OverrideRule {
		return []OverrideRule{{Cluster: "a", Patches: []Patch{{Op: op, Path: "/spec/replicas", Value: value}}}}
	}
	for _, tc := range []struct {
		name string
		a, b []OverrideRule
		want bool
	}{
		{"none", nil, []OverrideRule{}, true},
		{"replace by default", rule("", "5"), rule("replace", "5"), true},
		{"other op", rule("add", "5"), rule("replace", "5"), false},
		{"JSON spelling", rule("", `{"a": 1, "b": [1.0]}`), rule("", `{"b":[1],"a":1}`), true},
		{"other value", rule("", "5"), rule("", "6"), false},
		{"a string is not a number", rule("", `"5"`), rule("", "5"), false},
		{"other target", rule("", "5"), []OverrideRule{{Selector: &metav1.LabelSelector{}, Patches: rule("", "5")[0].Patches}}, false},
		{"one rule more", rule("", "5"), append(rule("", "5"), rule("", "5")...), false},
	} {
		if got := SameOverrideRules(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: SameOverrideRules = %v, want %v", tc.name, got, tc.want)
		}
	}
	web := &ObjectRef{Kind: "Deployment", Name: "web"}
	set := func(ref *ObjectRef) []SetOverrideRule {
		return []SetOverrideRule{{OverrideRule: rule("", "5")[0], Object: ref}}
	}
	if !SameSetOverrideRules(set(web), set(&ObjectRef{Kind: "Deployment", Name: "web"})) {
		t.Error("rules naming the same object differ")
	}
	if SameSetOverrideRules(set(web), set(&ObjectRef{Kind: "Deployment", Name: "api"})) || SameSetOverrideRules(set(web), set(nil)) {
		t.Error("rules naming other objects are the same")
	}
	api := &ObjectRef{Kind: "Deployment", Name: "api"}
	two := func(first, second []OverrideRule, ref1, ref2 *ObjectRef) []SetOverrideRule {
		return []SetOverrideRule{{OverrideRule: first[0], Object: ref1}, {OverrideRule: second[0], Object: ref2}}
	}
	if !SameSetOverrideRules(two(rule("", "5"), rule("", "6"), web, api), two(rule("", "6"), rule("", "5"), api, web)) {
		t.Error("the same rules of two objects, listed object by object in another order, differ")
	}
	if SameSetOverrideRules(two(rule("", "5"), rule("", "6"), web, web), two(rule("", "6"), rule("", "5"), web, web)) {
		t.Error("one object's rules in another order are the same, though the later patch wins")
	}
}

func TestShortestRef(t *testing.T) {
	web := Key{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	webElsewhere := Key{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "blog", Name: "web"}
	webBeta := Key{Group: "apps", Version: "v1beta1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	config := Key{Version: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "web"}
	for _, tc := range []struct {
		name    string
		objects []Key
		want    ObjectRef
	}{
		{"alone of its kind and name", []Key{web, config}, ObjectRef{Kind: "Deployment", Name: "web"}},
		{"another namespace", []Key{web, webElsewhere, config}, ObjectRef{Kind: "Deployment", Name: "web", Namespace: "shop"}},
		{"another apiVersion", []Key{web, webBeta}, ObjectRef{Kind: "Deployment", Name: "web", Namespace: "shop", APIVersion: "apps/v1"}},
	} {
		got := ShortestRef(web, tc.objects)
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		if k, err := got.resolve(tc.objects); err != nil || k != web {
			t.Errorf("%s: the reference resolves to %v, %v", tc.name, k, err)
		}
	}
}
