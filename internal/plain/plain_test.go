package plain

import (
	"math/big"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
)

func num(f float64) *big.Float { return big.NewFloat(f) }

func TestReaders(t *testing.T) {
	tests := []struct {
		name    string
		read    func() (any, error)
		want    any
		wantErr string
	}{
		{name: "an object with a typo names the attribute and the known ones",
			read:    func() (any, error) { return Object(map[string]any{"nom": "x"}, "cluster", "name", "labels") },
			wantErr: `cluster has no attribute "nom" (it has: [name labels])`},
		{name: "a missing object is empty",
			read: func() (any, error) { return Object(nil, "options") }, want: map[string]any{}},
		{name: "a list where an object belongs",
			read: func() (any, error) { return Object([]any{}, "options") }, wantErr: "options must be an object, not a list"},
		{name: "a whole number",
			read: func() (any, error) { n, err := Int(num(3), "x"); return *n, err }, want: int64(3)},
		{name: "a fraction is no whole number",
			read: func() (any, error) { return Int(num(1.5), "weight") }, wantErr: "weight must be a whole number, not 1.5"},
		{name: "a string where a number belongs",
			read: func() (any, error) { return Int("3", "weight") }, wantErr: "weight must be a number, not a string"},
		{name: "a map of strings",
			read: func() (any, error) { return StringMap(map[string]any{"region": "eu"}, "labels") }, want: map[string]string{"region": "eu"}},
		{name: "a number in a map of strings names its key",
			read:    func() (any, error) { return StringMap(map[string]any{"zone": num(1)}, "labels") },
			wantErr: `labels["zone"] must be a string, not a number`},
		{name: "a missing bool is its fallback",
			read: func() (any, error) { return Bool(nil, "overflow", true) }, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.read()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
}

func TestOverrideRules(t *testing.T) {
	raw := []any{
		map[string]any{"cluster": "berlin", "patches": []any{
			map[string]any{"op": "add", "path": "/data/CURRENCY", "value": `"EUR"`},
		}},
		map[string]any{"cluster_selector": map[string]any{
			"match_labels":      map[string]any{"region": "us"},
			"match_expressions": []any{map[string]any{"key": "env", "operator": "In", "values": []any{"prod"}}},
		}, "patches": []any{map[string]any{"path": "/spec/replicas", "value": "5"}}},
	}
	got, err := OverrideRules(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []federation.OverrideRule{
		{Cluster: "berlin", Patches: []federation.Patch{{Op: "add", Path: "/data/CURRENCY", Value: `"EUR"`}}},
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "us"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod"}}}},
			Patches: []federation.Patch{{Path: "/spec/replicas", Value: "5"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("OverrideRules = %#v\nwant %#v", got, want)
	}
	for _, tt := range []struct {
		name    string
		raw     any
		wantErr string
	}{
		{"not a list", map[string]any{}, "overrides must be a list, not an object"},
		{"a typo in a rule", []any{map[string]any{"clusters": "berlin"}}, `overrides[0] has no attribute "clusters"`},
		{"a typo in a patch", []any{map[string]any{"patches": []any{map[string]any{"pth": "/x"}}}}, `overrides[0].patches[0] has no attribute "pth"`},
		{"values that are no list", []any{map[string]any{"cluster_selector": map[string]any{"match_expressions": []any{
			map[string]any{"key": "env", "operator": "In", "values": "prod"}}}}},
			"overrides[0].cluster_selector.match_expressions[0].values must be a list of strings, not a string"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := OverrideRules(tt.raw); err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to start with %q", err, tt.wantErr)
			}
		})
	}
}

func TestCluster(t *testing.T) {
	got, err := Cluster(map[string]any{"name": "berlin", "labels": map[string]any{"region": "eu"}})
	if err != nil || got.Name != "berlin" || got.Labels["region"] != "eu" {
		t.Fatalf("Cluster = %#v, %v", got, err)
	}
	if _, err := Cluster(map[string]any{"labels": map[string]any{}}); err == nil || err.Error() != "cluster.name is required" {
		t.Fatalf("a cluster without a name: %v", err)
	}
}

func TestPreferences(t *testing.T) {
	got, err := Preferences(map[string]any{"*": map[string]any{"weight": num(1)}, "berlin": map[string]any{"max_replicas": num(2), "min_replicas": num(1)}})
	if err != nil {
		t.Fatal(err)
	}
	two := int64(2)
	want := map[string]scheduling.Preference{"*": {Weight: 1}, "berlin": {MinReplicas: 1, MaxReplicas: &two}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Preferences = %#v, want %#v", got, want)
	}
	if _, err := Preferences(map[string]any{"berlin": map[string]any{"weigth": num(1)}}); err == nil ||
		!strings.HasPrefix(err.Error(), `preferences["berlin"] has no attribute "weigth"`) {
		t.Fatalf("a typo in a preference: %v", err)
	}
}

func TestSplitOptions(t *testing.T) {
	var in scheduling.Input
	overflow, err := SplitOptions(map[string]any{
		"rebalance": true, "overflow": false, "current": map[string]any{"berlin": num(3)},
		"max_clusters": num(2), "spread": map[string]any{"by_label": "region", "min_groups": num(2)},
		"cluster_labels": map[string]any{"berlin": map[string]any{"region": "eu"}},
	}, &in)
	if err != nil {
		t.Fatal(err)
	}
	if overflow || !in.Rebalance || in.Current["berlin"] != 3 || in.MaxClusters != 2 || in.Spread.ByLabel != "region" ||
		in.Spread.MinGroups != 2 || in.ClusterLabels["berlin"]["region"] != "eu" {
		t.Fatalf("SplitOptions = %v, %#v", overflow, in)
	}
	if _, err := SplitOptions(map[string]any{"capacity": map[string]any{"berlin": "3"}}, &in); err == nil ||
		err.Error() != `options.capacity["berlin"] must be a number, not a string` {
		t.Fatalf("a count that is a string: %v", err)
	}
}

func TestFormsReadBackAsTheSameRules(t *testing.T) {
	rules := []federation.SetOverrideRule{
		{OverrideRule: federation.OverrideRule{Cluster: "berlin", Patches: []federation.Patch{
			{Op: "add", Path: "/metadata/labels/tier", Value: `"edge"`},
			{Op: "remove", Path: "/data/old"},
		}}, Object: &federation.ObjectRef{Kind: "ConfigMap", Name: "web", Namespace: "app"}},
		{OverrideRule: federation.OverrideRule{Selector: &metav1.LabelSelector{
			MatchLabels:      map[string]string{"region": "eu"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"a", "b"}}},
		}, Patches: []federation.Patch{{Path: "/spec/replicas", Value: "3"}}}},
		{OverrideRule: federation.OverrideRule{Selector: &metav1.LabelSelector{}, Patches: []federation.Patch{{Path: "/data/a", Value: `"b"`}}},
			Object: &federation.ObjectRef{Kind: "Deployment", Name: "api", APIVersion: "apps/v1"}},
	}
	back, err := SetOverrideRules(SetOverrideRulesForm(rules))
	if err != nil {
		t.Fatal(err)
	}
	if !federation.SameSetOverrideRules(back, rules) {
		t.Errorf("read back %+v, want %+v", back, rules)
	}
	plainRules := []federation.OverrideRule{rules[0].OverrideRule, rules[1].OverrideRule}
	again, err := OverrideRules(OverrideRulesForm(plainRules))
	if err != nil || !federation.SameOverrideRules(again, plainRules) {
		t.Errorf("read back %+v (%v), want %+v", again, err, plainRules)
	}
	if OverrideRulesForm(nil) != nil || SetOverrideRulesForm(nil) != nil || SelectorForm(nil) != nil {
		t.Error("no rules or selector is not nil")
	}
	if form := SelectorForm(&metav1.LabelSelector{}); len(form) != 0 || form == nil {
		t.Errorf("the empty selector's form is %#v, want {}", form)
	}
}

func TestRulesWithAttributesTheyDoNotHaveAreRefused(t *testing.T) {
	patches := []any{map[string]any{"path": "/data/a", "value": `"b"`}}
	for _, tc := range []struct {
		name string
		raw  any
		set  bool
		want string
	}{
		{"labels without match_labels", []any{map[string]any{"cluster_selector": map[string]any{"region": "eu"}, "patches": patches}}, false,
			`overrides[0].cluster_selector has no attribute "region"`},
		{"clusters for cluster", []any{map[string]any{"clusters": []any{"a"}, "patches": patches}}, false, `overrides[0] has no attribute "clusters"`},
		{"an object on a federated object's rule", []any{map[string]any{"cluster": "a", "object": map[string]any{}, "patches": patches}}, false,
			`overrides[0] has no attribute "object"`},
		{"a misspelt patch attribute", []any{map[string]any{"cluster": "a", "patches": []any{map[string]any{"path": "/x", "vaule": "1"}}}}, false,
			`overrides[0].patches[0] has no attribute "vaule"`},
		{"no patches", []any{map[string]any{"cluster": "a"}}, false, "overrides[0].patches is required"},
		{"a patch without a path", []any{map[string]any{"cluster": "a", "patches": []any{map[string]any{"value": "1"}}}}, false,
			"overrides[0].patches[0].path is required"},
		{"not a list", map[string]any{}, false, "overrides must be a list"},
		{"a misspelt object attribute", []any{map[string]any{"cluster": "a", "object": map[string]any{"kind": "ConfigMap", "nam": "web"}, "patches": patches}}, true,
			`overrides[0].object has no attribute "nam"`},
		{"an object without a name", []any{map[string]any{"cluster": "a", "object": map[string]any{"kind": "ConfigMap"}, "patches": patches}}, true,
			"overrides[0].object needs kind and name"},
	} {
		var err error
		if tc.set {
			_, err = SetOverrideRules(tc.raw)
		} else {
			_, err = OverrideRules(tc.raw)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
