package scheduling

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestPlanRejectsBadInput(t *testing.T) {
	base := func() Input {
		return Input{TotalReplicas: 10, Clusters: []string{"berlin", "new-york"}}
	}
	cases := []struct {
		name   string
		change func(*Input)
		field  string
		key    string
		text   string
	}{
		{"negative total", func(in *Input) { in.TotalReplicas = -1 }, FieldTotalReplicas, "", "must not be negative, got -1"},
		{"total beyond 32 bits", func(in *Input) { in.TotalReplicas = math.MaxInt32 + 1 }, FieldTotalReplicas, "", "exceeds the largest replica count"},
		{"unknown strategy", func(in *Input) { in.Strategy = "roundrobin" }, FieldStrategy, "", `unknown strategy "roundrobin"`},
		{"strategy is case sensitive", func(in *Input) { in.Strategy = "KubeFed" }, FieldStrategy, "", `unknown strategy "KubeFed"`},
		{"duplicate candidate", func(in *Input) { in.Clusters = append(in.Clusters, "berlin") }, FieldClusters, "berlin", "listed more than once"},
		{"negative minimum", func(in *Input) {
			in.Preferences = map[string]Preference{"berlin": {MinReplicas: -2}}
		}, FieldPreferences, "berlin", "min_replicas must not be negative, got -2"},
		{"negative maximum", func(in *Input) {
			in.Preferences = map[string]Preference{Wildcard: {MaxReplicas: ptr(-1)}}
		}, FieldPreferences, "*", "max_replicas must not be negative, got -1"},
		{"negative weight", func(in *Input) {
			in.Preferences = map[string]Preference{"new-york": {Weight: -3}}
		}, FieldPreferences, "new-york", "weight must not be negative, got -3"},
		{"minimum above maximum", func(in *Input) {
			in.Preferences = map[string]Preference{"berlin": {MinReplicas: 5, MaxReplicas: ptr(3)}}
		}, FieldPreferences, "berlin", "min_replicas (5) is greater than max_replicas (3)"},
		{"bad preference of a cluster that is not a candidate", func(in *Input) {
			in.Preferences = map[string]Preference{"tokyo": {Weight: -1}}
		}, FieldPreferences, "tokyo", "weight must not be negative"},
		{"first bad key in name order is reported", func(in *Input) {
			in.Preferences = map[string]Preference{"zurich": {Weight: -1}, "amsterdam": {Weight: -1}}
		}, FieldPreferences, "amsterdam", "weight must not be negative"},
		{"negative current", func(in *Input) { in.Current = map[string]int64{"berlin": -1} }, FieldCurrent, "berlin", "must not be negative, got -1"},
		{"negative capacity", func(in *Input) { in.Capacity = map[string]int64{"new-york": -5} }, FieldCapacity, "new-york", "must not be negative, got -5"},
		{"weights overflowing 64 bits", func(in *Input) {
			in.Preferences = map[string]Preference{Wildcard: {Weight: math.MaxInt64}}
		}, FieldPreferences, "", "sum of the candidates' weights exceed"},
		{"unknown weight source", func(in *Input) { in.WeightBy = "dynamic" }, FieldWeightBy, "", `unknown weight source "dynamic"`},
		{"negative max_clusters", func(in *Input) { in.MaxClusters = -1 }, FieldMaxClusters, "", "must not be negative, got -1"},
		{"groups without a label to spread by", func(in *Input) { in.Spread = Spread{MinGroups: 2} }, FieldSpread, "by_label", "is required"},
		{"a spread label that is not a label key", func(in *Input) { in.Spread = Spread{ByLabel: "the region"} }, FieldSpread, "by_label",
			`"the region" is not a label key`},
		{"negative min_groups", func(in *Input) { in.Spread = Spread{ByLabel: "region", MinGroups: -1} }, FieldSpread, "min_groups",
			"must not be negative, got -1"},
		{"negative max_groups", func(in *Input) { in.Spread = Spread{ByLabel: "region", MaxGroups: -2} }, FieldSpread, "max_groups",
			"must not be negative, got -2"},
		{"min_groups above max_groups", func(in *Input) { in.Spread = Spread{ByLabel: "region", MinGroups: 3, MaxGroups: 2} }, FieldSpread,
			"min_groups", "min_groups (3) is greater than max_groups (2)"},
		{"min_groups above max_clusters", func(in *Input) {
			in.Spread = Spread{ByLabel: "region", MinGroups: 3}
			in.MaxClusters = 2
		}, FieldSpread, "min_groups", "min_groups (3) is greater than max_clusters (2)"},
		{"no candidate has the spread label", func(in *Input) {
			in.Spread = Spread{ByLabel: "region"}
			in.ClusterLabels = map[string]map[string]string{"berlin": {"zone": "b1"}}
		}, FieldSpread, "by_label", `no candidate cluster has the label "region" (candidates: berlin, new-york)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			tc.change(&in)
			_, err := Plan(in)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Plan error = %v, want an *InputError", err)
			}
			if ie.Field != tc.field || (tc.key != "" && ie.Key != tc.key) {
				t.Errorf("error names field %q key %q, want field %q key %q", ie.Field, ie.Key, tc.field, tc.key)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q does not say %q", err, tc.text)
			}
			if ie.Key != "" && !strings.Contains(err.Error(), `"`+ie.Key+`"`) {
				t.Errorf("error %q does not quote the key %q", err, ie.Key)
			}
		})
	}
}

func TestInputErrorText(t *testing.T) {
	err := &InputError{Field: FieldPreferences, Key: "berlin", Reason: "weight must not be negative, got -1"}
	if got, want := err.Error(), `preferences["berlin"]: weight must not be negative, got -1`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	err = &InputError{Field: FieldTotalReplicas, Reason: "must not be negative, got -1"}
	if got, want := err.Error(), "total_replicas: must not be negative, got -1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestPlanAcceptsEdgeValues(t *testing.T) {
	in := Input{
		TotalReplicas: MaxTotalReplicas,
		Clusters:      []string{"a", "b"},
		Preferences:   map[string]Preference{Wildcard: {MinReplicas: 0, MaxReplicas: ptr(0), Weight: 0}, "a": {Weight: math.MaxInt64}},
		Strategy:      KubeFed,
	}
	for _, s := range Strategies {
		in.Strategy = s
		got, err := Plan(in)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got.Plan["a"] != MaxTotalReplicas || got.Plan["b"] != 0 || got.Unplaced != 0 {
			t.Errorf("%s: got %+v", s, got)
		}
	}
}
