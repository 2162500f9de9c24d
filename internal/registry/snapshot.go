package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Snapshot is the set of registered clusters as the plan sees it: read from
// the host once, then amended by the cluster resources planned in the same
// run. It is safe for concurrent use.
type Snapshot struct {
	mu       sync.Mutex
	clusters map[string]SnapshotCluster
}

// SnapshotCluster is one cluster of a Snapshot.
type SnapshotCluster struct {
	Cluster
	// Planned is true for a cluster whose registration or change is planned
	// in this run: its name and labels are the planned ones, its health is
	// not known before apply.
	Planned bool
	// LabelsKnown is false when the planned labels are only known at apply.
	LabelsKnown bool
	// InRun is true for a cluster planned or written in this run, by this
	// provider: its registration is part of what the run does.
	InRun bool
}

// LoadSnapshot reads every registered cluster, with its credentials, from
// the host. A host without the KubeFedCluster CRD has no clusters yet.
func (r *Registry) LoadSnapshot(ctx context.Context) (*Snapshot, error) {
	list, err := r.clusters().List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return NewSnapshot(nil), nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing KubeFedClusters in namespace %q of the host: %w", r.namespace, err)
	}
	secrets, err := r.kubernetes.CoreV1().Secrets(r.namespace).List(ctx, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("listing Secrets in namespace %q of the host: %w", r.namespace, err)
	}
	data := map[string]map[string][]byte{}
	if secrets != nil {
		for _, s := range secrets.Items {
			data[s.Name] = s.Data
		}
	}
	clusters := make([]Cluster, 0, len(list.Items))
	for i := range list.Items {
		c := clusterFromObject(&list.Items[i])
		if d, ok := data[c.SecretName]; ok {
			c.Connection.Token = string(d[SecretKeyToken])
			c.Connection.ClientCertificate = d[SecretKeyClientCertificate]
			c.Connection.ClientKey = d[SecretKeyClientKey]
		}
		clusters = append(clusters, *c)
	}
	return NewSnapshot(clusters), nil
}

// NewSnapshot returns a snapshot of the given registered clusters.
func NewSnapshot(clusters []Cluster) *Snapshot {
	s := &Snapshot{clusters: map[string]SnapshotCluster{}}
	for _, c := range clusters {
		s.clusters[c.Name] = SnapshotCluster{Cluster: c, LabelsKnown: true}
	}
	return s
}

// Clusters returns the clusters, sorted by name.
func (s *Snapshot) Clusters() []SnapshotCluster {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Collect(maps.Values(s.clusters))
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Cluster returns the named cluster.
func (s *Snapshot) Cluster(name string) (SnapshotCluster, bool) {
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
	c.Labels = maps.Clone(labels)
	c.Planned = true
	c.LabelsKnown = labelsKnown
	c.InRun = true
	s.clusters[name] = c
}

// PlanRemoval records that a cluster is deregistered in this run.
func (s *Snapshot) PlanRemoval(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.clusters, name)
}

// Applied records a cluster as written to the host, with its health.
func (s *Snapshot) Applied(c Cluster) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clusters[c.Name] = SnapshotCluster{Cluster: c, LabelsKnown: true, InRun: true}
}

// Names returns the names of the clusters, sorted.
func (s *Snapshot) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.clusters))
}
