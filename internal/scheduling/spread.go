package scheduling

import (
	"fmt"
	"slices"
	"strings"
)

// spreadGroup is the candidates that share one value of the spread label,
// in selection order. The standing's name is that value.
type spreadGroup struct {
	members []int // indexes into the ranked candidates
	standing
}

// spreadPlan is what the split needs to know of the chosen groups.
type spreadPlan struct {
	spread Spread
	// groups are the chosen groups, best first, with the names of their
	// chosen clusters in selection order; live counts the groups offered
	// that can take replicas.
	groups  []spreadGroup
	names   [][]string
	live    int
	groupOf map[string]int
}

// chooseGroups picks the groups and, within them, the clusters: the best
// cluster of every chosen group that can take replicas first, so that each
// is represented, then the others in selection order up to MaxClusters.
func chooseGroups(in Input, ranked []candidate, order []int, picked []bool, excluded map[string]string) (*spreadPlan, error) {
	groups, err := groupCandidates(in, ranked, order, excluded)
	if err != nil {
		return nil, err
	}
	k := len(groups)
	if in.Spread.MaxGroups > 0 {
		k = min(k, in.Spread.MaxGroups)
	}
	if in.MaxClusters > 0 {
		k = min(k, in.MaxClusters)
	}
	sp := &spreadPlan{spread: in.Spread, groups: groups[:k], groupOf: map[string]int{}}
	for _, g := range groups {
		if g.live {
			sp.live++
		}
	}
	chosenValues := strings.Join(sp.values(false), ", ")
	for _, g := range groups[k:] {
		reason := fmt.Sprintf("%s=%s ranks below the %d %s chosen (%s)",
			in.Spread.ByLabel, g.name, k, plural(k, "group", "groups"), chosenValues)
		for _, i := range g.members {
			excluded[ranked[i].name] = reason
		}
	}
	inChosen := make([]bool, len(ranked))
	for gi, g := range sp.groups {
		if g.live && in.MaxClusters > 0 {
			picked[g.members[0]] = true
		}
		for _, i := range g.members {
			inChosen[i] = true
			sp.groupOf[ranked[i].name] = gi
		}
	}
	pool := slices.DeleteFunc(slices.Clone(order), func(i int) bool { return !inChosen[i] })
	fill(in.MaxClusters, pool, picked)
	sp.names = make([][]string, k)
	for _, i := range pool {
		if picked[i] {
			gi := sp.groupOf[ranked[i].name]
			sp.names[gi] = append(sp.names[gi], ranked[i].name)
		}
	}
	return sp, nil
}

// groupCandidates sorts the labelled candidates into groups, best group
// first, and excludes the unlabelled ones. No labelled candidate at all is
// an error rather than a split that places nothing: it is almost always a
// misspelt label, and an apply would scale the workload to zero.
func groupCandidates(in Input, ranked []candidate, order []int, excluded map[string]string) ([]spreadGroup, error) {
	label := in.Spread.ByLabel
	unlabelled := fmt.Sprintf("no %q label, and the spread places replicas only on clusters that have one", label)
	index := map[string]int{}
	var groups []spreadGroup
	for _, i := range order {
		c := &ranked[i]
		value, ok := in.ClusterLabels[c.name][label]
		if !ok {
			excluded[c.name] = unlabelled
			continue
		}
		gi, seen := index[value]
		if !seen {
			gi = len(groups)
			index[value] = gi
			groups = append(groups, spreadGroup{standing: standing{hash: tieHash(value, in.Key), name: value}})
		}
		g := &groups[gi]
		g.members = append(g.members, i)
		s := standingOf(in, c)
		g.live = g.live || s.live
		g.running = g.running || s.running
		g.weight = saturatingAdd(g.weight, s.weight)
		g.room = saturatingAdd(g.room, s.room)
	}
	if len(groups) == 0 && len(ranked) > 0 {
		return nil, &InputError{Field: FieldSpread, Key: "by_label", Reason: fmt.Sprintf(
			"no candidate cluster has the label %q (candidates: %s); label the clusters or correct by_label",
			label, someNames(ranked))}
	}
	slices.SortFunc(groups, func(a, b spreadGroup) int { return compareStanding(&a.standing, &b.standing) })
	return groups, nil
}

// meet makes the split reach Spread.MinGroups groups where it can. When the
// strategy's own split leaves some of the first MinGroups live groups empty,
// the best cluster of each of them is given a minimum of one replica and the
// split is made again; it is kept when it reaches more groups. What cannot be
// met is said in a warning.
func (sp *spreadPlan) meet(in Input, chosen []candidate, out outcome) (outcome, []string) {
	want := min(sp.spread.MinGroups, sp.live)
	if reached := sp.reached(chosen, out.planned); reached < want && in.TotalReplicas > 0 {
		seeded := sp.seed(in.TotalReplicas, chosen, want)
		if again := split(in, seeded); sp.reached(chosen, again.planned) > reached {
			out = again
		}
	}
	return out, sp.warnings(in, chosen, out.planned)
}

// seed returns the chosen candidates with a minimum of at least one replica
// on the best live cluster of each of the first want live groups. Minimums
// the preferences ask for come first: a seed that raises a minimum from 0
// is only given while the total has replicas to spare after all of them.
func (sp *spreadPlan) seed(total int64, chosen []candidate, want int) []candidate {
	seeded := slices.Clone(chosen)
	at := make(map[string]int, len(seeded))
	spare := total
	for i, c := range seeded {
		at[c.name] = i
		spare -= min(c.pref.MinReplicas, c.limit())
	}
	for gi := range sp.groups {
		if want == 0 {
			break
		}
		for _, name := range sp.names[gi] {
			c := &seeded[at[name]]
			if !live(c) {
				continue
			}
			if c.pref.MinReplicas == 0 && spare > 0 {
				c.pref.MinReplicas = 1
				spare--
			}
			want--
			break
		}
	}
	return seeded
}

// reached counts the chosen groups that receive replicas.
func (sp *spreadPlan) reached(chosen []candidate, planned []int64) int {
	has := make([]bool, len(sp.groups))
	n := 0
	for i, c := range chosen {
		if gi := sp.groupOf[c.name]; planned[i] > 0 && !has[gi] {
			has[gi] = true
			n++
		}
	}
	return n
}

func (sp *spreadPlan) warnings(in Input, chosen []candidate, planned []int64) []string {
	label, minimum := sp.spread.ByLabel, sp.spread.MinGroups
	if sp.live < minimum {
		if sp.live == 0 {
			return []string{fmt.Sprintf("The spread by %q asks for at least %d groups, but no candidate cluster "+
				"that has the label can take replicas.", label, minimum)}
		}
		return []string{fmt.Sprintf("The spread by %q asks for at least %d groups, but the candidate clusters that can take "+
			"replicas span only %d (%s): the split uses those.", label, minimum, sp.live, strings.Join(sp.values(true), ", "))}
	}
	if reached := sp.reached(chosen, planned); reached < minimum && in.TotalReplicas > 0 {
		return []string{fmt.Sprintf("The spread by %q asks for at least %d groups, but the %d %s only %d: "+
			"the total, the minimums or the capacities leave the others empty.", label, minimum, in.TotalReplicas,
			plural(int(min(in.TotalReplicas, 2)), "replica reaches", "replicas reach"), reached)}
	}
	return nil
}

// values quotes the chosen groups' values, or only the live ones.
func (sp *spreadPlan) values(liveOnly bool) []string {
	var out []string
	for _, g := range sp.groups {
		if g.live || !liveOnly {
			out = append(out, fmt.Sprintf("%q", g.name))
		}
	}
	return out
}

// someNames lists a few candidate names for an error, in name order.
func someNames(ranked []candidate) string {
	names := make([]string, len(ranked))
	for i, c := range ranked {
		names[i] = c.name
	}
	slices.Sort(names)
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
