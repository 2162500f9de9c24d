package scheduling

import (
	"maps"
	"testing"
)

func ptr(n int64) *int64 { return &n }

type planCase struct {
	name      string
	total     int64
	prefs     map[string]Preference
	clusters  []string
	current   map[string]int64
	capacity  map[string]int64
	rebalance bool
	key       string
	plan      map[string]int64
	overflow  map[string]int64
	unplaced  int64
}

func (tc planCase) input(s Strategy) Input {
	return Input{
		TotalReplicas: tc.total,
		Clusters:      tc.clusters,
		Preferences:   tc.prefs,
		Current:       tc.current,
		Capacity:      tc.capacity,
		Rebalance:     tc.rebalance,
		Key:           tc.key,
		Strategy:      s,
	}
}

func runPlanCases(t *testing.T, s Strategy, cases []planCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Plan(tc.input(s))
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if !maps.Equal(got.Plan, tc.plan) {
				t.Errorf("plan = %v, want %v", got.Plan, tc.plan)
			}
			wantOverflow := tc.overflow
			if wantOverflow == nil {
				wantOverflow = map[string]int64{}
			}
			if !maps.Equal(got.Overflow, wantOverflow) {
				t.Errorf("overflow = %v, want %v", got.Overflow, wantOverflow)
			}
			if got.Unplaced != tc.unplaced {
				t.Errorf("unplaced = %d, want %d", got.Unplaced, tc.unplaced)
			}
			for name, n := range got.Plan {
				if got.Replicas[name] != n+got.Overflow[name] {
					t.Errorf("replicas[%s] = %d, want plan+overflow = %d", name, got.Replicas[name], n+got.Overflow[name])
				}
			}
			if len(got.Replicas) != len(tc.clusters) {
				t.Errorf("replicas has %d entries, want one per candidate (%d)", len(got.Replicas), len(tc.clusters))
			}
		})
	}
}

var all = map[string]Preference{Wildcard: {Weight: 1}}

// The first eight cases are the reference vectors KubeFed's own planner
// tests pin; the rest pin further situations of the same algorithm.
func TestPlanKubeFedGoldenVectors(t *testing.T) {
	runPlanCases(t, KubeFed, []planCase{
		{
			name: "equal weights over three clusters follow the hash order", total: 50, prefs: all,
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 16, "B": 17, "C": 17},
		},
		{
			name: "without rebalance a cluster keeps what it runs", total: 50, prefs: all,
			clusters: []string{"A", "B", "C"}, current: map[string]int64{"C": 30},
			plan: map[string]int64{"A": 10, "B": 10, "C": 30},
		},
		{
			name: "without rebalance a small cluster grows to its share", total: 15, prefs: all,
			clusters: []string{"A", "B"}, current: map[string]int64{"A": 1, "B": 8},
			plan: map[string]int64{"A": 7, "B": 8},
		},
		{
			name: "weights split in proportion and clusters without preference get zero", total: 60,
			prefs:    map[string]Preference{"A": {Weight: 1}, "B": {Weight: 2}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 20, "B": 40, "C": 0},
		},
		{
			name: "minimums exceeding the total go in hash order", total: 50,
			prefs:    map[string]Preference{Wildcard: {MinReplicas: 20}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 10, "B": 20, "C": 20},
		},
		{
			name: "maximum caps every cluster and leaves the rest unplaced", total: 50,
			prefs:    map[string]Preference{Wildcard: {MinReplicas: 10, MaxReplicas: ptr(12), Weight: 1}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 12, "B": 12, "C": 12}, unplaced: 14,
		},
		{
			name: "heavy cluster with a maximum hands its excess to the others", total: 91,
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
			name: "capacity with rebalance overflows the capped cluster", total: 50, prefs: all, rebalance: true,
			clusters: []string{"A", "B", "C"}, capacity: map[string]int64{"C": 10},
			plan: map[string]int64{"A": 20, "B": 20, "C": 10}, overflow: map[string]int64{"C": 7},
		},
	})
}

func TestPlanKubeFedSituations(t *testing.T) {
	runPlanCases(t, KubeFed, []planCase{
		{
			name: "two equal clusters split evenly", total: 50, prefs: all,
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 25, "B": 25},
		},
		{
			name: "a single replica goes to the lowest hash", total: 1, prefs: all,
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 0, "B": 1},
		},
		{
			name: "a single replica over four clusters goes to the lowest hash", total: 1, prefs: all,
			clusters: []string{"A", "B", "C", "D"},
			plan:     map[string]int64{"A": 0, "B": 0, "C": 0, "D": 1},
		},
		{
			name: "the key changes which cluster wins a tie", total: 1, prefs: all, key: "ns/name",
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 1, "B": 0},
		},
		{
			name: "no candidates give an empty plan", total: 1, prefs: all,
			clusters: []string{},
			plan:     map[string]int64{}, unplaced: 1,
		},
		{
			name: "zero total gives every candidate zero", total: 0, prefs: all,
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 0, "B": 0},
		},
		{
			name: "empty preferences mean equal weights", total: 10,
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 5, "B": 5},
		},
		{
			name: "preferences without wildcard leave other clusters at zero and replicas unplaced", total: 10,
			prefs:    map[string]Preference{"A": {MaxReplicas: ptr(3), Weight: 1}},
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 3, "B": 0}, unplaced: 7,
		},
		{
			name: "ten over three equal clusters rounds up early", total: 10, prefs: all,
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 2, "B": 4, "C": 4},
		},
		{
			name: "a current count equal to the share changes nothing", total: 15, prefs: all,
			clusters: []string{"A", "B"}, current: map[string]int64{"A": 7, "B": 8},
			plan: map[string]int64{"A": 7, "B": 8},
		},
		{
			name: "a current count below the share is topped up", total: 50, prefs: all,
			clusters: []string{"A", "B"}, current: map[string]int64{"A": 10},
			plan: map[string]int64{"A": 25, "B": 25},
		},
		{
			name: "a large current count is kept without rebalance", total: 500000, prefs: all,
			clusters: []string{"A", "B"}, current: map[string]int64{"A": 300000},
			plan: map[string]int64{"A": 300000, "B": 200000},
		},
		{
			name: "current counts above the total are kept in rank order", total: 50, prefs: all,
			clusters: []string{"A", "B"}, current: map[string]int64{"A": 10, "B": 70},
			plan: map[string]int64{"A": 0, "B": 50},
		},
		{
			name: "a current count above a single replica total keeps it where it runs", total: 1, prefs: all,
			clusters: []string{"A", "B"}, current: map[string]int64{"A": 30},
			plan: map[string]int64{"A": 1, "B": 0},
		},
		{
			name: "rebalance ignores current counts", total: 50, prefs: all, rebalance: true,
			clusters: []string{"A", "B", "C"}, current: map[string]int64{"C": 30},
			plan: map[string]int64{"A": 16, "B": 17, "C": 17},
		},
		{
			name: "preallocation is capped by the maximum", total: 50,
			prefs:    map[string]Preference{Wildcard: {Weight: 1, MaxReplicas: ptr(20)}},
			clusters: []string{"A", "B", "C"}, current: map[string]int64{"C": 30},
			plan: map[string]int64{"A": 15, "B": 15, "C": 20},
		},
		{
			name: "capacity drives the excess to other clusters with rebalance", total: 50, rebalance: true,
			prefs:    map[string]Preference{"A": {Weight: 10000}, "B": {Weight: 1}},
			clusters: []string{"B", "C"}, capacity: map[string]int64{"B": 10},
			plan: map[string]int64{"B": 10, "C": 0}, overflow: map[string]int64{"B": 40}, unplaced: 40,
		},
		{
			name: "capacity on the heavier cluster moves replicas to the lighter one", total: 60, rebalance: true,
			prefs:    map[string]Preference{"A": {Weight: 1}, "B": {Weight: 2}},
			clusters: []string{"A", "B", "C"}, capacity: map[string]int64{"B": 10},
			plan: map[string]int64{"A": 50, "B": 10, "C": 0}, overflow: map[string]int64{"B": 30},
		},
		{
			name: "capacity below a maximum overflows only up to the maximum", total: 71, rebalance: true,
			prefs: map[string]Preference{
				"A": {Weight: 10000, MaxReplicas: ptr(10)},
				"B": {Weight: 1},
				"C": {Weight: 1, MaxReplicas: ptr(21)},
				"D": {Weight: 1, MaxReplicas: ptr(10)},
			},
			clusters: []string{"A", "B", "C", "D"}, capacity: map[string]int64{"C": 10},
			plan: map[string]int64{"A": 10, "B": 41, "C": 10, "D": 10}, overflow: map[string]int64{"C": 11},
		},
		{
			name: "without rebalance overflow is cut to what stays unplaced", total: 60,
			prefs:    map[string]Preference{"A": {Weight: 1}, "B": {Weight: 1}},
			clusters: []string{"A", "B", "C"}, capacity: map[string]int64{"A": 10, "B": 10},
			plan: map[string]int64{"A": 10, "B": 10, "C": 0}, overflow: map[string]int64{"A": 20, "B": 20}, unplaced: 40,
		},
		{
			name: "without rebalance overflow disappears when others absorb it", total: 60,
			prefs:    map[string]Preference{"A": {Weight: 1}, "B": {Weight: 5}},
			clusters: []string{"A", "B", "C"}, capacity: map[string]int64{"B": 10},
			plan: map[string]int64{"A": 50, "B": 10, "C": 0},
		},
		{
			name: "capacity limits minimums", total: 50,
			prefs:    map[string]Preference{Wildcard: {MinReplicas: 20}},
			clusters: []string{"A", "B", "C"}, capacity: map[string]int64{"B": 10},
			plan: map[string]int64{"A": 20, "B": 10, "C": 20},
		},
		{
			name: "capacity and minimums with rebalance leave overflow", total: 60, rebalance: true,
			prefs:    map[string]Preference{Wildcard: {MinReplicas: 20, Weight: 1}},
			clusters: []string{"A", "B"}, capacity: map[string]int64{"B": 10},
			plan: map[string]int64{"A": 50, "B": 10}, overflow: map[string]int64{"B": 15},
		},
		{
			name: "small minimums are all served first", total: 50,
			prefs:    map[string]Preference{Wildcard: {MinReplicas: 2}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 2, "B": 2, "C": 2}, unplaced: 44,
		},
		{
			name: "a heavier cluster is served its minimum first", total: 50,
			prefs: map[string]Preference{
				Wildcard: {MinReplicas: 20},
				"A":      {MinReplicas: 100, Weight: 1},
			},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 50, "B": 0, "C": 0},
		},
		{
			name: "maximum alone caps every cluster", total: 50,
			prefs:    map[string]Preference{Wildcard: {Weight: 1, MaxReplicas: ptr(2)}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 2, "B": 2, "C": 2}, unplaced: 44,
		},
		{
			name: "zero weight places nothing beyond minimums", total: 50,
			prefs:    map[string]Preference{Wildcard: {MaxReplicas: ptr(2)}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 0, "B": 0, "C": 0}, unplaced: 50,
		},
		{
			name: "an overwhelming weight takes everything", total: 50,
			prefs:    map[string]Preference{"A": {Weight: 10000}, "B": {Weight: 1}},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 50, "B": 0, "C": 0},
		},
		{
			name: "the lighter cluster takes all when the heavier is not a candidate", total: 50,
			prefs:    map[string]Preference{"A": {Weight: 10000}, "B": {Weight: 1}},
			clusters: []string{"B", "C"},
			plan:     map[string]int64{"B": 50, "C": 0},
		},
		{
			name: "a capped heavy cluster leaves the rest to equal ones", total: 50,
			prefs: map[string]Preference{
				"A": {Weight: 10000, MaxReplicas: ptr(10)},
				"B": {Weight: 1},
				"C": {Weight: 1},
			},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 10, "B": 20, "C": 20},
		},
		{
			name: "two capped clusters leave the rest to the third", total: 50,
			prefs: map[string]Preference{
				"A": {Weight: 10000, MaxReplicas: ptr(10)},
				"B": {Weight: 1},
				"C": {Weight: 1, MaxReplicas: ptr(10)},
			},
			clusters: []string{"A", "B", "C"},
			plan:     map[string]int64{"A": 10, "B": 30, "C": 10},
		},
		{
			name: "weights, maximums and rounding over four clusters", total: 71,
			prefs: map[string]Preference{
				"A": {Weight: 10000, MaxReplicas: ptr(10)},
				"B": {Weight: 1},
				"C": {Weight: 1, MaxReplicas: ptr(21)},
				"D": {Weight: 1, MaxReplicas: ptr(10)},
			},
			clusters: []string{"A", "B", "C", "D"},
			plan:     map[string]int64{"A": 10, "B": 30, "C": 21, "D": 10},
		},
		{
			name: "huge weights do not overflow the share computation", total: 3,
			prefs:    map[string]Preference{"A": {Weight: 1 << 62}, "B": {Weight: 1 << 61}},
			clusters: []string{"A", "B"},
			plan:     map[string]int64{"A": 2, "B": 1},
		},
		{
			name: "candidates without any preference entry are listed with zero", total: 5,
			prefs:    map[string]Preference{"A": {Weight: 1}},
			clusters: []string{"A", "X", "Y"},
			plan:     map[string]int64{"A": 5, "X": 0, "Y": 0},
		},
	})
}

func TestPlanIgnoresCandidateOrder(t *testing.T) {
	in := Input{
		TotalReplicas: 91,
		Clusters:      []string{"E", "D", "C", "B", "A"},
		Preferences: map[string]Preference{
			"A": {Weight: 10000, MaxReplicas: ptr(10)},
			"B": {Weight: 1},
			"C": {Weight: 1, MaxReplicas: ptr(21)},
			"D": {Weight: 1, MaxReplicas: ptr(10)},
			"E": {Weight: 1},
		},
	}
	got, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"A": 10, "B": 25, "C": 21, "D": 10, "E": 25}
	if !maps.Equal(got.Plan, want) {
		t.Fatalf("plan = %v, want %v", got.Plan, want)
	}
}

func TestRankUsesFNV1NotFNV1a(t *testing.T) {
	// FNV-1 of "A" is 0x050c5d5e and of "B" 0x050c5d5d, so B ranks first;
	// FNV-1a (0xc40bf6cc and 0xc70bfb85) would rank A first.
	ranked := rank(Input{Clusters: []string{"A", "B"}})
	if ranked[0].name != "B" || ranked[0].hash != 0x050c5d5d || ranked[1].hash != 0x050c5d5e {
		t.Fatalf("ranked = %+v", ranked)
	}
	// With key "ns/name" the order flips under FNV-1 and not under FNV-1a.
	ranked = rank(Input{Clusters: []string{"A", "B"}, Key: "ns/name"})
	if ranked[0].name != "A" {
		t.Fatalf("with key ns/name ranked = %+v", ranked)
	}
}
