package objectset

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// RemoveInput is what a destroy of a set removes.
type RemoveInput struct {
	Set      *Set
	Snapshot *runstate.Snapshot
	// Held is, by object key and cluster, what the state says each
	// cluster holds.
	Held map[string]map[string]string
	// Staying are clusters the objects stay on: the first half of a
	// replacement leaves them where the second half re-applies them.
	Staying []string
	// KeepHost keeps the host's records, for the replacement to take over.
	KeepHost bool
	// Application, when set, is the application whose records the host
	// holds: those the set does not name are removed too.
	Application string
}

// Remove removes every object of the set from every cluster that holds it,
// tier by tier in the reverse of the order they were applied in (the
// objects of a tier at once), then their records from the host, several at
// once, and then each host namespace the provider created that held
// nothing but the set's records (looked into while the members were
// written).
func (e *Env) Remove(ctx context.Context, in RemoveInput) Problems {
	var problems Problems
	var checks map[string]*hostNamespaceCheck
	var strays func() ([]Recorded, error)
	if !in.KeepHost {
		checks = e.startNamespaceChecks(ctx, in.Set.Objects)
		strays = e.startStrays(ctx, in.Application)
	}
	for _, tier := range slices.Backward(tiers(in.Set.Objects)) {
		problems.Append(e.eachObject(tier, func(o *Object, problems *Problems) {
			e.removeFromMembers(ctx, o, in.Snapshot, in.Held[o.Key.String()], in.Staying, problems)
		})...)
	}
	if problems.HasError() || in.KeepHost {
		return problems
	}
	e.removeRecords(ctx, in.Set.Objects, checks, &problems)
	if strays != nil && !problems.HasError() {
		found, err := strays()
		if err != nil {
			problems.AddWarning("Cannot look for records left behind", fmt.Sprintf("The host's records labelled with application "+
				"%q could not be listed (%v): any that the state did not hold stay in the host.", in.Application, err))
			return problems
		}
		e.removeStrays(ctx, in.Set, in.Snapshot, found, &problems)
	}
	return problems
}

// removeFromMembers removes the object from every cluster that holds it,
// except those in staying.
func (e *Env) removeFromMembers(ctx context.Context, o *Object, snapshot *runstate.Snapshot,
	held map[string]string, staying []string, problems *Problems) {
	members := map[string]propagation.Member{}
	for _, cluster := range slices.Sorted(maps.Keys(held)) {
		if slices.Contains(staying, cluster) {
			continue
		}
		m, err := e.Member(snapshot, cluster)
		if errors.Is(err, ErrNotRegistered) {
			m, err = e.unregisteredMember(ctx, o, cluster, problems)
		}
		if errors.Is(err, ErrNotRegistered) {
			continue
		}
		if err != nil {
			problems.AddError(fmt.Sprintf("Cannot remove %s from cluster %q", o.Target, cluster), err.Error())
			continue
		}
		members[cluster] = m
	}
	opts := e.options(false, 0)
	results := propagation.FanOut(ctx, slices.Sorted(maps.Keys(members)), opts, func(ctx context.Context, cluster string) (propagation.Answer, error) {
		return e.removeFrom(ctx, members[cluster], o, removal{held: held[cluster], orphan: o.Orphan, giveBackAdopted: !o.DeleteAdopted}, opts)
	})
	for _, res := range results {
		addKeptWarning(problems, o.Target, res.Cluster, res.Value)
	}
	if err := propagation.Errors(results); err != nil {
		problems.AddError(fmt.Sprintf("Cannot remove %s from every cluster", o.Target), err.Error())
	}
}

// unregisteredMember reaches, for a removal, a cluster the host no longer
// registers, with the endpoint and credentials its Secret still records (a
// KubeFedCluster deleted by hand). When nothing is left to reach it, the
// object stays there, and the warning says so and what to do.
func (e *Env) unregisteredMember(ctx context.Context, o *Object, cluster string, problems *Problems) (propagation.Member, error) {
	reg, err := e.Registry(ctx)
	var c *registry.Cluster
	if err == nil {
		c, err = reg.UnregisteredCluster(ctx, cluster)
	}
	if err != nil {
		problems.AddWarning(fmt.Sprintf("%s stays on cluster %q", o.Target, cluster),
			fmt.Sprintf("Cluster %q is no longer registered, and the host holds no credential Secret that records how to reach it "+
				"(%v), so %s is left there. Remove it on the cluster by hand, or register the cluster again and destroy once more.",
				cluster, err, o.Target))
		return propagation.Member{}, ErrNotRegistered
	}
	e.log(ctx, "removing the object from a cluster that is no longer registered, with the credentials its Secret holds",
		map[string]any{"cluster": cluster, "secret": c.SecretName, "object": o.Target.String()})
	return e.member(cluster, c.Connection, c.Identity)
}

// RemoveRecords deletes the objects' records from the host and then each
// host namespace the provider created that held nothing else.
func (e *Env) RemoveRecords(ctx context.Context, objects []*Object, problems *Problems) {
	e.removeRecords(ctx, objects, e.startNamespaceChecks(ctx, objects), problems)
}

// startNamespaceChecks starts looking into each host namespace that records
// of objects hold, each check leaving out those records: they go with
// the removal.
func (e *Env) startNamespaceChecks(ctx context.Context, objects []*Object) map[string]*hostNamespaceCheck {
	leaving := map[string][]registry.HostObject{}
	for _, o := range objects {
		if namespace, record := o.hostRecord(); namespace != "" {
			leaving[namespace] = append(leaving[namespace], record)
		}
	}
	checks := map[string]*hostNamespaceCheck{}
	reg, err := e.Registry(ctx)
	if err != nil {
		return checks
	}
	for namespace, records := range leaving {
		checks[namespace] = startNamespaceCheck(ctx, reg, namespace, records...)
	}
	return checks
}

// removeRecords deletes the objects' records from the host, several at
// once, and then each namespace the checks found held nothing else. A
// namespace is left alone once anything failed: keeping a namespace only
// leaves it behind, deleting a wrong one would delete what it holds.
func (e *Env) removeRecords(ctx context.Context, objects []*Object, checks map[string]*hostNamespaceCheck, problems *Problems) {
	problems.Append(e.eachObject(objects, func(o *Object, problems *Problems) {
		e.removeRecord(ctx, o, problems)
	})...)
	if problems.HasError() {
		return
	}
	reg, err := e.Registry(ctx)
	if err != nil {
		problems.AddError("Cannot remove the host namespaces of the federated objects", err.Error())
		return
	}
	for _, namespace := range slices.Sorted(maps.Keys(checks)) {
		checks[namespace].removeIfEmpty(ctx, e, reg, problems)
	}
}

// removeRecord deletes the object's record from the host and reports
// whether it is gone.
func (e *Env) removeRecord(ctx context.Context, o *Object, problems *Problems) bool {
	reg, err := e.Registry(ctx)
	if err == nil {
		namespace, name := o.HostLocation()
		err = reg.DeleteFederatedObject(ctx, o.Type, namespace, name)
	}
	if err != nil {
		problems.AddError(fmt.Sprintf("Cannot remove %s from the host", o.Target), err.Error())
		return false
	}
	return true
}

// removal is how one cluster's object is removed.
type removal struct {
	// held is what the state says the cluster holds.
	held string
	// orphan leaves the object in place (deletion_policy = "Orphan").
	orphan bool
	// giveBackAdopted gives an adopted object back rather than deleting it.
	giveBackAdopted bool
}

// removeFrom removes the object from member m. An object the provider
// adopted there is given back; a namespace that holds objects the
// federation does not manage is kept, and Answer.Kept says why.
func (e *Env) removeFrom(ctx context.Context, m propagation.Member, o *Object, r removal, opts propagation.Options) (propagation.Answer, error) {
	switch {
	case r.orphan:
		return propagation.Answer{}, propagation.Remove(ctx, m, o.Target, true, opts)
	case r.giveBackAdopted && heldAdopted(r.held):
		return propagation.Answer{Kept: "it was adopted (adopt = true): it is given back, not deleted"},
			propagation.GiveBack(ctx, m, o.Target, opts)
	case isNamespace(o.Target):
		if kept := namespaceKept(ctx, m, o.Target.Name); kept != "" {
			return propagation.Answer{Kept: kept}, propagation.Remove(ctx, m, o.Target, true, opts)
		}
	}
	return propagation.Answer{}, propagation.Remove(ctx, m, o.Target, false, opts)
}

// isNamespace reports whether o is a Namespace.
func isNamespace(o propagation.Object) bool {
	return o.Resource.Group == "" && o.Resource.Resource == "namespaces"
}

// namespaceKept says why a namespace of the member must not be deleted: it
// holds an object the federation does not manage, or what it holds cannot
// be seen whole. Empty when it can go.
func namespaceKept(ctx context.Context, m propagation.Member, namespace string) string {
	holder, err := propagation.UnmanagedInNamespace(ctx, m, namespace)
	switch {
	case err != nil:
		return fmt.Sprintf("what it holds cannot be seen whole (%v), and deleting it would delete whatever that is", err)
	case holder != "":
		return fmt.Sprintf("it holds %s, which the federation does not manage, and deleting the namespace would delete it too", holder)
	}
	return ""
}

// addKeptWarning says that a removal left the object on a cluster, and why.
func addKeptWarning(problems *Problems, object propagation.Object, cluster string, answer propagation.Answer) {
	if answer.Kept == "" {
		return
	}
	problems.AddWarning(fmt.Sprintf("%s stays on cluster %q", object, cluster),
		fmt.Sprintf("%s is no longer the federation's on cluster %q (the managed label is taken off), but it stays there: %s.",
			object, cluster, answer.Kept))
}
