package objectset

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// Status is how a federated object does, whoever manages it: what the
// host records of each cluster, and how the object does on each, read from
// the members.
type Status struct {
	// ID is `<type>/<namespace>/<name>`, or `<type>/<name>`.
	ID string
	// Clusters is each cluster's status in the host's record, KubeFed's words.
	Clusters map[string]string
	Health   map[string]rollout.Health
}

// Ready reports whether the object runs as it should on every cluster the
// host records, and is on one at least.
func (s Status) Ready() bool {
	ready := len(s.Health) > 0
	for cluster, h := range s.Health {
		ready = ready && h.Ready && s.Clusters[cluster] == reconcile.StatusOK
	}
	return ready
}

// ObjectStatus reads the host's record of the object of type typeName, and
// the object from each cluster the record names.
func (e *Env) ObjectStatus(ctx context.Context, typeName, namespace, name string) (Status, error) {
	reg, err := e.Registry(ctx)
	if err != nil {
		return Status{}, err
	}
	ft, err := e.Type(ctx, typeName)
	if errors.Is(err, registry.ErrNotFound) {
		return Status{}, fmt.Errorf("no FederatedTypeConfig %q in the host: the type is not enabled", typeName)
	}
	if err != nil {
		return Status{}, err
	}
	hostNamespace, hostName := registry.FederatedObjectLocation(*ft, namespace, name)
	fo, err := reg.GetFederatedObject(ctx, *ft, hostNamespace, hostName)
	if err != nil {
		return Status{}, err
	}
	object := propagation.Object{Resource: ft.Target.Resource(), Name: name}
	s := Status{ID: typeName + "/" + name, Clusters: fo.Status}
	if ft.Target.Namespaced {
		object.Namespace = namespace
		s.ID = typeName + "/" + namespace + "/" + name
	}
	s.Health = e.health(ctx, object, slices.Sorted(maps.Keys(fo.Status)))
	return s, nil
}

// health reads the object from each cluster, in parallel.
func (e *Env) health(ctx context.Context, object propagation.Object, clusters []string) map[string]rollout.Health {
	health := map[string]rollout.Health{}
	snapshot, err := e.Snapshot(ctx)
	if err != nil {
		return health
	}
	members := map[string]propagation.Member{}
	for _, name := range clusters {
		m, err := e.Member(snapshot, name)
		switch {
		case errors.Is(err, ErrNotRegistered):
			health[name] = rollout.Health{Message: ErrNotRegistered.Error()}
		case err != nil:
			health[name] = rollout.Health{Message: err.Error()}
		default:
			members[name] = m
		}
	}
	results := propagation.FanOut(ctx, slices.Sorted(maps.Keys(members)), e.options(false, e.Settings.RequestTimeout),
		func(ctx context.Context, cluster string) (map[string]any, error) {
			obj, _, err := propagation.Get(ctx, members[cluster], object)
			return obj, err
		})
	for _, res := range results {
		switch {
		case res.Err != nil:
			health[res.Cluster] = rollout.Health{Message: "cannot read the cluster: " + res.Err.Error()}
		case res.Value == nil:
			health[res.Cluster] = rollout.Health{Message: "the object is not on the cluster"}
		default:
			health[res.Cluster] = rollout.HealthOf(res.Value)
		}
	}
	return health
}
