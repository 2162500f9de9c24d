package runstate

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// Snapshot is the set of registered clusters as the run's plans see them:
// read from the host once, then amended by the cluster resources planned and
// written in the same run. It is safe for concurrent use.
type Snapshot struct {
	mu       sync.Mutex
	clusters map[string]Cluster
	// interruptedJoins are the joins the host records whose cluster is not
	// registered, as read with the clusters.
	interruptedJoins []registry.JoinRecord
}

// InterruptedJoins are the joins the host recorded, when the clusters were
// read, whose cluster was never registered.
func (s *Snapshot) InterruptedJoins() []registry.JoinRecord {
	return s.interruptedJoins
}

// Cluster is one cluster of a Snapshot.
type Cluster struct {
	registry.Cluster
	// Planned is true for a cluster whose registration or change is planned
	// in this run: its name and labels are the planned ones, its health is
	// not known before apply.
	Planned bool
	// LabelsKnown is false when the planned labels are only known at apply.
	LabelsKnown bool
	// InRun is true for a cluster planned or written in this run, by this
	// provider: its registration is part of what the run does.
	InRun bool
	// GrantsUnknown is true when the planned registration's grants (its
	// join's federated types) are only known at apply.
	GrantsUnknown bool
}

// NotInHostYet reports whether this run plans to register the cluster and
// has not written it yet: the host does not hold it, and nothing knows how
// to reach it.
func (c Cluster) NotInHostYet() bool {
	return c.Planned && c.Connection.APIEndpoint == ""
}

// NotInHostYet names the clusters this run registers that the host does
// not hold yet.
func NotInHostYet(clusters []Cluster) []string {
	var fresh []string
	for _, c := range clusters {
		if c.NotInHostYet() {
			fresh = append(fresh, c.Name)
		}
	}
	return fresh
}

// NewSnapshot returns a snapshot of the given registered clusters.
func NewSnapshot(clusters []registry.Cluster) *Snapshot {
	s := &Snapshot{clusters: map[string]Cluster{}}
	for _, c := range clusters {
		s.clusters[c.Name] = Cluster{Cluster: c, LabelsKnown: true}
	}
	return s
}

// Clusters returns the clusters, sorted by name.
func (s *Snapshot) Clusters() []Cluster {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Collect(maps.Values(s.clusters))
	slices.SortFunc(out, func(a, b Cluster) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Cluster returns the named cluster.
func (s *Snapshot) Cluster(name string) (Cluster, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clusters[name]
	return c, ok
}

// PlanCluster records that a cluster is registered or changed in this run,
// with the labels it will have (nil and labelsKnown false when they are only
// known at apply). Its connection and last health, if it was registered
// before, are kept.
func (s *Snapshot) PlanCluster(name string, labels map[string]string, labelsKnown bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clusters[name]
	c.Name = name
	c.Labels = clone(labels)
	c.Planned = true
	c.LabelsKnown = labelsKnown
	c.InRun = true
	s.clusters[name] = c
}

// PlanGrants records what a registration planned in this run lets the
// federation write on the member; known is false when that is only known
// at apply.
func (s *Snapshot) PlanGrants(name string, g registry.Grants, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clusters[name]
	if !ok {
		return
	}
	c.Grants = g
	c.GrantsUnknown = !known
	s.clusters[name] = c
}

// PlanRemoval records that a cluster is deregistered in this run.
func (s *Snapshot) PlanRemoval(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.clusters, name)
}

// Applied records a cluster as written to the host, with its health.
func (s *Snapshot) Applied(c registry.Cluster) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clusters[c.Name] = Cluster{Cluster: c, LabelsKnown: true, InRun: true}
}

// Names returns the names of the clusters, sorted.
func (s *Snapshot) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.clusters))
}

// RegisteredNames returns, sorted, the names of the clusters the host
// holds as far as this run knows: the clusters this run plans to register
// are left out until it has written them.
func (s *Snapshot) RegisteredNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for name, c := range s.clusters {
		if !c.NotInHostYet() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// AheadEndpoints are the endpoints of the named clusters, as the snapshot
// records them, of those that a later run can dial ahead.
func (s *Snapshot) AheadEndpoints(clusters []string) map[string]string {
	out := map[string]string{}
	for _, name := range clusters {
		if c, ok := s.Cluster(name); ok && !c.NotInHostYet() && c.Connection.DialsAhead() {
			out[name] = c.Connection.APIEndpoint
		}
	}
	return out
}
