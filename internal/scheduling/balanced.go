package scheduling

import (
	"container/heap"
	"math/bits"
)

// planBalanced serves minimums like KubeFed, then divides the rest among the
// clusters of positive weight with the Webster method. A cluster whose seats
// would exceed its maximum or capacity is filled to that limit and leaves;
// what it could not take is divided again among the others.
func planBalanced(total int64, ranked []candidate) ([]int64, int64) {
	planned := make([]int64, len(ranked))
	remaining := serveMinimums(total, ranked, planned)

	var active []int
	for i := range ranked {
		if ranked[i].pref.Weight > 0 && ranked[i].limit() > planned[i] {
			active = append(active, i)
		}
	}
	for remaining > 0 && len(active) > 0 {
		weights := make([]uint64, len(active))
		for k, i := range active {
			weights[k] = uint64(ranked[i].pref.Weight)
		}
		seats := webster(remaining, weights)

		capped := false
		for k, i := range active {
			if seats[k] > ranked[i].limit()-planned[i] {
				capped = true
				break
			}
		}
		if !capped {
			for k, i := range active {
				planned[i] += seats[k]
			}
			return planned, 0
		}
		next := active[:0]
		for k, i := range active {
			if room := ranked[i].limit() - planned[i]; seats[k] > room {
				planned[i] += room
				remaining -= room
			} else {
				next = append(next, i)
			}
		}
		active = next
	}
	return planned, remaining
}

// webster allocates n seats to parties with the given positive weights, in
// priority order, by the Webster/Sainte-Laguë highest-averages method: seat
// after seat goes to the party with the highest weight/(2s+1), s being the
// seats it holds, ties going to the earlier party.
//
// Handing out seats one by one costs O(n log parties), too slow for millions
// of replicas, so the allocation is computed from a threshold instead. The
// seats whose average exceeds sum/(2n) always form a prefix of the one-by-one
// order, and that prefix is within one seat per party of n; the few seats
// missing or in excess are then added or removed in exact order with a heap.
func webster(n int64, weights []uint64) []int64 {
	var sum uint64
	for _, w := range weights {
		sum += w
	}
	seats := make([]int64, len(weights))
	if n == 0 {
		return seats
	}
	var given int64
	for k, w := range weights {
		// Seats whose average w/(2s+1) exceeds sum/(2n) are those with
		// (2s+1)*sum < 2n*w: the odd numbers below 2n*w/sum.
		hi, lo := bits.Mul64(uint64(2*n), w)
		lo, borrow := bits.Sub64(lo, 1, 0)
		hi -= borrow
		below, _ := bits.Div64(hi, lo, sum)
		seats[k] = int64((below + 1) / 2)
		given += seats[k]
	}

	h := &seatHeap{weights: weights, seats: seats, adding: given < n}
	for k := range weights {
		if h.adding || seats[k] > 0 {
			h.parties = append(h.parties, k)
		}
	}
	heap.Init(h)
	for ; given < n; given++ {
		seats[h.parties[0]]++
		heap.Fix(h, 0)
	}
	for ; given > n; given-- {
		k := h.parties[0]
		seats[k]--
		if seats[k] == 0 {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return seats
}

// seatHeap orders parties by the next seat they would win (when adding) or
// the last seat they won (when removing), so that its top is the next seat
// to hand out or to take back.
type seatHeap struct {
	weights []uint64
	seats   []int64
	parties []int
	adding  bool
}

func (h *seatHeap) Len() int      { return len(h.parties) }
func (h *seatHeap) Swap(i, j int) { h.parties[i], h.parties[j] = h.parties[j], h.parties[i] }
func (h *seatHeap) Push(x any)    { h.parties = append(h.parties, x.(int)) }
func (h *seatHeap) Pop() any {
	last := h.parties[len(h.parties)-1]
	h.parties = h.parties[:len(h.parties)-1]
	return last
}

func (h *seatHeap) Less(i, j int) bool {
	a, b := h.parties[i], h.parties[j]
	if h.adding {
		return precedes(h.weights[a], h.seats[a], a, h.weights[b], h.seats[b], b)
	}
	return precedes(h.weights[b], h.seats[b]-1, b, h.weights[a], h.seats[a]-1, a)
}

// precedes reports whether seat number sa of party a comes before seat
// number sb of party b: a higher average wa/(2sa+1) first, the earlier party
// on a tie. The averages are compared by cross-multiplying in 128 bits.
func precedes(wa uint64, sa int64, a int, wb uint64, sb int64, b int) bool {
	lh, ll := bits.Mul64(wa, uint64(2*sb+1))
	rh, rl := bits.Mul64(wb, uint64(2*sa+1))
	if lh != rh {
		return lh > rh
	}
	if ll != rl {
		return ll > rl
	}
	return a < b
}
