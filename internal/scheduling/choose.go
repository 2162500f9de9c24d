package scheduling

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// selection is the part of the candidates that takes part in the split.
type selection struct {
	// chosen keeps rank order, the order the strategies serve in.
	chosen   []candidate
	excluded map[string]string
	// spread is set when a spread was asked for.
	spread *spreadPlan
}

// choose applies MaxClusters and Spread. Without either, every ranked
// candidate takes part and the split is exactly the strategy's.
func choose(in Input, ranked []candidate) (selection, error) {
	sel := selection{chosen: ranked, excluded: map[string]string{}}
	if in.MaxClusters == 0 && in.Spread.ByLabel == "" {
		return sel, nil
	}
	order := selectionOrder(in, ranked)
	picked := make([]bool, len(ranked))
	if in.Spread.ByLabel == "" {
		fill(in.MaxClusters, order, picked)
	} else {
		sp, err := chooseGroups(in, ranked, order, picked, sel.excluded)
		if err != nil {
			return sel, err
		}
		sel.spread = sp
	}
	notKept := fmt.Sprintf("max_clusters = %d keeps the clusters ranked first (by weight, room and name hash)", in.MaxClusters)
	sel.chosen = make([]candidate, 0, min(len(ranked), max(in.MaxClusters, 1)))
	for i, c := range ranked {
		switch {
		case picked[i]:
			sel.chosen = append(sel.chosen, c)
		case sel.excluded[c.name] == "":
			sel.excluded[c.name] = notKept
		}
	}
	return sel, nil
}

// fill picks, in order, clusters not picked yet until limit are picked
// (every one when limit is 0).
func fill(limit int, order []int, picked []bool) {
	n := 0
	for _, i := range order {
		if picked[i] {
			n++
		}
	}
	for _, i := range order {
		if limit > 0 && n >= limit {
			return
		}
		if !picked[i] {
			picked[i] = true
			n++
		}
	}
}

// standing is what decides which clusters (or spread groups) are chosen
// first: those that can take replicas at all (room, and a weight or a
// minimum), then, when running replicas must stay (KubeFed without
// rebalance), those that run some, then weight, then room, then the
// Key-seeded hash and the name.
type standing struct {
	live, running bool
	weight, room  int64
	hash          uint32
	name          string
}

func compareStanding(a, b *standing) int {
	if a.live != b.live {
		return boolFirst(a.live)
	}
	if a.running != b.running {
		return boolFirst(a.running)
	}
	if c := cmp.Compare(b.weight, a.weight); c != 0 {
		return c
	}
	if c := cmp.Compare(b.room, a.room); c != 0 {
		return c
	}
	if c := cmp.Compare(a.hash, b.hash); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}

func boolFirst(a bool) int {
	if a {
		return -1
	}
	return 1
}

// keepsRunning reports whether the split keeps replicas where they run, so
// that choosing clusters must prefer those that run some: otherwise a small
// change of capacity would move every replica of a cluster.
func keepsRunning(in Input) bool {
	return !in.Rebalance && in.Strategy != Balanced
}

// live reports whether the cluster can take replicas at all: it has room,
// and a weight or a minimum.
func live(c *candidate) bool {
	return c.limit() > 0 && (c.pref.Weight > 0 || c.pref.MinReplicas > 0)
}

func standingOf(in Input, c *candidate) standing {
	return standing{
		live:    live(c),
		running: keepsRunning(in) && in.Current[c.name] > 0,
		weight:  c.pref.Weight,
		room:    c.limit(),
		hash:    c.hash,
		name:    c.name,
	}
}

// selectionOrder returns the indexes of ranked in the order clusters are
// chosen.
func selectionOrder(in Input, ranked []candidate) []int {
	standings := make([]standing, len(ranked))
	order := make([]int, len(ranked))
	for i := range ranked {
		standings[i] = standingOf(in, &ranked[i])
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return compareStanding(&standings[a], &standings[b]) })
	return order
}

func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
