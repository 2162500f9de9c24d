// Package runstate holds what one provider run knows across its resources.
// Terraform plans and applies resources one at a time, in an order only the
// configuration's dependencies decide; a federated object planned after a
// cluster registration must place onto that cluster, a plan Terraform makes
// again at apply must come out the same, and a host round trip per resource
// for what the run already knows would be wasted. So one Run per provider
// instance records: the registered clusters as this run's plans see them
// (read once from the host, then amended by the clusters planned and written
// in the run), the health recorded for each, the types found or planned, the
// host namespaces made sure of, the label-selector placements planned so far
// and the objects planned for replacement.
package runstate

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// Loader reads the registered clusters (and the interrupted joins) from
// the host; nil means the host cannot be contacted in this phase, and the
// run starts with no clusters.
type Loader func(ctx context.Context) (registry.Registrations, error)

// Run is one provider instance's shared knowledge. It is safe for
// concurrent use.
type Run struct {
	load Loader

	once     sync.Once
	snapshot *Snapshot
	loadErr  error

	mu         sync.Mutex
	health     map[string]registry.ClusterHealth
	placements map[string]plannedPlacement
	replacing  map[string]bool
	creating   map[string]bool
	held       map[string]bool
	done       map[string]bool
	planned    map[string]registry.FederatedType

	types      sync.Map // name → *foundType
	namespaces sync.Map // host namespace → *ensured

	hostTypesMu   sync.Mutex
	hostTypes     []registry.FederatedType
	hostTypesRead bool
}

// foundType is a type as found in the host, nil until it is; its mutex
// holds back the run's other readers while the first asks.
type foundType struct {
	mu sync.Mutex
	t  *registry.FederatedType
}

// ensured is whether one host namespace was made sure of; its mutex holds
// back the run's other writers while the first makes sure.
type ensured struct {
	mu   sync.Mutex
	done bool
}

// New returns the knowledge of a run that reads its clusters with load.
func New(load Loader) *Run {
	return &Run{
		load:       load,
		health:     map[string]registry.ClusterHealth{},
		placements: map[string]plannedPlacement{},
		replacing:  map[string]bool{},
		creating:   map[string]bool{},
		held:       map[string]bool{},
		done:       map[string]bool{},
		planned:    map[string]registry.FederatedType{},
	}
}

// Snapshot returns the registered clusters as this run sees them, read from
// the host on first use.
func (r *Run) Snapshot(ctx context.Context) (*Snapshot, error) {
	r.once.Do(func() {
		if r.load == nil {
			r.snapshot = NewSnapshot(nil)
			return
		}
		regs, err := r.load(ctx)
		if err != nil {
			r.loadErr = err
			return
		}
		clusters := regs.Clusters
		r.snapshot = NewSnapshot(clusters)
		r.snapshot.interruptedJoins = regs.InterruptedJoins
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, c := range clusters {
			if _, probed := r.health[c.Name]; !probed {
				r.health[c.Name] = c.Health
			}
		}
	})
	return r.snapshot, r.loadErr
}

// RecordHealth notes the health a probe of this run wrote to the host.
func (r *Run) RecordHealth(cluster string, h registry.ClusterHealth) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.health[cluster] = h
}

// Health is the cluster's health as the host records it: written by a
// probe of this run, else as read with the snapshot. Plans freeze clusters
// on the record rather than on a probe of their own: the record does not
// change between plan and apply, so the plan Terraform makes again at apply
// comes out the same.
func (r *Run) Health(ctx context.Context, cluster string) (registry.ClusterHealth, bool) {
	_, _ = r.Snapshot(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.health[cluster]
	return h, ok
}

// Ready sorts the candidates by the health the registry records for them:
// the ready ones are returned, the others go into excluded with the reason.
// The record is what the cluster resources' refresh probed in this same
// plan; probing again here could give another answer when Terraform plans
// the resource once more at apply, and an inconsistent plan with it.
// Clusters planned in this run count as ready: their registration fails at
// apply when they are not.
func (r *Run) Ready(ctx context.Context, candidates []Cluster, excluded map[string]string) []Cluster {
	var ready []Cluster
	for _, c := range candidates {
		health, recorded := r.Health(ctx, c.Name)
		if c.Planned || !recorded || health.Ready {
			ready = append(ready, c)
			continue
		}
		reason := health.Reason
		if reason == "" {
			reason = "ClusterNotReady"
		}
		excluded[c.Name] = strings.TrimSpace(reason + ": " + health.Message)
	}
	return ready
}

// PlanType records a type enabled by this run, so objects planned after it
// can use it before it is in the host.
func (r *Run) PlanType(t registry.FederatedType) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.planned[t.Name()] = t
}

// PlannedType returns the type of that name this run enables.
func (r *Run) PlannedType(name string) (registry.FederatedType, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.planned[name]
	return t, ok
}

// PlannedTypes are the types this run enables.
func (r *Run) PlannedTypes() []registry.FederatedType {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]registry.FederatedType, 0, len(r.planned))
	for _, t := range r.planned {
		out = append(out, t)
	}
	return out
}

// Type returns the type called name as this run sees it: as planned in the
// run, else as enabled in the host, asking get on first use; callers that
// ask at the same time wait for that one answer. A type not found is asked
// for again next time, since the run may be enabling it.
func (r *Run) Type(ctx context.Context, name string, get func(context.Context, string) (*registry.FederatedType, error)) (*registry.FederatedType, error) {
	if t, ok := r.PlannedType(name); ok {
		return &t, nil
	}
	v, _ := r.types.LoadOrStore(name, &foundType{})
	found := v.(*foundType)
	found.mu.Lock()
	defer found.mu.Unlock()
	if found.t != nil {
		return found.t, nil
	}
	t, err := get(ctx, name)
	if err != nil {
		return nil, err
	}
	found.t = t
	return t, nil
}

// HostTypes are the types the host enables, listed once per run: the first
// caller lists them while the others wait, and later callers get that list.
// A failure is not kept: the next caller lists again. Each type found also
// answers Type by its name.
func (r *Run) HostTypes(ctx context.Context, list func(context.Context) ([]registry.FederatedType, error)) ([]registry.FederatedType, error) {
	r.hostTypesMu.Lock()
	defer r.hostTypesMu.Unlock()
	if r.hostTypesRead {
		return slices.Clone(r.hostTypes), nil
	}
	types, err := list(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range types {
		found := &foundType{t: &t}
		r.types.LoadOrStore(t.Name(), found)
	}
	r.hostTypes, r.hostTypesRead = types, true
	return slices.Clone(types), nil
}

// EnsureNamespace makes sure of a host namespace once per run: the first
// caller runs ensure while the others wait for it, and later callers return
// at once. A failure is not kept: the next caller tries again.
func (r *Run) EnsureNamespace(ctx context.Context, namespace string, ensure func(context.Context, string) error) error {
	v, _ := r.namespaces.LoadOrStore(namespace, &ensured{})
	e := v.(*ensured)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return nil
	}
	if err := ensure(ctx, namespace); err != nil {
		return err
	}
	e.done = true
	return nil
}

// plannedPlacement is an object's placement as planned in this run, and
// whether the object was read (refreshed) before: such an object takes in
// clusters registered after that read only at the next plan.
type plannedPlacement struct {
	placement federation.Placement
	read      bool
}

// PlannedPlacement records the placement of an object planned in this run,
// and whether the object was read before the plan. Only label-selector
// placements are kept: they are what a cluster planned later in the run
// could change.
func (r *Run) PlannedPlacement(object string, p federation.Placement, read bool) {
	if p.Clusters != nil || p.Selector == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.placements[object] = plannedPlacement{placement: p, read: read}
}

// Missed returns, sorted, the objects planned so far whose placement of the
// named cluster changes with its planned labels: before are the cluster's
// labels as registered, nil for a cluster not registered yet. A new cluster
// misses no object that was read before its plan: those leave every cluster
// registered after their read to the next plan, whatever the order.
func (r *Run) Missed(cluster string, before, after map[string]string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for object, p := range r.placements {
		if before == nil && p.read {
			continue
		}
		if selects(p.placement, cluster, before) != selects(p.placement, cluster, after) {
			out = append(out, object)
		}
	}
	slices.Sort(out)
	return out
}

func selects(p federation.Placement, cluster string, labels map[string]string) bool {
	if labels == nil {
		return false
	}
	placed, err := p.Select([]federation.Cluster{{Name: cluster, Labels: labels}}, nil)
	return err == nil && slices.Contains(placed, cluster)
}

// MarkReplacing records that the object of that id is replaced, not
// created anew, in this run: it was planned from an existing state (a plan
// of a replacement asks with the prior state, then as a create), or the
// destroy half of its replacement ran (an apply of a saved plan).
func (r *Run) MarkReplacing(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.replacing[id] = true
}

// Replacing reports whether a create of that id replaces an object of this
// run's state.
func (r *Run) Replacing(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replacing[id]
}

// MarkHeld records that a refresh of this run read the object of that key
// from the state: the state holds it, whatever the host's record of it says.
func (r *Run) MarkHeld(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held[key] = true
}

// Held reports whether a refresh of this run read the object of that key.
func (r *Run) Held(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held[key]
}

// clone is a defensive copy for labels kept in the snapshot.
func clone(m map[string]string) map[string]string { return maps.Clone(m) }

// FirstTime reports whether this is the run's first call with key: what
// a run says once (a warning about the host) asks it first.
func (r *Run) FirstTime(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done[key] {
		return false
	}
	r.done[key] = true
	return true
}

// ClaimCreate records that a resource of this run creates the object of
// that key, and reports false when another one of the run did already: two
// resources of one configuration for the same object, applied at once,
// would otherwise both find the host empty and both write it.
func (r *Run) ClaimCreate(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.creating[key] {
		return false
	}
	r.creating[key] = true
	return true
}
