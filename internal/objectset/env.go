package objectset

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/listcache"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// Env is what the pipeline uses of the run: the host, the registered
// clusters, the members' shared clients and the provider's settings. The
// provider builds one per resource call from what it shares across the run.
type Env struct {
	// Registry is the host's registry.
	Registry func(context.Context) (*registry.Registry, error)
	// Snapshot is the run's view of the registered clusters.
	Snapshot func(context.Context) (*runstate.Snapshot, error)
	// Type is the enabled type called name, as this run sees it.
	Type func(ctx context.Context, name string) (*registry.FederatedType, error)
	// Types are the types the host enables and those this run plans.
	Types func(ctx context.Context) ([]registry.FederatedType, error)
	// HostKnown says whether the host can be contacted in this phase.
	HostKnown bool
	Members   *member.Pool
	Reads     *listcache.Cache
	Run       *runstate.Run
	Settings  Settings
	// Log records what the user may want to know without a warning.
	Log func(ctx context.Context, msg string, fields map[string]any)
}

// Settings are the provider's settings the pipeline follows.
type Settings struct {
	FieldManager string
	// MaxParallelClusters bounds how many clusters one object's work
	// reaches at once; zero: all of them.
	MaxParallelClusters int
	// RequestsPerCluster is how many requests the provider lets wait on
	// one cluster at once (kube.LimitInFlight); zero: no bound.
	RequestsPerCluster int
	RequestTimeout     time.Duration
	// DryRun validates changed objects on their members at plan.
	DryRun bool
}

// objectsAtOnce is how many objects of a set are worked on at once:
// RequestsPerCluster, or as many as Terraform works on separate resources
// at once by default when requests are not bounded.
func (s Settings) objectsAtOnce() int {
	if s.RequestsPerCluster > 0 {
		return s.RequestsPerCluster
	}
	return 10
}

// ErrNotRegistered says a cluster is not in the registry.
var ErrNotRegistered = errors.New("the cluster is not registered")

// Member returns the shared clients of a registered cluster.
func (e *Env) Member(snapshot *runstate.Snapshot, cluster string) (propagation.Member, error) {
	c, ok := snapshot.Cluster(cluster)
	if !ok {
		return propagation.Member{}, fmt.Errorf("cluster %q: %w", cluster, ErrNotRegistered)
	}
	if c.Connection.APIEndpoint == "" {
		return propagation.Member{}, fmt.Errorf("cluster %q is registered in this run and has no API endpoint yet", cluster)
	}
	return e.member(cluster, c.Connection, c.Identity)
}

// member is the cluster reached through conn, whose writes confirm first
// that it answers with the identity its registration recorded.
func (e *Env) member(cluster string, conn member.Connection, identity string) (propagation.Member, error) {
	clients, err := e.Members.Clients(cluster, conn)
	if err != nil {
		return propagation.Member{}, err
	}
	confirm := func(ctx context.Context) error { return e.Members.Confirm(ctx, cluster, conn, identity) }
	return propagation.Member{Name: cluster, Clients: clients, Reads: e.Reads, Confirm: confirm}, nil
}

// options are the propagation settings of one operation.
func (e *Env) options(force bool, timeout time.Duration) propagation.Options {
	return propagation.Options{
		FieldManager: e.Settings.FieldManager,
		Force:        force,
		MaxParallel:  e.Settings.MaxParallelClusters,
		Timeout:      timeout,
	}
}

func (e *Env) log(ctx context.Context, msg string, fields map[string]any) {
	if e.Log != nil {
		e.Log(ctx, msg, fields)
	}
}
