package scheduling

import "math/bits"

// planKubeFed follows KubeFed's planner step for step; the golden tests pin
// its results. It returns the planned count of each ranked cluster (by
// index) and the replicas left unplaced, and fills overflow.
func planKubeFed(in Input, ranked []candidate, overflow map[string]int64) ([]int64, int64) {
	planned := make([]int64, len(ranked))
	remaining := serveMinimums(in.TotalReplicas, ranked, planned)

	// Without rebalance, replicas a cluster already runs above its minimum
	// are reserved for it up front. The reservation is then consumed by the
	// cluster's own weighted shares before it takes anything new, so a
	// cluster that runs more than its share keeps it, while one that runs
	// less still grows towards its share.
	preallocated := make([]int64, len(ranked))
	if !in.Rebalance {
		for i := range ranked {
			c := &ranked[i]
			current, ok := in.Current[c.name]
			if !ok || current <= planned[i] {
				continue
			}
			target := min(current, c.limit())
			extra := max(0, min(target-planned[i], remaining))
			remaining -= extra
			preallocated[i] = extra
			planned[i] += extra
		}
	}

	active := make([]int, len(ranked))
	for i := range active {
		active[i] = i
	}
	// Each pass hands out ceil(D*w/W) per cluster; rounding up can exhaust
	// the remainder before the last clusters are served, and maximums and
	// capacities remove clusters, so passes repeat until nothing moves.
	for changed := true; changed && remaining > 0; {
		changed = false
		var weights uint64
		for _, i := range active {
			weights += uint64(ranked[i].pref.Weight)
		}
		if weights == 0 {
			break
		}
		distributable := remaining
		next := active[:0]
		for _, i := range active {
			c := &ranked[i]
			start := planned[i]
			extra := min(ceilShare(distributable, c.pref.Weight, weights), remaining)

			fromReserve := min(extra, preallocated[i])
			preallocated[i] -= fromReserve
			extra -= fromReserve
			if fromReserve > 0 {
				changed = true
			}

			total := start + extra
			full := false
			if c.pref.MaxReplicas != nil && total > *c.pref.MaxReplicas {
				total = *c.pref.MaxReplicas
				full = true
			}
			if c.hasCap && total > c.capacity {
				overflow[c.name] = total - c.capacity
				total = c.capacity
				full = true
			}
			if !full {
				next = append(next, i)
			}
			remaining -= total - start
			planned[i] = total
			if total > start {
				changed = true
			}
		}
		active = next
	}

	// Without rebalance, overflow beyond what is still unplaced would push
	// more replicas than the total into the federation.
	if !in.Rebalance {
		for name, n := range overflow {
			if n = min(n, remaining); n > 0 {
				overflow[name] = n
			} else {
				delete(overflow, name)
			}
		}
	}
	return planned, remaining
}

// ceilShare returns ceil(d*w/sum) for 0 <= w <= sum, sum > 0, computed in
// 128 bits because d*w overflows 64 bits for large weights.
func ceilShare(d, w int64, sum uint64) int64 {
	hi, lo := bits.Mul64(uint64(d), uint64(w))
	q, r := bits.Div64(hi, lo, sum)
	if r > 0 {
		q++
	}
	return int64(q)
}
