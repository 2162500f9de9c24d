package scheduling

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// FNV-1 ranks C, B, A for these names with an empty key, so C wins ties.
func TestPlanBalancedSituations(t *testing.T) {
	runPlanCases(t, Balanced, []planCase{
		{
			name: "ten over three equal clusters gives four three three", total: 10, prefs: all,
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 3, "B": 3, "C": 4},
		},
		{
			name: "fifty over three equal clusters differs by at most one", total: 50, prefs: all,
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 16, "B": 17, "C": 17},
		},
		{
			name: "weights split in proportion and clusters without preference get zero", total: 60,
			prefs:    map[string]Preference{"A": {Weight: 1}, "B": {Weight: 2}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 20, "B": 40, "C": 0},
		},
		{
			name: "minimums exceeding the total go in rank order", total: 50,
			prefs:    map[string]Preference{Wildcard: {MinReplicas: 20}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 10, "B": 20, "C": 20},
		},
		{
			name: "the rest after minimums is divided by weight alone", total: 10,
			prefs:    map[string]Preference{Wildcard: {MinReplicas: 2, Weight: 1}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 3, "B": 3, "C": 4},
		},
		{
			name: "a minimum on one cluster does not count towards its share", total: 10,
			prefs:    map[string]Preference{Wildcard: {Weight: 1}, "A": {MinReplicas: 4, Weight: 1}},
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 7, "B": 3},
		},
		{
			name: "maximums cap every cluster and leave the rest unplaced", total: 10,
			prefs:    map[string]Preference{Wildcard: {MaxReplicas: ptr(3), Weight: 1}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 3, "B": 3, "C": 3}, unplaced: 1,
		},
		{
			name: "a capped cluster drops out and the rest is divided again", total: 10, prefs: all,
			clusters: []string{"A", "B", "C"}, capacity: map[string]int64{"C": 2},
			plan: map[string]int64{"A": 4, "B": 4, "C": 2},
		},
		{
			name: "a heavy cluster with a maximum hands its excess to the others", total: 91,
			prefs: map[string]Preference{
				"A": {Weight: 10000, MaxReplicas: ptr(10)},
				"B": {Weight: 1},
				"C": {Weight: 1, MaxReplicas: ptr(21)},
				"D": {Weight: 1, MaxReplicas: ptr(10)},
				"E": {Weight: 1},
			},
			clusters: []string{"A", "B", "C", "D", "E"},
			plan:     map[string]int64{"A": 10, "B": 25, "C": 21, "D": 10, "E": 25},
		},
		{
			name: "zero weights place nothing beyond minimums", total: 10,
			prefs:    map[string]Preference{Wildcard: {MinReplicas: 1}},
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 1, "B": 1}, unplaced: 8,
		},
		{
			name: "current replicas and rebalance are ignored", total: 10, prefs: all,
			clusters: []string{"A", "B", "C"}, current: map[string]int64{"A": 10},
			plan: map[string]int64{"A": 3, "B": 3, "C": 4},
		},
		{
			name: "a capacity below the minimum limits the minimum", total: 10,
			prefs:    map[string]Preference{Wildcard: {MinReplicas: 5, Weight: 1}},
			clusters: []string{"A", "B"}, capacity: map[string]int64{"A": 3},
			plan: map[string]int64{"A": 3, "B": 7},
		},
		{
			name: "ties between different weights go to the heavier cluster", total: 2,
			prefs:    map[string]Preference{"A": {Weight: 3}, "B": {Weight: 1}},
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 2, "B": 0},
		},
		{
			name: "a large total stays within one replica of each share", total: 1_000_000_007,
			prefs:    map[string]Preference{"A": {Weight: 1}, "B": {Weight: 2}, "C": {Weight: 4}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 142857144, "B": 285714288, "C": 571428575},
		},
		{
			name: "huge weights do not overflow", total: 3,
			prefs:    map[string]Preference{"A": {Weight: 1 << 62}, "B": {Weight: 1 << 61}},
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 2, "B": 1},
		},
	})
}

// naiveWebster hands out seats one at a time, the textbook way.
func naiveWebster(n int64, weights []uint64) []int64 {
	seats := make([]int64, len(weights))
	for range n {
		best := 0
		for k := 1; k < len(weights); k++ {
			if precedes(weights[k], seats[k], k, weights[best], seats[best], best) {
				best = k
			}
		}
		seats[best]++
	}
	return seats
}

func TestWebsterMatchesSeatBySeat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		weights := make([]uint64, 1+r.IntN(8))
		for k := range weights {
			weights[k] = 1 + uint64(r.IntN(20))
		}
		n := int64(r.IntN(200))
		got, want := webster(n, weights), naiveWebster(n, weights)
		if !slices.Equal(got, want) {
			t.Fatalf("webster(%d, %v) = %v, seat by seat gives %v", n, weights, got, want)
		}
	}
}

// naiveBalanced is planBalanced written the slow, obvious way: seat by seat,
// a cluster leaving as soon as it reaches its limit.
func naiveBalanced(total int64, ranked []candidate) ([]int64, int64) {
	planned := make([]int64, len(ranked))
	remaining := serveMinimums(total, ranked, planned)
	won := make([]int64, len(ranked))
	for ; remaining > 0; remaining-- {
		best := -1
		for i := range ranked {
			c := &ranked[i]
			if c.pref.Weight == 0 || planned[i] >= c.limit() {
				continue
			}
			if best < 0 || precedes(uint64(c.pref.Weight), won[i], i, uint64(ranked[best].pref.Weight), won[best], best) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		planned[best]++
		won[best]++
	}
	return planned, remaining
}

func TestBalancedMatchesSeatBySeat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		in := randomInput(r, Balanced)
		if in.TotalReplicas > 500 {
			in.TotalReplicas %= 500
		}
		ranked := rank(in)
		gotPlan, gotLeft := planBalanced(in.TotalReplicas, ranked)
		wantPlan, wantLeft := naiveBalanced(in.TotalReplicas, ranked)
		if !slices.Equal(gotPlan, wantPlan) || gotLeft != wantLeft {
			t.Fatalf("input %+v: got %v (unplaced %d), seat by seat %v (unplaced %d)", in, gotPlan, gotLeft, wantPlan, wantLeft)
		}
	}
}

func TestBalancedIsDeterministic(t *testing.T) {
	in := Input{TotalReplicas: 7, Clusters: []string{"x", "y", "z"}, Strategy: Balanced, Key: "prod/api"}
	first, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, _ := Plan(in)
		if !maps.Equal(first.Plan, again.Plan) {
			t.Fatalf("plan changed from %v to %v", first.Plan, again.Plan)
		}
	}
}
