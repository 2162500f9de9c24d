package objectset

import (
	"slices"
	"strings"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// What a staged rollout of a set does when a stage fails.
const (
	OnFailureStop     = "stop"
	OnFailureRollback = "rollback"
)

// Strategy is how a set is rolled out across clusters.
type Strategy struct {
	Stages        [][]string
	MaxConcurrent int
	MaxFailed     int
	Pause         time.Duration
	// OnFailure is OnFailureStop (the default) or OnFailureRollback.
	OnFailure string
}

// Staged reports whether the strategy orders clusters at all.
func (s Strategy) Staged() bool { return len(s.Stages) > 0 || s.MaxConcurrent > 0 }

// Set is objects rolled out as one, in the order a cluster receives them.
type Set struct {
	Objects []*Object
	byKey   map[string]*Object
	// named are the objects' keys without their version: one object may be
	// served in several versions.
	named    map[federation.Key]bool
	Strategy Strategy
	// Shared is what the set's objects share (deletion policy, the
	// application, ...): the settings an object the configuration no longer
	// names, but clusters still hold, is worked on with.
	Shared Spec
}

// NewSet orders objects by tier, keeping their order within one.
func NewSet(objects []*Object, strategy Strategy, shared Spec) *Set {
	s := &Set{Objects: slices.Clone(objects), byKey: map[string]*Object{}, named: map[federation.Key]bool{}, Strategy: strategy,
		Shared: shared}
	slices.SortStableFunc(s.Objects, func(a, b *Object) int { return federation.Tier(a.Key) - federation.Tier(b.Key) })
	for _, o := range s.Objects {
		s.byKey[o.Key.String()] = o
		s.named[anyVersion(o.Key)] = true
	}
	return s
}

// anyVersion is k without its version: what names the object in every
// version it is served in.
func anyVersion(k federation.Key) federation.Key {
	k.Version = ""
	return k
}

// Get is the object of the set with key, nil when there is none.
func (s *Set) Get(key string) *Object {
	if s == nil {
		return nil
	}
	return s.byKey[key]
}

// Names reports whether the set holds the object of key, in this version
// or another: one object may be served in several versions.
func (s *Set) Names(key string) bool {
	k, err := federation.ParseKey(key)
	return err == nil && s != nil && s.named[anyVersion(k)]
}

// Keys are the set's object keys, in order.
func (s *Set) Keys() []string {
	out := make([]string, len(s.Objects))
	for i, o := range s.Objects {
		out[i] = o.Key.String()
	}
	return out
}

// Secrets are the values of the set's Secrets, kept out of every message.
func (s *Set) Secrets() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, o := range s.Objects {
		out = append(out, o.Secrets...)
	}
	return out
}

// Order is the rollout order of the placed clusters.
func (s *Set) Order(placed []string) (rollout.Order, error) {
	if !s.Strategy.Staged() {
		if len(placed) == 0 {
			return rollout.Order{}, nil
		}
		return rollout.Order{Stages: [][]string{placed}}, nil
	}
	return rollout.Plan(placed, s.Strategy.Stages, s.Strategy.MaxConcurrent)
}

// PlannedOrder is the order of the placed clusters with what the plan says
// of the stages.
func (s *Set) PlannedOrder(placed []string) ([][]string, Problems) {
	var problems Problems
	order, err := s.Order(placed)
	if err != nil {
		problems.AddAttributeError(Root("rollout_strategy").AtName("stages"), "Invalid rollout stages", err.Error())
	}
	if len(order.Unknown) > 0 {
		what := "the set"
		if len(s.Objects) == 1 {
			what = s.Objects[0].Target.String()
		}
		problems.AddAttributeWarning(Root("rollout_strategy").AtName("stages"), "Stages name clusters that are not placed",
			"rollout_strategy.stages names "+strings.Join(order.Unknown, ", ")+", which "+what+" is not placed on: they are left out.")
	}
	return order.Stages, problems
}

// tiers splits objects sorted by tier into one run of objects per tier,
// in order.
func tiers(objects []*Object) [][]*Object {
	var out [][]*Object
	for i, o := range objects {
		if i == 0 || federation.Tier(o.Key) != federation.Tier(objects[i-1].Key) {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], o)
	}
	return out
}

// eachObject runs work for each object, as many at once as the provider
// lets requests wait on one cluster (Settings.RequestsPerCluster: each
// object's work sends at least one request to each cluster, so more at
// once would only wait for their turn), and returns what each reported in
// the objects' order. Each object's requests to the clusters take a round
// trip, so one after another they would add up to a round trip per object.
func (e *Env) eachObject(objects []*Object, work func(o *Object, problems *Problems)) Problems {
	each := make([]Problems, len(objects))
	overlap.Each(len(objects), e.Settings.objectsAtOnce(), func(i int) { work(objects[i], &each[i]) })
	var out Problems
	for _, p := range each {
		out = append(out, p...)
	}
	return out
}
