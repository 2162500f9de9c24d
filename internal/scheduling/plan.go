package scheduling

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
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

	var planned []int64
	overflow := map[string]int64{}
	var unplaced int64
	switch in.Strategy {
	case KubeFed, "":
		planned, unplaced = planKubeFed(in, ranked, overflow)
	case Balanced:
		planned, unplaced = planBalanced(in.TotalReplicas, ranked)
	}

	res := Result{
		Plan:     make(map[string]int64, len(in.Clusters)),
		Overflow: overflow,
		Replicas: make(map[string]int64, len(in.Clusters)),
		Unplaced: unplaced,
	}
	for _, name := range in.Clusters {
		res.Plan[name] = 0
	}
	for i, c := range ranked {
		res.Plan[c.name] = planned[i]
	}
	for name, n := range res.Plan {
		res.Replicas[name] = n + overflow[name]
	}
	return res, nil
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

// rank returns the clusters that have a preference, in the order the planner
// serves them: weight descending, then FNV-1 hash of name+key ascending.
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
		h := fnv.New32()
		h.Write([]byte(name))
		h.Write([]byte(in.Key))
		capacity, hasCap := in.Capacity[name]
		ranked = append(ranked, candidate{name: name, hash: h.Sum32(), pref: pref, capacity: capacity, hasCap: hasCap})
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
