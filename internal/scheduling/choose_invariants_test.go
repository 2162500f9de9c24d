package scheduling

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

var regions = []string{"us", "eu", "ap", "sa"}

// checkChoosingInvariants asserts what must hold, on top of
// checkInvariants, when MaxClusters, Spread or WeightBy are set.
func checkChoosingInvariants(t *testing.T, in Input, res Result) {
	t.Helper()
	checkInvariants(t, in, res)
	ranked := rank(in)
	var chosen []candidate
	for _, c := range ranked {
		if _, out := res.Excluded[c.name]; !out {
			chosen = append(chosen, c)
		}
	}
	if len(ranked)-len(chosen) != len(res.Excluded) {
		t.Fatalf("excluded %v names clusters that are not candidates with a preference", res.Excluded)
	}
	for name, reason := range res.Excluded {
		if reason == "" {
			t.Fatalf("excluded[%s] gives no reason", name)
		}
	}
	placed := 0
	for _, n := range res.Replicas {
		if n > 0 {
			placed++
		}
	}
	if in.MaxClusters > 0 && placed > in.MaxClusters {
		t.Fatalf("%d clusters receive replicas, more than max_clusters = %d: %v", placed, in.MaxClusters, res.Replicas)
	}
	checkCapacityHolds(t, in, res, chosen)
	if in.Spread.ByLabel != "" {
		checkSpreadHolds(t, in, res, chosen)
	}
	shuffled := in
	shuffled.Clusters = slices.Clone(in.Clusters)
	rand.New(rand.NewPCG(uint64(len(in.Clusters)), 7)).Shuffle(len(shuffled.Clusters), func(i, j int) {
		shuffled.Clusters[i], shuffled.Clusters[j] = shuffled.Clusters[j], shuffled.Clusters[i]
	})
	if again, err := Plan(shuffled); err != nil || !sameResult(res, again) {
		t.Fatalf("shuffled candidates changed the result: %+v then %+v (%v)", res, again, err)
	}
}

// checkCapacityHolds: when the chosen clusters that take weighted replicas
// have room for the total, nothing is unplaced, and without rebalance no
// cluster receives more than its capacity (no overflow).
func checkCapacityHolds(t *testing.T, in Input, res Result, chosen []candidate) {
	t.Helper()
	var room int64
	for _, c := range chosen {
		if c.pref.Weight > 0 {
			room = saturatingAdd(room, c.limit())
		}
	}
	if room < in.TotalReplicas {
		return
	}
	if res.Unplaced != 0 {
		t.Fatalf("%d unplaced although the chosen clusters have room for %d: %+v", res.Unplaced, room, res)
	}
	for _, c := range chosen {
		if !in.Rebalance && c.hasCap && res.Replicas[c.name] > c.capacity {
			t.Fatalf("%s receives %d, more than its capacity %d, although the total fits", c.name, res.Replicas[c.name], c.capacity)
		}
	}
}

// checkSpreadHolds: chosen clusters are labelled, the replicas reach at
// most MaxGroups groups, and at least MinGroups whenever that is feasible:
// enough groups that can take replicas, and a total that covers the
// minimums plus one replica per required group.
func checkSpreadHolds(t *testing.T, in Input, res Result, chosen []candidate) {
	t.Helper()
	reached, taking := map[string]bool{}, map[string]bool{}
	var need int64
	for _, c := range chosen {
		value, ok := in.ClusterLabels[c.name][in.Spread.ByLabel]
		if !ok {
			t.Fatalf("%s has no %q label but was not excluded", c.name, in.Spread.ByLabel)
		}
		if res.Plan[c.name] > 0 {
			reached[value] = true
		}
		if live(&c) {
			taking[value] = true
		}
		need += min(c.pref.MinReplicas, c.limit())
	}
	if in.Spread.MaxGroups > 0 && len(reached) > in.Spread.MaxGroups {
		t.Fatalf("replicas reach %d groups, more than max_groups = %d: %v", len(reached), in.Spread.MaxGroups, res.Plan)
	}
	need += int64(in.Spread.MinGroups)
	if len(taking) >= in.Spread.MinGroups && in.TotalReplicas >= need && len(reached) < in.Spread.MinGroups {
		t.Fatalf("replicas reach %d groups, fewer than min_groups = %d, although %d groups can take them and the total %d covers %d: %v",
			len(reached), in.Spread.MinGroups, len(taking), in.TotalReplicas, need, res.Plan)
	}
	if len(reached) < in.Spread.MinGroups && in.TotalReplicas > 0 && len(res.Warnings) == 0 {
		t.Fatalf("replicas reach %d groups, fewer than min_groups = %d, without a warning", len(reached), in.Spread.MinGroups)
	}
}

// withChoosing adds random choosing options and region labels to an input.
func withChoosing(r *rand.Rand, in Input) Input {
	in.MaxClusters = r.IntN(5)
	if r.IntN(2) == 0 {
		in.WeightBy = AvailableCapacity
	}
	in.ClusterLabels = map[string]map[string]string{}
	for _, name := range in.Clusters {
		if r.IntN(6) > 0 {
			in.ClusterLabels[name] = map[string]string{"region": regions[r.IntN(len(regions))]}
		}
	}
	if r.IntN(3) > 0 {
		in.Spread = Spread{ByLabel: "region", MinGroups: r.IntN(4)}
		if r.IntN(2) == 0 {
			in.Spread.MaxGroups = in.Spread.MinGroups + r.IntN(3)
		}
		if in.MaxClusters > 0 {
			in.MaxClusters = max(in.MaxClusters, in.Spread.MinGroups)
		}
	}
	return in
}

func TestPlanChoosingInvariantsOnRandomInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 5000 {
		for _, s := range Strategies {
			in := withChoosing(r, randomInput(r, s))
			res, err := Plan(in)
			var ie *InputError
			if errors.As(err, &ie) && ie.Field == FieldSpread && ie.Key == "by_label" {
				continue // no candidate carries the label
			}
			if err != nil {
				t.Fatalf("Plan(%+v): %v", in, err)
			}
			checkChoosingInvariants(t, in, res)
		}
	}
}

// FuzzPlanChoosing decodes clusters as FuzzPlan does, with a sixth byte per
// cluster for its region (255: no label), and the choosing options from the
// other arguments. Rejected inputs must be *InputErrors; the others must
// satisfy checkChoosingInvariants.
func FuzzPlanChoosing(f *testing.F) {
	f.Add(uint16(12), []byte{255, 0, 0, 0, 0, 0, 0, 255, 1, 255, 12, 0, 0, 255, 1, 255, 12, 1, 0, 255, 1, 255, 2, 2},
		uint8(2), uint8(2), uint8(3), true, false, true, false, "ns/web")
	f.Add(uint16(2), []byte{255, 0, 0, 0, 0, 0, 0, 255, 100, 255, 255, 0, 0, 255, 1, 255, 255, 1, 0, 255, 1, 255, 255, 2},
		uint8(0), uint8(2), uint8(0), true, false, true, false, "")
	f.Add(uint16(30), []byte{255, 0, 0, 0, 0, 0, 2, 255, 1, 4, 5, 0, 0, 255, 1, 255, 9, 0, 1, 20, 1, 255, 255, 255},
		uint8(2), uint8(0), uint8(0), false, true, false, true, "k")
	f.Fuzz(func(t *testing.T, total uint16, spec []byte, maxClusters, minGroups, maxGroups uint8,
		spread, byCapacity, rebalance, balanced bool, key string) {
		in := Input{
			TotalReplicas: int64(total), Preferences: map[string]Preference{}, Current: map[string]int64{},
			Capacity: map[string]int64{}, ClusterLabels: map[string]map[string]string{},
			Rebalance: rebalance, Key: key, MaxClusters: int(maxClusters % 8),
		}
		if balanced {
			in.Strategy = Balanced
		}
		if byCapacity {
			in.WeightBy = AvailableCapacity
		}
		if spread {
			in.Spread = Spread{ByLabel: "region", MinGroups: int(minGroups % 6), MaxGroups: int(maxGroups % 6)}
		}
		for i := 0; i+6 <= len(spec) && i < 6*65; i += 6 {
			decodeCluster(&in, i/6, spec[i:i+6])
		}
		res, err := Plan(in)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Plan error %v is not an *InputError", err)
			}
			return
		}
		checkChoosingInvariants(t, in, res)
	})
}

// decodeCluster reads one cluster of the fuzzers, five bytes (FuzzPlan) or
// six with the region (FuzzPlanChoosing); index 0 is the wildcard
// preference.
func decodeCluster(in *Input, index int, b []byte) {
	p := Preference{MinReplicas: int64(b[0]), Weight: int64(b[2])}
	if b[1] != 255 {
		p.MaxReplicas = ptr(int64(b[1]))
	}
	if index == 0 {
		if b[0] != 255 {
			in.Preferences[Wildcard] = p
		}
		return
	}
	name := "c" + strconv.Itoa(index)
	in.Clusters = append(in.Clusters, name)
	if b[0] != 255 {
		in.Preferences[name] = p
	}
	if b[3] != 255 {
		in.Current[name] = int64(b[3])
	}
	if b[4] != 255 {
		in.Capacity[name] = int64(b[4])
	}
	if len(b) > 5 && b[5] != 255 {
		in.ClusterLabels[name] = map[string]string{"region": regions[int(b[5])%len(regions)]}
	}
}
