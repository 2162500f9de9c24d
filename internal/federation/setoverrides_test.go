package federation

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// shopSet is an application of five objects, two of them named web.
var shopSet = []string{
	"/v1/Namespace/shop",
	"/v1/ConfigMap/shop/settings",
	"/v1/ConfigMap/auth/settings",
	"apps/v1/Deployment/shop/web",
	"/v1/Service/shop/web",
}

// ruleFor is a rule that patches the object named, on berlin.
func ruleFor(ref *ObjectRef) SetOverrideRule {
	return SetOverrideRule{
		OverrideRule: OverrideRule{Cluster: "berlin", Patches: []Patch{{Path: "/metadata/annotations", Value: `{}`}}},
		Object:       ref,
	}
}

func TestSelectObjectsGivesEachObjectItsRules(t *testing.T) {
	tests := []struct {
		name    string
		objects []string
		refs    []*ObjectRef
		// want is, per object, the indices of its rules.
		want [][]int
	}{
		{"a rule per object, named by kind and name",
			shopSet, []*ObjectRef{{Kind: "Deployment", Name: "web"}, {Kind: "Service", Name: "web"}, {Kind: "Deployment", Name: "web"}},
			[][]int{nil, nil, nil, {0, 2}, {1}}},
		{"a namespace tells apart objects of one kind and name",
			shopSet, []*ObjectRef{{Kind: "ConfigMap", Name: "settings", Namespace: "auth"}, {Kind: "ConfigMap", Name: "settings", Namespace: "shop"}},
			[][]int{nil, {1}, {0}, nil, nil}},
		{"an apiVersion that matches",
			shopSet, []*ObjectRef{{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"}, {Kind: "Namespace", Name: "shop", APIVersion: "v1"}},
			[][]int{{1}, nil, nil, {0}, nil}},
		{"a rule without object in a set of one",
			[]string{"/v1/ConfigMap/shop/settings"}, []*ObjectRef{nil, nil},
			[][]int{{0, 1}}},
		{"no rules", shopSet, nil, [][]int{nil, nil, nil, nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rules []SetOverrideRule
			for _, ref := range tt.refs {
				rules = append(rules, ruleFor(ref))
			}
			got, err := SelectObjects(rules, keys(t, tt.objects...))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.objects) {
				t.Fatalf("%d selections for %d objects", len(got), len(tt.objects))
			}
			for i, o := range got {
				if !reflect.DeepEqual(o.Index, tt.want[i]) || len(o.Rules) != len(o.Index) {
					t.Errorf("%s: rules %v (%d), want %v", tt.objects[i], o.Index, len(o.Rules), tt.want[i])
				}
				for j, r := range o.Rules {
					if !reflect.DeepEqual(r, rules[o.Index[j]].OverrideRule) {
						t.Errorf("%s: rule %d is not the set's rule %d", tt.objects[i], j, o.Index[j])
					}
				}
			}
		})
	}
}

func TestSelectObjectsRefusesRulesThatNameNoOneObject(t *testing.T) {
	tests := []struct {
		name    string
		objects []string
		refs    []*ObjectRef
		// want holds, per refused rule, its index and the error's text.
		want map[int]string
	}{
		{"no object of that name",
			shopSet, []*ObjectRef{{Kind: "Deployment", Name: "web"}, {Kind: "Deployment", Name: "api"}},
			map[int]string{1: "object: no object of the set is Deployment api; its Deployment objects: Deployment shop/web (apps/v1)"}},
		{"no object of that kind",
			shopSet, []*ObjectRef{{Kind: "StatefulSet", Name: "db"}},
			map[int]string{0: "object: no object of the set is StatefulSet db; the set holds no StatefulSet, only ConfigMap, Deployment, Namespace, Service"}},
		{"another namespace",
			shopSet, []*ObjectRef{{Kind: "Service", Name: "web", Namespace: "auth"}},
			map[int]string{0: "object: no object of the set is Service auth/web; its Service objects: Service shop/web"}},
		{"another apiVersion",
			shopSet, []*ObjectRef{{Kind: "Deployment", Name: "web", APIVersion: "apps/v1beta2"}},
			map[int]string{0: "object: no object of the set is Deployment web (apps/v1beta2); its Deployment objects: Deployment shop/web (apps/v1)"}},
		{"several objects",
			shopSet, []*ObjectRef{{Kind: "ConfigMap", Name: "settings"}},
			map[int]string{0: "object: ConfigMap settings matches 2 objects of the set: ConfigMap auth/settings, ConfigMap shop/settings; add namespace or api_version to name one"}},
		{"no kind",
			shopSet, []*ObjectRef{{Name: "web"}},
			map[int]string{0: "object: an object is named by kind and name"}},
		{"no object in a set of several",
			shopSet, []*ObjectRef{{Kind: "Service", Name: "web"}, nil},
			map[int]string{1: "the set holds 5 objects; name the one this rule patches with object (kind and name)"}},
		{"an empty set",
			nil, []*ObjectRef{nil, {Kind: "Service", Name: "web"}},
			map[int]string{0: "the set holds no object to patch", 1: "object: no object of the set is Service web: the set is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rules []SetOverrideRule
			for _, ref := range tt.refs {
				rules = append(rules, ruleFor(ref))
			}
			_, err := SelectObjects(rules, keys(t, tt.objects...))
			if err == nil {
				t.Fatal("accepted")
			}
			got := map[int]string{}
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var oe *OverrideError
				if !errors.As(e, &oe) || oe.Patch != -1 || oe.Cluster != "" {
					t.Fatalf("%v is not an *OverrideError about a whole rule", e)
				}
				got[oe.Rule] = oe.Err.Error()
			}
			if len(got) != len(tt.want) {
				t.Fatalf("refused %v, want rules %v", got, tt.want)
			}
			for rule, text := range tt.want {
				if !strings.HasPrefix(got[rule], text) {
					t.Errorf("rule %d: %q, want it to start with %q", rule, got[rule], text)
				}
			}
		})
	}
}

// A reference is resolved among the set's objects of its kind and name,
// and says what the whole set holds when none is the one.
func TestResolveAmong(t *testing.T) {
	objects := keys(t, shopSet...)
	tests := []struct {
		name       string
		ref        ObjectRef
		candidates []Key
		want       string
		wantErr    string
	}{
		{"the one candidate", ObjectRef{Kind: "Service", Name: "web"}, objects[4:5], "/v1/Service/shop/web", ""},
		{"a namespace picks one of the candidates", ObjectRef{Kind: "ConfigMap", Name: "settings", Namespace: "auth"}, objects[1:3],
			"/v1/ConfigMap/auth/settings", ""},
		{"no candidate: the set's objects of the kind are named", ObjectRef{Kind: "Deployment", Name: "api"}, nil, "",
			"no object of the set is Deployment api; its Deployment objects: Deployment shop/web (apps/v1)"},
		{"a candidate of another apiVersion", ObjectRef{Kind: "Service", Name: "web", APIVersion: "v2"}, objects[4:5], "",
			"no object of the set is Service web (v2); its Service objects: Service shop/web"},
		{"several candidates", ObjectRef{Kind: "ConfigMap", Name: "settings"}, objects[1:3], "",
			"ConfigMap settings matches 2 objects of the set"},
		{"no name", ObjectRef{Kind: "Service"}, objects[4:5], "", "an object is named by kind and name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.ref.resolveAmong(tt.candidates, objects)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one starting with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("resolveAmong = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

// An error from rendering one object with its rules points at the rule as
// written in the set.
func TestObjectOverridesSetErrorCountsRulesInTheSet(t *testing.T) {
	rules := []SetOverrideRule{
		ruleFor(&ObjectRef{Kind: "Service", Name: "web"}),
		ruleFor(&ObjectRef{Kind: "Deployment", Name: "web"}),
		{OverrideRule: OverrideRule{Cluster: "new-york", Patches: []Patch{{Path: "/metadata/name", Value: `"x"`}}}, Object: &ObjectRef{Kind: "Deployment", Name: "web"}},
	}
	selected, err := SelectObjects(rules, keys(t, shopSet...))
	if err != nil {
		t.Fatal(err)
	}
	web := selected[3]
	_, err = NewRenderer(RenderSpec{Template: deploymentDoc, Namespaced: true, Overrides: web.Rules})
	var oe *OverrideError
	if err = web.SetError(err); !errors.As(err, &oe) || oe.Rule != 2 || oe.Patch != 0 {
		t.Fatalf("error %v, want one about the set's rule 2, patch 0", err)
	}
	plain := errors.New("cluster unreachable")
	if got := web.SetError(plain); !errors.Is(got, plain) || got.Error() != plain.Error() {
		t.Fatalf("SetError changed an error that is not about a rule: %v", got)
	}
}
