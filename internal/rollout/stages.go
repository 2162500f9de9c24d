package rollout

import (
	"fmt"
	"slices"
	"strings"
)

// Wildcard, in a stage, stands for every placed cluster no stage names.
const Wildcard = "*"

// StageError is an entry of a rollout's stages that cannot be planned.
type StageError struct {
	// Stage is the index of the stage, Entry that of the name in it, or -1
	// when the error is about the whole stage.
	Stage, Entry int
	Message      string
}

func (e StageError) Error() string { return e.Message }

// StageErrors are all the errors of a rollout's stages.
type StageErrors []StageError

func (errs StageErrors) Error() string {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Message
	}
	return strings.Join(msgs, "; ")
}

// ValidateStages returns what is wrong with stages, in order: an empty
// stage or name, a cluster named twice, Wildcard more than once.
func ValidateStages(stages [][]string) []StageError {
	var errs []StageError
	seen := map[string]int{}
	wildcard := -1
	for i, stage := range stages {
		if len(stage) == 0 {
			errs = append(errs, StageError{Stage: i, Entry: -1, Message: fmt.Sprintf(
				"stages[%d] is empty: name at least one cluster in it, or %q for the clusters no stage names", i, Wildcard)})
		}
		for j, name := range stage {
			var msg string
			switch k, dup := seen[name]; {
			case strings.TrimSpace(name) == "":
				msg = fmt.Sprintf("stages[%d] has an empty name: write a cluster's name, or %q for the clusters no stage names", i, Wildcard)
			case name == Wildcard && wildcard >= 0:
				msg = fmt.Sprintf("%q is in stages[%d] already: it stands for every cluster no stage names, so it appears once", Wildcard, wildcard)
			case name == Wildcard:
				wildcard = i
			case dup:
				msg = fmt.Sprintf("cluster %q is in stages[%d] already: a cluster is updated once, so name it in one stage", name, k)
			default:
				seen[name] = i
			}
			if msg != "" {
				errs = append(errs, StageError{Stage: i, Entry: j, Message: msg})
			}
		}
	}
	return errs
}

// Order is the order in which a rollout updates the placed clusters.
type Order struct {
	// Stages are updated one after the other, the clusters of a stage
	// together, each sorted by name.
	Stages [][]string
	// Unknown are the names stages give that are not placed clusters,
	// sorted: they are left out, and worth a warning (a typo, or a
	// cluster the placement leaves out).
	Unknown []string
	// Unstaged are the placed clusters no stage names when no stage says
	// Wildcard, sorted: they are updated in a stage of their own, after
	// the others, and worth a warning too.
	Unstaged []string
}

// Plan orders the update of clusters, the clusters an object is placed
// on: by stages, a Wildcard standing for the clusters no stage names, and
// in chunks of at most maxConcurrent clusters (no limit when 0 or less),
// sorted by name. Without stages every cluster is in one stage. Stages
// left with no placed cluster are dropped. The error, from ValidateStages,
// is a StageErrors.
func Plan(clusters []string, stages [][]string, maxConcurrent int) (Order, error) {
	if errs := ValidateStages(stages); len(errs) > 0 {
		return Order{}, StageErrors(errs)
	}
	placed := map[string]bool{}
	for _, c := range clusters {
		placed[c] = true
	}
	var order Order
	named := map[string]bool{}
	hasWildcard := false
	for _, name := range slices.Concat(stages...) {
		named[name] = true
		hasWildcard = hasWildcard || name == Wildcard
		if name != Wildcard && !placed[name] {
			order.Unknown = append(order.Unknown, name)
		}
	}
	var rest []string
	for c := range placed {
		if !named[c] {
			rest = append(rest, c)
		}
	}
	slices.Sort(rest)
	groups := make([][]string, 0, len(stages)+1)
	for _, stage := range stages {
		var group []string
		for _, name := range stage {
			switch {
			case name == Wildcard:
				group = append(group, rest...)
			case placed[name]:
				group = append(group, name)
			}
		}
		groups = append(groups, group)
	}
	if !hasWildcard && len(rest) > 0 {
		if len(stages) > 0 {
			order.Unstaged = slices.Clone(rest)
		}
		groups = append(groups, rest)
	}
	slices.Sort(order.Unknown)
	order.Stages = chunks(groups, maxConcurrent)
	return order, nil
}

// chunks sorts each group and splits it into chunks of at most n, leaving
// out empty groups.
func chunks(groups [][]string, n int) [][]string {
	var out [][]string
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		slices.Sort(g)
		size := len(g)
		if n > 0 {
			size = n
		}
		for chunk := range slices.Chunk(g, size) {
			out = append(out, chunk)
		}
	}
	return out
}

// Continue decides, after a stage, whether the rollout goes on: results
// says for every cluster updated so far, in this stage and the ones
// before, whether it passed its wait, so that maxFailed bounds the whole
// rollout rather than each stage. failed is the clusters that did not
// pass, sorted.
func Continue(results map[string]bool, maxFailed int) (ok bool, failed []string) {
	for cluster, passed := range results {
		if !passed {
			failed = append(failed, cluster)
		}
	}
	slices.Sort(failed)
	return len(failed) <= max(maxFailed, 0), failed
}
