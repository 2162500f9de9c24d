package scheduling

import "math/bits"

// planKubeFed follows KubeFed's planner step for step; the golden tests pin
// its results. It returns the planned count of each ranked cluster (by
// index) and the replicas left unplaced, and fills overflow.
func planKubeFed(in Input, ranked []candidate, overflow map[string]int64) ([]int64, int64) {
	planned := make([]int64, len(ranked))
	remaining := serveMinimums(in.TotalReplicas, ranked, planned)
	reserved := make([]int64, len(ranked))
	if !in.Rebalance {
		remaining = reserveCurrent(in.Current, ranked, planned, reserved, remaining)
	}
	remaining = distributeByWeight(ranked, planned, reserved, overflow, remaining)
	if !in.Rebalance {
		// Overflow beyond what is still unplaced would push more replicas
		// than the total into the federation.
		trimOverflow(overflow, remaining)
	}
	return planned, remaining
}

// reserveCurrent is the step without rebalance: replicas a cluster already
// runs above its minimum are reserved for it up front, out of remaining,
// and it returns what is left. The reservation is then consumed by the
// cluster's own weighted shares before it takes anything new, so a cluster
// that runs more than its share keeps it, while one that runs less still
// grows towards its share.
func reserveCurrent(current map[string]int64, ranked []candidate, planned, reserved []int64, remaining int64) int64 {
	for i := range ranked {
		c := &ranked[i]
		running, ok := current[c.name]
		if !ok || running <= planned[i] {
			continue
		}
		target := min(running, c.limit())
		extra := max(0, min(target-planned[i], remaining))
		remaining -= extra
		reserved[i] = extra
		planned[i] += extra
	}
	return remaining
}

// distributeByWeight hands remaining out by weight and returns what is
// left. Each pass hands out ceil(D*w/W) per cluster; rounding up can
// exhaust the remainder before the last clusters are served, and maximums
// and capacities remove clusters, so passes repeat until nothing moves.
func distributeByWeight(ranked []candidate, planned, reserved []int64, overflow map[string]int64, remaining int64) int64 {
	active := make([]int, len(ranked))
	for i := range active {
		active[i] = i
	}
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
			share := min(ceilShare(distributable, ranked[i].pref.Weight, weights), remaining)
			taken, moved, full := grant(&ranked[i], share, &planned[i], &reserved[i], overflow)
			remaining -= taken
			changed = changed || moved
			if !full {
				next = append(next, i)
			}
		}
		active = next
	}
	return remaining
}

// grant gives a cluster its share of a pass: first out of what is reserved
// for it, then new replicas up to its maximum and its capacity, recording
// what exceeds the capacity as overflow. It returns how many new replicas
// the cluster took (negative when its maximum is below what it had),
// whether anything moved, and whether the cluster is full.
func grant(c *candidate, share int64, planned, reserved *int64, overflow map[string]int64) (taken int64, moved, full bool) {
	fromReserve := min(share, *reserved)
	*reserved -= fromReserve
	start := *planned
	total := start + share - fromReserve
	if c.pref.MaxReplicas != nil && total > *c.pref.MaxReplicas {
		total = *c.pref.MaxReplicas
		full = true
	}
	if c.hasCap && total > c.capacity {
		overflow[c.name] = total - c.capacity
		total = c.capacity
		full = true
	}
	*planned = total
	return total - start, fromReserve > 0 || total > start, full
}

// trimOverflow keeps each cluster's overflow within remaining, and drops
// the clusters left with none.
func trimOverflow(overflow map[string]int64, remaining int64) {
	for name, n := range overflow {
		if n = min(n, remaining); n > 0 {
			overflow[name] = n
		} else {
			delete(overflow, name)
		}
	}
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
