package scheduling

import (
	"strings"
	"testing"
)

// Clusters a and b are in region us, c and d in eu, e in ap; f has no
// region. FNV-1 ranks them f, e, d, c, b, a with an empty key, and the
// regions us, eu, ap.
var (
	regional       = []string{"a", "b", "c", "d", "e", "f"}
	regionalLabels = map[string]map[string]string{
		"a": {"region": "us"}, "b": {"region": "us"},
		"c": {"region": "eu"}, "d": {"region": "eu"},
		"e": {"region": "ap"},
		"f": {"tier": "edge"},
	}
)

const noRegion = `no "region" label`

func spreadInput(total int64, spread Spread) Input {
	return Input{TotalReplicas: total, Clusters: regional, Preferences: all, Rebalance: true,
		ClusterLabels: regionalLabels, Spread: spread}
}

func TestPlanSpread(t *testing.T) {
	runChoiceCases(t, []choiceCase{
		{
			name:     "spread over three regions places on all of them",
			in:       spreadInput(12, Spread{ByLabel: "region", MinGroups: 2, MaxGroups: 3}),
			plan:     map[string]int64{"a": 0, "b": 3, "c": 3, "d": 3, "e": 3, "f": 0},
			excluded: map[string]string{"f": noRegion},
		},
		{
			name: "max_groups two leaves the lightest region out",
			in:   spreadInput(12, Spread{ByLabel: "region", MinGroups: 1, MaxGroups: 2}),
			plan: map[string]int64{"a": 3, "b": 3, "c": 3, "d": 3, "e": 0, "f": 0},
			excluded: map[string]string{"e": `region=ap ranks below the 2 groups chosen ("us", "eu")`,
				"f": noRegion},
		},
		{
			name: "max_clusters with a spread keeps one cluster per region first",
			in: func() Input {
				in := spreadInput(9, Spread{ByLabel: "region", MinGroups: 3})
				in.MaxClusters = 3
				return in
			}(),
			plan: map[string]int64{"a": 0, "b": 3, "c": 0, "d": 3, "e": 3, "f": 0},
			excluded: map[string]string{"a": "max_clusters = 3", "c": "max_clusters = 3",
				"f": noRegion},
		},
		{
			name: "fewer regions than min_groups places on those there are and warns",
			in: Input{TotalReplicas: 6, Clusters: regional, Preferences: all, Rebalance: true,
				ClusterLabels: map[string]map[string]string{"a": {"region": "us"}, "b": {"region": "us"}},
				Spread:        Spread{ByLabel: "region", MinGroups: 2}},
			plan: map[string]int64{"a": 3, "b": 3, "c": 0, "d": 0, "e": 0, "f": 0},
			excluded: map[string]string{"c": noRegion, "d": noRegion, "e": noRegion,
				"f": noRegion},
			warning: `asks for at least 2 groups, but the candidate clusters that can take replicas span only 1 ("us")`,
		},
		{
			name: "a small total still reaches min_groups",
			in: Input{TotalReplicas: 2, Clusters: []string{"a", "c", "e"}, Rebalance: true, ClusterLabels: regionalLabels,
				Preferences: map[string]Preference{"a": {Weight: 100}, "c": {Weight: 1}, "e": {Weight: 1}},
				Spread:      Spread{ByLabel: "region", MinGroups: 2}},
			plan: map[string]int64{"a": 1, "c": 1, "e": 0},
		},
		{
			name:     "one replica cannot reach two regions",
			in:       spreadInput(1, Spread{ByLabel: "region", MinGroups: 2}),
			plan:     map[string]int64{"a": 0, "b": 0, "c": 0, "d": 0, "e": 1, "f": 0},
			excluded: map[string]string{"f": noRegion},
			warning:  "the 1 replica reaches only 1",
		},
		{
			name: "a region whose clusters cannot take replicas does not count",
			in: func() Input {
				in := spreadInput(6, Spread{ByLabel: "region", MinGroups: 3})
				in.Preferences = map[string]Preference{Wildcard: {Weight: 1}, "e": {}}
				return in
			}(),
			plan:     map[string]int64{"a": 0, "b": 2, "c": 2, "d": 2, "e": 0, "f": 0},
			excluded: map[string]string{"f": noRegion},
			warning:  `span only 2 ("us", "eu")`,
		},
		{
			name: "an empty label value is a group of its own",
			in: Input{TotalReplicas: 4, Clusters: []string{"a", "c"}, Preferences: all,
				ClusterLabels: map[string]map[string]string{"a": {"region": ""}, "c": {"region": "eu"}},
				Spread:        Spread{ByLabel: "region", MinGroups: 2}},
			plan: map[string]int64{"a": 2, "c": 2},
		},
		{
			name: "without rebalance the region that runs replicas stays chosen",
			in: func() Input {
				in := spreadInput(4, Spread{ByLabel: "region", MaxGroups: 1})
				in.Rebalance = false
				in.Current = map[string]int64{"c": 2}
				return in
			}(),
			plan: map[string]int64{"a": 0, "b": 0, "c": 2, "d": 2, "e": 0, "f": 0},
			excluded: map[string]string{"a": `region=us ranks below the 1 group chosen ("eu")`, "b": "region=us",
				"e": "region=ap", "f": noRegion},
		},
		{
			name: "capacity weights rank the regions by their room",
			in: func() Input {
				in := spreadInput(6, Spread{ByLabel: "region", MaxGroups: 2})
				in.WeightBy = AvailableCapacity
				in.Capacity = map[string]int64{"a": 1, "b": 1, "c": 2, "d": 1, "e": 5, "f": 50}
				return in
			}(),
			plan: map[string]int64{"a": 0, "b": 0, "c": 2, "d": 0, "e": 4, "f": 0},
			excluded: map[string]string{"a": `region=us ranks below the 2 groups chosen ("ap", "eu")`, "b": "region=us",
				"f": noRegion},
		},
		{
			name:     "a zero total warns of nothing",
			in:       spreadInput(0, Spread{ByLabel: "region", MinGroups: 2}),
			plan:     map[string]int64{"a": 0, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0},
			excluded: map[string]string{"f": noRegion},
		},
		{
			name: "balanced spreads the same way",
			in: func() Input {
				in := spreadInput(10, Spread{ByLabel: "region", MinGroups: 2, MaxGroups: 2})
				in.Strategy = Balanced
				return in
			}(),
			plan:     map[string]int64{"a": 2, "b": 2, "c": 3, "d": 3, "e": 0, "f": 0},
			excluded: map[string]string{"e": "region=ap", "f": noRegion},
		},
	})
}

func TestPlanSpreadWithoutLabels(t *testing.T) {
	cases := []struct {
		name    string
		in      Input
		wantErr string
	}{
		{
			name:    "the error lists a few of many unlabelled candidates",
			in:      Input{TotalReplicas: 3, Clusters: []string{"g", "f", "e", "d", "c", "b", "a"}, Spread: Spread{ByLabel: "region"}},
			wantErr: `no candidate cluster has the label "region" (candidates: a, b, c, d, e and 2 more)`,
		},
		{
			name: "no candidates are no error",
			in:   Input{TotalReplicas: 3, Clusters: []string{}, Spread: Spread{ByLabel: "region", MinGroups: 2}},
		},
		{
			name: "candidates without a preference are no error",
			in: Input{TotalReplicas: 3, Clusters: []string{"a"}, Preferences: map[string]Preference{"z": {Weight: 1}},
				Spread: Spread{ByLabel: "region"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Plan(tc.in)
			if tc.wantErr == "" {
				if err != nil || res.Unplaced != 3 {
					t.Fatalf("Plan = %+v, %v; want everything unplaced and no error", res, err)
				}
				if tc.in.Spread.MinGroups > 0 && (len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "no candidate cluster")) {
					t.Fatalf("warnings = %q, want one saying no candidate cluster can take replicas", res.Warnings)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}
