package federation

import (
	"errors"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var registry = []Cluster{
	{Name: "san-francisco", Labels: map[string]string{"region": "us-west", "env": "prod", "gpu": "true"}},
	{Name: "new-york", Labels: map[string]string{"region": "us-east", "env": "prod"}},
	{Name: "berlin", Labels: map[string]string{"region": "eu-central", "env": "staging"}},
	{Name: "bare"},
}

func TestPlacementSelect(t *testing.T) {
	cases := []struct {
		name      string
		placement Placement
		upcoming  []string
		want      []string
	}{
		{"listed names are selected, sorted", Placement{Clusters: []string{"new-york", "berlin"}}, nil, []string{"berlin", "new-york"}},
		{"an empty list selects none", Placement{Clusters: []string{}}, nil, []string{}},
		{"an empty list wins over a selector that would match all", Placement{Clusters: []string{}, Selector: &metav1.LabelSelector{}}, nil, []string{}},
		{"a list ignores the selector", Placement{Clusters: []string{"berlin"}, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}, nil, []string{"berlin"}},
		{"duplicates in the list collapse", Placement{Clusters: []string{"berlin", "berlin"}}, nil, []string{"berlin"}},
		{"nothing set selects none", Placement{}, nil, []string{}},
		{"an empty selector selects every registered cluster", Placement{Selector: &metav1.LabelSelector{}}, nil, []string{"bare", "berlin", "new-york", "san-francisco"}},
		{"an empty selector does not select upcoming clusters", Placement{Selector: &metav1.LabelSelector{}}, []string{"tokyo"}, []string{"bare", "berlin", "new-york", "san-francisco"}},
		{"match labels", Placement{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}, nil, []string{"new-york", "san-francisco"}},
		{"match labels must all hold", Placement{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod", "region": "us-east"}}}, nil, []string{"new-york"}},
		{"match labels matching nothing", Placement{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}}, nil, []string{}},
		{"In", Placement{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOperator(OperatorIn), Values: []string{"us-east", "eu-central"}}}}}, nil, []string{"berlin", "new-york"}},
		{"NotIn also matches clusters without the label", Placement{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOperator(OperatorNotIn), Values: []string{"prod"}}}}}, nil, []string{"bare", "berlin"}},
		{"Exists", Placement{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "gpu", Operator: metav1.LabelSelectorOperator(OperatorExists)}}}}, nil, []string{"san-francisco"}},
		{"DoesNotExist", Placement{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOperator(OperatorDoesNotExist)}}}}, nil, []string{"bare"}},
		{"labels and expressions combine", Placement{Selector: &metav1.LabelSelector{
			MatchLabels:      map[string]string{"env": "prod"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "gpu", Operator: metav1.LabelSelectorOperator(OperatorDoesNotExist)}},
		}}, nil, []string{"new-york"}},
		{"upcoming clusters may be listed", Placement{Clusters: []string{"tokyo", "berlin"}}, []string{"tokyo"}, []string{"berlin", "tokyo"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.placement.Select(registry, tc.upcoming)
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			if got == nil || !slices.Equal(got, tc.want) {
				t.Errorf("Select = %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestPlacementRejectsUnknownNames(t *testing.T) {
	_, err := Placement{Clusters: []string{"berln", "new-york"}}.Select(registry, nil)
	var unknown *UnknownClusterError
	if !errors.As(err, &unknown) {
		t.Fatalf("err = %v, want *UnknownClusterError", err)
	}
	if !slices.Equal(unknown.Names, []string{"berln"}) {
		t.Errorf("Names = %v", unknown.Names)
	}
	want := `cluster "berln" is not registered; registered clusters: bare, berlin, new-york, san-francisco`
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}

	_, err = Placement{Clusters: []string{"zz", "berln", "zz"}}.Select(registry, []string{"tokyo", "oslo"})
	want = `clusters "zz", "berln" are not registered; registered clusters: bare, berlin, new-york, san-francisco; about to be registered: oslo, tokyo`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}

	_, err = Placement{Clusters: []string{"berlin"}}.Select(nil, nil)
	want = `cluster "berlin" is not registered; no cluster is registered`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestSelectorErrorsNameTheCulprit(t *testing.T) {
	cases := []struct {
		name     string
		selector metav1.LabelSelector
		mentions []string
	}{
		{"unknown operator", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Among", Values: []string{"a"}}}},
			[]string{"match_expressions[0]", `"Among"`, "not a valid label selector operator"}},
		{"operator in the wrong case", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "in", Values: []string{"a"}}}},
			[]string{`"in"`, "not a valid label selector operator"}},
		{"bad key in an expression", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOperator(OperatorExists)},
			{Key: "bad key!", Operator: metav1.LabelSelectorOperator(OperatorExists)},
		}}, []string{"match_expressions[1]", `"bad key!"`}},
		{"In without values", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOperator(OperatorIn)}}},
			[]string{"match_expressions[0]", `key "env"`, "can't be empty"}},
		{"Exists with values", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOperator(OperatorExists), Values: []string{"x"}}}},
			[]string{"match_expressions[0]", "must be empty"}},
		{"bad value in an expression", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOperator(OperatorIn), Values: []string{"no spaces"}}}},
			[]string{"match_expressions[0]", `"no spaces"`}},
		{"bad match label key", metav1.LabelSelector{MatchLabels: map[string]string{"ok": "1", "-bad": "1"}},
			[]string{`match_labels["-bad"]`}},
		{"bad match label value", metav1.LabelSelector{MatchLabels: map[string]string{"env": "a b"}},
			[]string{`match_labels["env"]`, `"a b"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateSelector(&tc.selector)
			if err == nil {
				t.Fatal("Validate accepted an invalid selector")
			}
			for _, m := range tc.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %s", err, m)
				}
			}
			_, err = Placement{Selector: &tc.selector}.Select(registry, nil)
			if err == nil || !strings.HasPrefix(err.Error(), "cluster_selector: ") {
				t.Errorf("Select error = %v, want a cluster_selector error", err)
			}
			_, err = Placement{Clusters: []string{"berlin"}, Selector: &tc.selector}.Select(registry, nil)
			if err == nil {
				t.Error("Select accepted an invalid selector next to a cluster list")
			}
			if ok, err := SelectorMatches(&tc.selector, map[string]string{"env": "a"}); ok || err == nil {
				t.Errorf("Matches = %v, %v; want false and an error", ok, err)
			}
		})
	}
}

func TestSelectorMatches(t *testing.T) {
	s := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOperator(OperatorIn), Values: []string{"web", "api"}}}}
	for _, tc := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{"env": "prod", "tier": "web"}, true},
		{map[string]string{"env": "prod", "tier": "db"}, false},
		{map[string]string{"env": "prod"}, false},
		{nil, false},
	} {
		got, err := SelectorMatches(s, tc.labels)
		if err != nil || got != tc.want {
			t.Errorf("Matches(%v) = %v, %v; want %v", tc.labels, got, err, tc.want)
		}
	}
	if ok, err := SelectorMatches(&metav1.LabelSelector{}, nil); !ok || err != nil {
		t.Errorf("empty selector Matches(nil) = %v, %v; want true", ok, err)
	}
}
