package scheduling

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// choiceCase pins a split with the options that choose clusters or derive
// weights. FNV-1 ranks single letters in reverse order with an empty key
// (C before B before A), and the regions us, eu, ap in that order.
type choiceCase struct {
	name     string
	in       Input
	plan     map[string]int64
	overflow map[string]int64
	unplaced int64
	// excluded maps each excluded cluster to a part of its reason.
	excluded map[string]string
	// warning is a part of the only warning; "" means none.
	warning string
}

func runChoiceCases(t *testing.T, cases []choiceCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Plan(tc.in)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if !maps.Equal(got.Plan, tc.plan) {
				t.Errorf("plan = %v, want %v", got.Plan, tc.plan)
			}
			if tc.overflow == nil {
				tc.overflow = map[string]int64{}
			}
			if !maps.Equal(got.Overflow, tc.overflow) {
				t.Errorf("overflow = %v, want %v", got.Overflow, tc.overflow)
			}
			if got.Unplaced != tc.unplaced {
				t.Errorf("unplaced = %d, want %d", got.Unplaced, tc.unplaced)
			}
			if !slices.Equal(slices.Sorted(maps.Keys(got.Excluded)), slices.Sorted(maps.Keys(tc.excluded))) {
				t.Errorf("excluded = %v, want %v", got.Excluded, tc.excluded)
			}
			for name, part := range tc.excluded {
				if !strings.Contains(got.Excluded[name], part) {
					t.Errorf("excluded[%s] = %q, want it to say %q", name, got.Excluded[name], part)
				}
			}
			switch {
			case tc.warning == "" && len(got.Warnings) > 0:
				t.Errorf("warnings = %q, want none", got.Warnings)
			case tc.warning != "" && (len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], tc.warning)):
				t.Errorf("warnings = %q, want one saying %q", got.Warnings, tc.warning)
			}
			checkInvariants(t, tc.in, got)
		})
	}
}

var abc = []string{"A", "B", "C"}

func TestPlanMaxClusters(t *testing.T) {
	const kept = "max_clusters = 2 keeps the clusters ranked first"
	runChoiceCases(t, []choiceCase{
		{
			name: "the clusters with most room are kept among equal weights",
			in: Input{TotalReplicas: 12, Clusters: abc, Preferences: all, MaxClusters: 2, Rebalance: true,
				Capacity: map[string]int64{"A": 12, "B": 12, "C": 2}},
			plan:     map[string]int64{"A": 6, "B": 6, "C": 0},
			excluded: map[string]string{"C": kept},
		},
		{
			name: "weight comes before room",
			in: Input{TotalReplicas: 8, Clusters: abc, MaxClusters: 2, Rebalance: true,
				Preferences: map[string]Preference{"A": {Weight: 3}, "B": {Weight: 1}, "C": {Weight: 1}},
				Capacity:    map[string]int64{"B": 10, "C": 20}},
			plan:     map[string]int64{"A": 6, "B": 0, "C": 2},
			excluded: map[string]string{"B": kept},
		},
		{
			name: "equal weight and room fall back to the name hash",
			in:   Input{TotalReplicas: 10, Clusters: abc, Preferences: all, MaxClusters: 2},
			plan: map[string]int64{"A": 0, "B": 5, "C": 5}, excluded: map[string]string{"A": kept},
		},
		{
			name: "the key changes which clusters a tie keeps",
			in:   Input{TotalReplicas: 10, Clusters: abc, Preferences: all, MaxClusters: 2, Key: "shop/web"},
			plan: map[string]int64{"A": 5, "B": 5, "C": 0}, excluded: map[string]string{"C": kept},
		},
		{
			name: "a cluster without room is passed over despite its weight",
			in: Input{TotalReplicas: 10, Clusters: abc, MaxClusters: 2, Capacity: map[string]int64{"A": 0},
				Preferences: map[string]Preference{"A": {Weight: 5}, "B": {Weight: 1}, "C": {Weight: 1}}},
			plan: map[string]int64{"A": 0, "B": 5, "C": 5}, excluded: map[string]string{"A": kept},
		},
		{
			name: "a cluster of weight zero without a minimum is passed over",
			in: Input{TotalReplicas: 10, Clusters: abc, MaxClusters: 2,
				Preferences: map[string]Preference{"A": {Weight: 1}, "B": {MaxReplicas: ptr(5)}, "C": {Weight: 1}}},
			plan: map[string]int64{"A": 5, "B": 0, "C": 5}, excluded: map[string]string{"B": kept},
		},
		{
			name: "without rebalance a cluster that runs replicas stays chosen",
			in: Input{TotalReplicas: 10, Clusters: abc, Preferences: all, MaxClusters: 2,
				Current: map[string]int64{"A": 4}},
			plan: map[string]int64{"A": 4, "B": 0, "C": 6}, excluded: map[string]string{"B": kept},
		},
		{
			name: "with rebalance running replicas do not hold the choice",
			in: Input{TotalReplicas: 10, Clusters: abc, Preferences: all, MaxClusters: 2, Rebalance: true,
				Current: map[string]int64{"A": 4}},
			plan: map[string]int64{"A": 0, "B": 5, "C": 5}, excluded: map[string]string{"A": kept},
		},
		{
			name: "candidates without a preference are neither counted nor excluded",
			in: Input{TotalReplicas: 10, Clusters: []string{"A", "B", "C", "D"}, MaxClusters: 2,
				Preferences: map[string]Preference{"A": {Weight: 1}, "B": {Weight: 1}, "C": {Weight: 1}}},
			plan: map[string]int64{"A": 0, "B": 5, "C": 5, "D": 0}, excluded: map[string]string{"A": kept},
		},
		{
			name: "the minimums of excluded clusters are dropped",
			in: Input{TotalReplicas: 10, Clusters: abc, MaxClusters: 1,
				Preferences: map[string]Preference{Wildcard: {MinReplicas: 2, Weight: 1}}},
			plan:     map[string]int64{"A": 0, "B": 0, "C": 10},
			excluded: map[string]string{"A": "max_clusters = 1", "B": "max_clusters = 1"},
		},
		{
			name: "what the kept clusters cannot hold is unplaced, not moved to the others",
			in: Input{TotalReplicas: 10, Clusters: abc, MaxClusters: 2,
				Preferences: map[string]Preference{"A": {Weight: 10}, "B": {Weight: 10}, "C": {Weight: 1}},
				Capacity:    map[string]int64{"A": 3, "B": 3, "C": 100}},
			plan: map[string]int64{"A": 3, "B": 3, "C": 0}, overflow: map[string]int64{"A": 2, "B": 2}, unplaced: 4,
			excluded: map[string]string{"C": kept},
		},
		{
			name: "a limit above the candidates excludes nothing",
			in:   Input{TotalReplicas: 10, Clusters: []string{"A", "B"}, Preferences: all, MaxClusters: 5},
			plan: map[string]int64{"A": 5, "B": 5},
		},
		{
			name: "balanced splits the kept clusters within one of their shares",
			in: Input{TotalReplicas: 10, Clusters: []string{"A", "B", "C", "D"}, Preferences: all, MaxClusters: 3,
				Strategy: Balanced},
			plan: map[string]int64{"A": 0, "B": 3, "C": 3, "D": 4}, excluded: map[string]string{"A": "max_clusters = 3"},
		},
	})
}

func TestPlanWeightByAvailableCapacity(t *testing.T) {
	capacityWeights := func(in Input) Input {
		in.WeightBy = AvailableCapacity
		return in
	}
	runChoiceCases(t, []choiceCase{
		{
			name: "weights follow the room of each cluster",
			in: capacityWeights(Input{TotalReplicas: 13, Clusters: abc, Preferences: all, Rebalance: true,
				Capacity: map[string]int64{"A": 12, "B": 12, "C": 2}}),
			plan: map[string]int64{"A": 6, "B": 6, "C": 1},
		},
		{
			name: "more room takes more replicas",
			in: capacityWeights(Input{TotalReplicas: 8, Clusters: []string{"A", "B"}, Preferences: all,
				Capacity: map[string]int64{"A": 30, "B": 10}}),
			plan: map[string]int64{"A": 6, "B": 2},
		},
		{
			name: "a weight of zero stays zero",
			in: capacityWeights(Input{TotalReplicas: 10, Clusters: []string{"A", "B"},
				Preferences: map[string]Preference{"A": {}, "B": {Weight: 1}},
				Capacity:    map[string]int64{"A": 50, "B": 5}}),
			plan: map[string]int64{"A": 0, "B": 5}, overflow: map[string]int64{"B": 5}, unplaced: 5,
		},
		{
			name: "a cluster without an estimate weighs the total",
			in: capacityWeights(Input{TotalReplicas: 12, Clusters: []string{"A", "B"}, Preferences: all,
				Capacity: map[string]int64{"A": 4}}),
			plan: map[string]int64{"A": 3, "B": 9},
		},
		{
			name: "without any estimate the weights are equal",
			in: capacityWeights(Input{TotalReplicas: 10, Clusters: []string{"A", "B"},
				Preferences: map[string]Preference{"A": {Weight: 5}, "B": {Weight: 1}}}),
			plan: map[string]int64{"A": 5, "B": 5},
		},
		{
			name: "capacities beyond the largest replica count weigh alike",
			in: capacityWeights(Input{TotalReplicas: 10, Clusters: []string{"A", "B"}, Preferences: all,
				Capacity: map[string]int64{"A": math.MaxInt64, "B": MaxTotalReplicas}}),
			plan: map[string]int64{"A": 5, "B": 5},
		},
		{
			name: "no room anywhere leaves everything unplaced",
			in: capacityWeights(Input{TotalReplicas: 6, Clusters: []string{"A", "B"},
				Preferences: map[string]Preference{Wildcard: {MinReplicas: 1, Weight: 1}},
				Capacity:    map[string]int64{"A": 0, "B": 0}}),
			plan: map[string]int64{"A": 0, "B": 0}, unplaced: 6,
		},
		{
			name: "minimums and maximums still bound the split",
			in: capacityWeights(Input{TotalReplicas: 20, Clusters: abc, Rebalance: true,
				Preferences: map[string]Preference{Wildcard: {MinReplicas: 2, Weight: 1}, "A": {MinReplicas: 2, Weight: 1, MaxReplicas: ptr(3)}},
				Capacity:    map[string]int64{"A": 100, "B": 10, "C": 10}}),
			plan: map[string]int64{"A": 3, "B": 8, "C": 9},
		},
		{
			name: "balanced divides by the capacity weights",
			in: capacityWeights(Input{TotalReplicas: 9, Clusters: []string{"A", "B"}, Preferences: all, Strategy: Balanced,
				Capacity: map[string]int64{"A": 6, "B": 3}}),
			plan: map[string]int64{"A": 6, "B": 3},
		},
		{
			name: "capacity weights choose the clusters max_clusters keeps",
			in: capacityWeights(Input{TotalReplicas: 6, Clusters: abc, Preferences: all, MaxClusters: 2,
				Capacity: map[string]int64{"A": 5, "B": 1, "C": 4}}),
			plan: map[string]int64{"A": 4, "B": 0, "C": 2}, excluded: map[string]string{"B": "max_clusters = 2"},
		},
	})
}

// KubeFed's overflow semantics with capacities: what does not fit goes to
// the other clusters in weight order; what fits nowhere is unplaced.
func TestPlanCapacityOverflow(t *testing.T) {
	for _, s := range Strategies {
		t.Run(string(s), func(t *testing.T) {
			cases := []choiceCase{
				{
					name: "twelve over capacities of twelve, twelve and two gives five, five and two",
					in: Input{TotalReplicas: 12, Clusters: abc, Preferences: all, Strategy: s,
						Capacity: map[string]int64{"A": 12, "B": 12, "C": 2}},
					plan: map[string]int64{"A": 5, "B": 5, "C": 2},
				},
				{
					name: "a cluster without capacity gets nothing and its share moves",
					in: Input{TotalReplicas: 10, Clusters: []string{"A", "B"}, Preferences: all, Strategy: s,
						Capacity: map[string]int64{"A": 0}},
					plan: map[string]int64{"A": 0, "B": 10},
				},
				{
					name: "what fits nowhere is unplaced",
					in: Input{TotalReplicas: 20, Clusters: abc, Preferences: all, Strategy: s,
						Capacity: map[string]int64{"A": 3, "B": 3, "C": 3}},
					plan: map[string]int64{"A": 3, "B": 3, "C": 3}, unplaced: 11,
				},
			}
			if s == KubeFed {
				cases[2].overflow = map[string]int64{"A": 4, "B": 4, "C": 4}
				cases = append(cases, choiceCase{
					name: "the excess of a full cluster goes to the others in weight order",
					in: Input{TotalReplicas: 30, Clusters: abc, Rebalance: true,
						Preferences: map[string]Preference{"A": {Weight: 3}, "B": {Weight: 2}, "C": {Weight: 1}},
						Capacity:    map[string]int64{"A": 5}},
					plan: map[string]int64{"A": 5, "B": 17, "C": 8}, overflow: map[string]int64{"A": 10},
				})
			}
			runChoiceCases(t, cases)
		})
	}
}
