package scheduling

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// checkInvariants asserts what must hold for every valid input, whatever
// the strategy.
func checkInvariants(t *testing.T, in Input, res Result) {
	t.Helper()
	ranked := rank(in)
	byName := map[string]*candidate{}
	for i := range ranked {
		byName[ranked[i].name] = &ranked[i]
	}

	var sum int64
	for _, name := range in.Clusters {
		n, ok := res.Plan[name]
		if !ok {
			t.Fatalf("candidate %s missing from plan %v", name, res.Plan)
		}
		if n < 0 {
			t.Fatalf("plan[%s] = %d is negative", name, n)
		}
		if res.Replicas[name] != n+res.Overflow[name] {
			t.Fatalf("replicas[%s] = %d, want plan+overflow %d", name, res.Replicas[name], n+res.Overflow[name])
		}
		sum += n
	}
	if len(res.Plan) != len(in.Clusters) || len(res.Replicas) != len(in.Clusters) {
		t.Fatalf("plan has %d and replicas %d entries for %d candidates", len(res.Plan), len(res.Replicas), len(in.Clusters))
	}
	if sum > in.TotalReplicas {
		t.Fatalf("plan %v places %d replicas, more than the total %d", res.Plan, sum, in.TotalReplicas)
	}
	if res.Unplaced != in.TotalReplicas-sum {
		t.Fatalf("unplaced = %d, want total-sum = %d", res.Unplaced, in.TotalReplicas-sum)
	}
	for name, n := range res.Overflow {
		if n <= 0 {
			t.Fatalf("overflow[%s] = %d; only positive entries belong there", name, n)
		}
		if _, ok := res.Plan[name]; !ok {
			t.Fatalf("overflow names %s, which is not a candidate", name)
		}
		if !in.Rebalance && n > res.Unplaced {
			t.Fatalf("without rebalance overflow[%s] = %d exceeds the unplaced %d", name, n, res.Unplaced)
		}
	}
	if in.Strategy == Balanced && len(res.Overflow) > 0 {
		t.Fatalf("balanced reported overflow %v", res.Overflow)
	}

	var minimums int64
	for _, c := range ranked {
		minimums += c.pref.MinReplicas
	}
	for name, n := range res.Plan {
		c, ok := byName[name]
		if _, excluded := res.Excluded[name]; excluded {
			if !ok || n != 0 || res.Replicas[name] != 0 {
				t.Fatalf("excluded cluster %s (a candidate with a preference: %v) is planned %d, receives %d", name, ok, n, res.Replicas[name])
			}
			continue
		}
		if !ok {
			if n != 0 {
				t.Fatalf("cluster %s without preference got %d", name, n)
			}
			continue
		}
		if n > c.limit() {
			t.Fatalf("plan[%s] = %d exceeds its limit %d", name, n, c.limit())
		}
		if c.pref.MaxReplicas != nil && res.Replicas[name] > *c.pref.MaxReplicas {
			t.Fatalf("replicas[%s] = %d exceeds max %d", name, res.Replicas[name], *c.pref.MaxReplicas)
		}
		if minimums <= in.TotalReplicas && n < min(c.pref.MinReplicas, c.limit()) {
			t.Fatalf("plan[%s] = %d is below its minimum %d although the total %d covers all minimums", name, n, c.pref.MinReplicas, in.TotalReplicas)
		}
		if res.Unplaced > 0 && c.pref.Weight > 0 && n < c.limit() {
			t.Fatalf("%d replicas unplaced while %s (weight %d) has room: %d < %d", res.Unplaced, name, c.pref.Weight, n, c.limit())
		}
	}

	again, err := Plan(in)
	if err != nil {
		t.Fatalf("second Plan: %v", err)
	}
	if !sameResult(res, again) {
		t.Fatalf("same input, different results: %+v then %+v", res, again)
	}
	shuffled := in
	shuffled.Clusters = slices.Clone(in.Clusters)
	slices.Reverse(shuffled.Clusters)
	reordered, err := Plan(shuffled)
	if err != nil {
		t.Fatalf("Plan with reversed candidates: %v", err)
	}
	if !sameResult(res, reordered) {
		t.Fatalf("candidate order changed the result: %+v then %+v", res, reordered)
	}
}

func sameResult(a, b Result) bool {
	return maps.Equal(a.Plan, b.Plan) && maps.Equal(a.Overflow, b.Overflow) &&
		maps.Equal(a.Replicas, b.Replicas) && a.Unplaced == b.Unplaced &&
		maps.Equal(a.Excluded, b.Excluded) && slices.Equal(a.Warnings, b.Warnings)
}

// randomInput builds a valid input of a few clusters with a mix of
// preferences, current counts and capacities.
func randomInput(r *rand.Rand, s Strategy) Input {
	n := r.IntN(7)
	in := Input{
		TotalReplicas: int64(r.IntN(120)),
		Preferences:   map[string]Preference{},
		Current:       map[string]int64{},
		Capacity:      map[string]int64{},
		Rebalance:     r.IntN(2) == 0,
		Key:           "ns/w" + strconv.Itoa(r.IntN(5)),
		Strategy:      s,
	}
	pref := func() Preference {
		p := Preference{MinReplicas: int64(r.IntN(4) * r.IntN(8)), Weight: int64(r.IntN(5))}
		if r.IntN(3) == 0 {
			p.MaxReplicas = ptr(p.MinReplicas + int64(r.IntN(30)))
		}
		return p
	}
	if r.IntN(4) > 0 {
		in.Preferences[Wildcard] = pref()
	}
	for i := range n {
		name := string(rune('a' + i))
		in.Clusters = append(in.Clusters, name)
		if r.IntN(2) == 0 {
			in.Preferences[name] = pref()
		}
		if r.IntN(3) == 0 {
			in.Current[name] = int64(r.IntN(60))
		}
		if r.IntN(3) == 0 {
			in.Capacity[name] = int64(r.IntN(40))
		}
	}
	return in
}

func TestPlanInvariantsOnRandomInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		for _, s := range Strategies {
			in := randomInput(r, s)
			res, err := Plan(in)
			if err != nil {
				t.Fatalf("Plan(%+v): %v", in, err)
			}
			checkInvariants(t, in, res)
		}
	}
}
