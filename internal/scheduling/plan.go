package scheduling

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Wildcard is the preference key that applies to every candidate cluster
// without a preference of its own.
const Wildcard = "*"

// MaxTotalReplicas is the largest total the planner accepts. Replica counts
// are 32-bit in Kubernetes workloads and in KubeFed's
// ReplicaSchedulingPreference, so a larger total could never be applied.
const MaxTotalReplicas = math.MaxInt32

// Strategy selects how the replicas left after minimums are divided.
type Strategy string

const (
	// KubeFed reproduces KubeFed's ReplicaSchedulingPreference planner. It is
	// the strategy used when Input.Strategy is empty.
	KubeFed Strategy = "kubefed"
	// Balanced divides the replicas left after minimums in proportion to
	// weight with the Webster (Sainte-Laguë) highest-averages method. It
	// ignores Input.Current and Input.Rebalance and never reports overflow.
	Balanced Strategy = "balanced"
)

// Strategies lists the accepted strategies, default first.
var Strategies = []Strategy{KubeFed, Balanced}

// WeightBy selects where the weights the strategy divides by come from.
type WeightBy string

const (
	// StaticWeights uses each Preference.Weight as given. It is what an empty
	// Input.WeightBy means.
	StaticWeights WeightBy = "static"
	// AvailableCapacity replaces every positive weight by the cluster's
	// estimated capacity (Input.Capacity), as Karmada's dynamic weights do,
	// so that replicas go where there is room. A weight of 0 stays 0: the
	// cluster still receives only its minimum. A cluster without an estimate
	// weighs TotalReplicas, as if it could hold them all, which is how
	// Karmada counts a cluster no estimator bounds. Capacities above
	// MaxTotalReplicas weigh MaxTotalReplicas.
	AvailableCapacity WeightBy = "available_capacity"
)

// WeightBys lists the accepted weight sources, default first.
var WeightBys = []WeightBy{StaticWeights, AvailableCapacity}

// Spread asks that the placed replicas span distinct values of a cluster
// label, such as regions; the zero value asks nothing.
type Spread struct {
	// ByLabel is the cluster label whose values form the groups. Candidates
	// without it are excluded while a spread is asked for.
	ByLabel string
	// MinGroups is how many groups at least should receive replicas. When
	// the candidates offer fewer groups, or the total, minimums or
	// capacities leave some chosen group empty, the split still places what
	// it can and says so in Result.Warnings.
	MinGroups int
	// MaxGroups caps the groups chosen; 0 means no cap.
	MaxGroups int
}

// Preference is what one cluster, or the Wildcard, asks of the planner.
type Preference struct {
	// MinReplicas is served before any weight is considered.
	MinReplicas int64
	// MaxReplicas caps the cluster; nil means unbounded.
	MaxReplicas *int64
	// Weight is the cluster's share of the replicas left after minimums.
	// A cluster of weight 0 receives only its minimum (and, with KubeFed and
	// rebalance off, what it already runs).
	Weight int64
}

// Input is everything the planner looks at.
type Input struct {
	// TotalReplicas is the number of replicas to place, at most MaxTotalReplicas.
	TotalReplicas int64
	// Clusters are the candidate clusters, typically the placed ones. Every
	// candidate appears in the result, with 0 when nothing is planned for it.
	Clusters []string
	// Preferences maps a cluster name or Wildcard to its preference. A
	// cluster without its own entry uses the Wildcard entry; with neither it
	// receives 0. An empty map means {Wildcard: {Weight: 1}}.
	Preferences map[string]Preference
	// Current is the number of replicas each cluster runs now, when known.
	Current map[string]int64
	// Capacity is an estimate of how many replicas each cluster can run;
	// clusters absent from the map are unbounded.
	Capacity map[string]int64
	// Rebalance lets the KubeFed strategy move replicas that already run;
	// when false, what a cluster runs is kept as far as the total allows.
	Rebalance bool
	// Key, conventionally "namespace/name" of the workload, seeds the
	// tie-break between clusters of equal weight so that different workloads
	// do not all favour the same cluster.
	Key string
	// Strategy defaults to KubeFed when empty.
	Strategy Strategy
	// WeightBy defaults to StaticWeights when empty.
	WeightBy WeightBy
	// MaxClusters, when positive, places on at most that many clusters,
	// chosen in the order described in the package documentation; the
	// others receive 0 and are listed in Result.Excluded.
	MaxClusters int
	// Spread, when Spread.ByLabel is set, chooses clusters so that the
	// replicas span several values of that label.
	Spread Spread
	// ClusterLabels maps a cluster name to its labels; only Spread reads it.
	ClusterLabels map[string]map[string]string
}

// Result is the planner's answer.
type Result struct {
	// Plan is the number of replicas each candidate cluster should run, within
	// its maximum and capacity. Its values add up to at most TotalReplicas.
	Plan map[string]int64
	// Overflow holds, for clusters whose capacity cut their share, replicas
	// worth scheduling there anyway in case the capacity estimate was
	// pessimistic. Only non-zero entries are present.
	Overflow map[string]int64
	// Replicas is what each candidate finally receives: Plan plus Overflow.
	Replicas map[string]int64
	// Unplaced is TotalReplicas minus the sum of Plan: replicas no cluster
	// could take because of maximums, capacities or zero weights.
	Unplaced int64
	// Excluded maps each candidate that MaxClusters or Spread left out of
	// the split to the reason, a sentence fragment for a plan. It is empty,
	// never nil, when nothing was left out.
	Excluded map[string]string
	// Warnings are sentences about what the split could not honour, such as
	// a spread that reaches fewer groups than Spread.MinGroups, in a fixed
	// order.
	Warnings []string
}

// Names of the inputs, used by InputError.Field so that callers can point at
// the argument that was wrong.
const (
	FieldTotalReplicas = "total_replicas"
	FieldClusters      = "clusters"
	FieldPreferences   = "preferences"
	FieldCurrent       = "current"
	FieldCapacity      = "capacity"
	FieldStrategy      = "strategy"
	FieldWeightBy      = "weight_by"
	FieldMaxClusters   = "max_clusters"
	// FieldSpread errors name the attribute of the spread in Key:
	// "by_label", "min_groups" or "max_groups".
	FieldSpread = "spread"
)

// InputError reports an input the planner refuses, naming the input (one of
// the Field constants) and, for map and list inputs, the offending key.
type InputError struct {
	Field  string
	Key    string
	Reason string
}

func (e *InputError) Error() string {
	if e.Key == "" {
		return e.Field + ": " + e.Reason
	}
	return fmt.Sprintf("%s[%q]: %s", e.Field, e.Key, e.Reason)
}

// Plan splits in.TotalReplicas across in.Clusters. It returns an *InputError
// when the input is invalid, and is otherwise deterministic: the same input,
// with the candidates in any order, yields the same result.
func Plan(in Input) (Result, error) {
	if err := validate(in); err != nil {
		return Result{}, err
	}
	ranked := rank(in)
	if err := checkWeightSum(ranked); err != nil {
		return Result{}, err
	}
	sel, err := choose(in, ranked)
	if err != nil {
		return Result{}, err
	}
	out := split(in, sel.chosen)
	var warnings []string
	if sel.spread != nil {
		out, warnings = sel.spread.meet(in, sel.chosen, out)
	}

	res := Result{
		Plan:     make(map[string]int64, len(in.Clusters)),
		Overflow: out.overflow,
		Replicas: make(map[string]int64, len(in.Clusters)),
		Unplaced: out.unplaced,
		Excluded: sel.excluded,
		Warnings: warnings,
	}
	for _, name := range in.Clusters {
		res.Plan[name] = 0
	}
	for i, c := range sel.chosen {
		res.Plan[c.name] = out.planned[i]
	}
	for name, n := range res.Plan {
		res.Replicas[name] = n + out.overflow[name]
	}
	return res, nil
}

// outcome is a strategy's split: the planned count of each ranked cluster
// (by index), the overflow and the replicas left unplaced.
type outcome struct {
	planned  []int64
	overflow map[string]int64
	unplaced int64
}

// split runs the strategy over the ranked clusters.
func split(in Input, ranked []candidate) outcome {
	out := outcome{overflow: map[string]int64{}}
	if in.Strategy == Balanced {
		out.planned, out.unplaced = planBalanced(in.TotalReplicas, ranked)
	} else {
		out.planned, out.unplaced = planKubeFed(in, ranked, out.overflow)
	}
	return out
}

// candidate is a cluster that has a preference, with what the planner needs
// to know about it resolved once.
type candidate struct {
	name     string
	hash     uint32
	pref     Preference
	capacity int64
	hasCap   bool
}

// limit is the most the cluster may hold: its maximum or its capacity,
// whichever is lower.
func (c *candidate) limit() int64 {
	l := int64(math.MaxInt64)
	if c.pref.MaxReplicas != nil {
		l = *c.pref.MaxReplicas
	}
	if c.hasCap {
		l = min(l, c.capacity)
	}
	return l
}

// capacityWeight is a cluster's weight under AvailableCapacity.
func capacityWeight(total, capacity int64, known bool) int64 {
	if !known {
		return total
	}
	return min(capacity, MaxTotalReplicas)
}

// tieHash is the FNV-1 hash of name+key that breaks ties between clusters
// (and spread groups) of equal weight.
func tieHash(name, key string) uint32 {
	h := fnv.New32()
	h.Write([]byte(name))
	h.Write([]byte(key))
	return h.Sum32()
}

// rank returns the clusters that have a preference, in the order the planner
// serves them: weight descending (the capacity-derived weight under
// AvailableCapacity), then FNV-1 hash of name+key ascending.
// KubeFed hashes so that single-replica workloads do not all land on the
// alphabetically first cluster. The name is a last tie-break, for the rare
// hash collision, so that the order never depends on the input order.
func rank(in Input) []candidate {
	prefs := in.Preferences
	if len(prefs) == 0 {
		prefs = map[string]Preference{Wildcard: {Weight: 1}}
	}
	ranked := make([]candidate, 0, len(in.Clusters))
	for _, name := range in.Clusters {
		pref, ok := prefs[name]
		if !ok {
			pref, ok = prefs[Wildcard]
		}
		if !ok {
			continue
		}
		capacity, hasCap := in.Capacity[name]
		if in.WeightBy == AvailableCapacity && pref.Weight > 0 {
			pref.Weight = capacityWeight(in.TotalReplicas, capacity, hasCap)
		}
		ranked = append(ranked, candidate{name: name, hash: tieHash(name, in.Key), pref: pref, capacity: capacity, hasCap: hasCap})
	}
	// Sorting pointer-free keys rather than the candidates themselves keeps
	// the garbage collector's write barriers out of the swaps.
	type sortKey struct {
		weight int64
		hash   uint32
		index  int
	}
	keys := make([]sortKey, len(ranked))
	for i := range ranked {
		keys[i] = sortKey{weight: ranked[i].pref.Weight, hash: ranked[i].hash, index: i}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return strings.Compare(ranked[a.index].name, ranked[b.index].name)
	})
	sorted := make([]candidate, len(ranked))
	for i, k := range keys {
		sorted[i] = ranked[k.index]
	}
	return sorted
}

// serveMinimums gives each ranked cluster, in order, its minimum as far as
// the total and its capacity allow, and returns what is left. Maximums are
// not consulted, as in KubeFed; validation guarantees min <= max.
func serveMinimums(total int64, ranked []candidate, planned []int64) int64 {
	remaining := total
	for i := range ranked {
		c := &ranked[i]
		n := min(c.pref.MinReplicas, remaining)
		if c.hasCap {
			n = min(n, c.capacity)
		}
		planned[i] = n
		remaining -= n
	}
	return remaining
}

func validate(in Input) error {
	switch in.Strategy {
	case "", KubeFed, Balanced:
	default:
		return &InputError{Field: FieldStrategy, Reason: fmt.Sprintf("unknown strategy %q; use %q or %q", in.Strategy, KubeFed, Balanced)}
	}
	switch in.WeightBy {
	case "", StaticWeights, AvailableCapacity:
	default:
		return &InputError{Field: FieldWeightBy, Reason: fmt.Sprintf("unknown weight source %q; use %q or %q", in.WeightBy, StaticWeights, AvailableCapacity)}
	}
	if in.MaxClusters < 0 {
		return &InputError{Field: FieldMaxClusters, Reason: fmt.Sprintf("must not be negative, got %d", in.MaxClusters)}
	}
	if err := validateSpread(in.Spread, in.MaxClusters); err != nil {
		return err
	}
	if in.TotalReplicas < 0 {
		return &InputError{Field: FieldTotalReplicas, Reason: fmt.Sprintf("must not be negative, got %d", in.TotalReplicas)}
	}
	if in.TotalReplicas > MaxTotalReplicas {
		return &InputError{Field: FieldTotalReplicas, Reason: fmt.Sprintf("%d exceeds the largest replica count Kubernetes accepts (%d)", in.TotalReplicas, MaxTotalReplicas)}
	}
	seen := make(map[string]bool, len(in.Clusters))
	for _, name := range in.Clusters {
		if seen[name] {
			return &InputError{Field: FieldClusters, Key: name, Reason: "listed more than once"}
		}
		seen[name] = true
	}
	if err := firstError(in.Preferences, validatePreference); err != nil {
		return err
	}
	if err := nonNegative(FieldCurrent, in.Current); err != nil {
		return err
	}
	return nonNegative(FieldCapacity, in.Capacity)
}

func validateSpread(s Spread, maxClusters int) error {
	bad := func(key, reason string) error {
		return &InputError{Field: FieldSpread, Key: key, Reason: reason}
	}
	switch {
	case s.ByLabel == "" && (s.MinGroups != 0 || s.MaxGroups != 0):
		return bad("by_label", "is required when min_groups or max_groups is set: name the cluster label to spread by, such as region")
	case s.ByLabel == "":
		return nil
	case len(validation.IsQualifiedName(s.ByLabel)) > 0:
		return bad("by_label", fmt.Sprintf("%q is not a label key: %s", s.ByLabel, strings.Join(validation.IsQualifiedName(s.ByLabel), "; ")))
	case s.MinGroups < 0:
		return bad("min_groups", fmt.Sprintf("must not be negative, got %d", s.MinGroups))
	case s.MaxGroups < 0:
		return bad("max_groups", fmt.Sprintf("must not be negative, got %d", s.MaxGroups))
	case s.MaxGroups > 0 && s.MinGroups > s.MaxGroups:
		return bad("min_groups", fmt.Sprintf("min_groups (%d) is greater than max_groups (%d)", s.MinGroups, s.MaxGroups))
	case maxClusters > 0 && s.MinGroups > maxClusters:
		return bad("min_groups", fmt.Sprintf("min_groups (%d) is greater than max_clusters (%d): every group needs a cluster of its own", s.MinGroups, maxClusters))
	}
	return nil
}

func validatePreference(key string, p Preference) error {
	bad := func(reason string) error {
		return &InputError{Field: FieldPreferences, Key: key, Reason: reason}
	}
	if p.MinReplicas < 0 {
		return bad(fmt.Sprintf("min_replicas must not be negative, got %d", p.MinReplicas))
	}
	if p.Weight < 0 {
		return bad(fmt.Sprintf("weight must not be negative, got %d", p.Weight))
	}
	if p.MaxReplicas != nil {
		if *p.MaxReplicas < 0 {
			return bad(fmt.Sprintf("max_replicas must not be negative, got %d", *p.MaxReplicas))
		}
		if p.MinReplicas > *p.MaxReplicas {
			return bad(fmt.Sprintf("min_replicas (%d) is greater than max_replicas (%d)", p.MinReplicas, *p.MaxReplicas))
		}
	}
	return nil
}

func nonNegative(field string, m map[string]int64) error {
	return firstError(m, func(key string, n int64) error {
		if n < 0 {
			return &InputError{Field: field, Key: key, Reason: fmt.Sprintf("must not be negative, got %d", n)}
		}
		return nil
	})
}

// checkWeightSum refuses weights whose sum over the candidates does not fit
// in 64 bits, since both strategies divide by that sum.
func checkWeightSum(ranked []candidate) error {
	var sum int64
	for _, c := range ranked {
		if c.pref.Weight > math.MaxInt64-sum {
			return &InputError{Field: FieldPreferences, Key: c.name, Reason: "weight makes the sum of the candidates' weights exceed " + strconv.FormatInt(math.MaxInt64, 10)}
		}
		sum += c.pref.Weight
	}
	return nil
}

// firstError checks every entry of m and returns the error of the smallest
// failing key, so that the message does not vary with map iteration order.
func firstError[V any](m map[string]V, check func(string, V) error) error {
	var first error
	var firstKey string
	for key, v := range m {
		if first != nil && key >= firstKey {
			continue
		}
		if err := check(key, v); err != nil {
			first, firstKey = err, key
		}
	}
	return first
}
