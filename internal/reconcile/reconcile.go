// Package reconcile decides what an apply of a federated object does on
// each member cluster, and what the state says afterwards: Diff turns what
// the plan wants and what the state says each cluster holds into operations;
// Fold turns the outcomes of those operations into the new record of each
// cluster. Both are pure: carrying the operations out is propagation's job.
package reconcile

import (
	"maps"
	"slices"
)

// The status words of a cluster, KubeFed's where it has one.
const (
	StatusOK              = "OK"
	StatusClusterNotReady = "ClusterNotReady"
	StatusCreationFailed  = "CreationFailed"
	StatusUpdateFailed    = "UpdateFailed"
	StatusDeletionFailed  = "DeletionFailed"
	StatusOrphaned        = "Orphaned"
	// StatusUnknown says the provider cannot tell what the cluster holds: a
	// write was cut off in flight. The next refresh reads it back.
	StatusUnknown = "Unknown"
	// StatusRolloutFailed and StatusRolloutTimedOut say the cluster holds the
	// object but it does not run as it should: the next apply waits again.
	StatusRolloutFailed   = "RolloutFailed"
	StatusRolloutTimedOut = "RolloutTimedOut"
	// StatusNotUpdated says a staged rollout stopped before the cluster's
	// turn: it keeps what it held, and the next apply updates it.
	StatusNotUpdated = "NotUpdated"
)

// Unknown is what Held records for a cluster whose object the provider
// cannot know: the next refresh reads it back, and until then the plan
// applies the object there again, which is harmless.
const Unknown = ""

// Reach is whether a cluster can be worked on.
type Reach int

const (
	// Reachable clusters are registered with an endpoint.
	Reachable Reach = iota
	// NotRegistered clusters are gone from the registry.
	NotRegistered
	// RegisteredInRun clusters are being registered by this run and have no
	// endpoint yet: an object applied before them waits for the next apply.
	RegisteredInRun
)

// Input is what Diff looks at.
type Input struct {
	// Want is, for each cluster the plan rendered the object for, the
	// object it receives.
	Want map[string]string
	// Held is, for each cluster the state records, the object it holds, or
	// Unknown.
	Held map[string]string
	// Placed are the clusters the plan placed the object on, including
	// those it froze (not ready when planning), which have no Want entry.
	Placed []string
	// Reach says which clusters can be worked on; a cluster absent from it
	// is Reachable.
	Reach map[string]Reach
	// Orphan leaves objects in place on clusters that leave the placement.
	Orphan bool
	// Pending are clusters whose last rollout did not finish: they are
	// waited for again even when they hold what is wanted.
	Pending map[string]bool
}

// Action is what an Operation does.
type Action string

const (
	// Apply writes the wanted object.
	Apply Action = "apply"
	// Remove deletes the object, or orphans it with Input.Orphan.
	Remove Action = "remove"
	// Skip does nothing now and records Status and Reason.
	Skip Action = "skip"
	// Forget drops a cluster that left the registry from the record: the
	// provider cannot reach it, so what it holds stays there.
	Forget Action = "forget"
	// Wait writes nothing and waits for the object to run: its last
	// rollout did not finish.
	Wait Action = "wait"
)

// Operation is one cluster's part of an apply.
type Operation struct {
	Cluster string
	Action  Action
	// Existed is true when the cluster held an object before an Apply.
	Existed bool
	// Orphan is true for a Remove that leaves the object in place.
	Orphan bool
	// Status and Reason are recorded for a Skip, and explain a Forget.
	Status, Reason string
}

// Diff returns, sorted by cluster, the operations that bring every cluster
// to what the plan wants: apply where the wanted object differs from the
// held one, remove where a cluster left the placement. A cluster that stays
// placed but has nothing wanted (frozen: not ready when planning) is left
// alone.
func Diff(in Input) []Operation {
	var ops []Operation
	for _, cluster := range clusters(in) {
		want, wanted := in.Want[cluster]
		held, holds := in.Held[cluster]
		reach := in.Reach[cluster]
		switch {
		case wanted && holds && held == want && held != Unknown:
			if in.Pending[cluster] && reach == Reachable {
				ops = append(ops, Operation{Cluster: cluster, Action: Wait, Existed: true})
			}
		case wanted:
			ops = append(ops, applyOperation(cluster, holds, reach))
		case holds && !slices.Contains(in.Placed, cluster):
			ops = append(ops, removeOperation(cluster, in.Orphan, reach))
		}
	}
	return ops
}

func applyOperation(cluster string, existed bool, reach Reach) Operation {
	op := Operation{Cluster: cluster, Action: Apply, Existed: existed}
	switch reach {
	case NotRegistered:
		op.Status = failed(op)
		op.Action = Skip
		op.Reason = "the cluster is not registered any more; register it again, or take it out of the placement"
	case RegisteredInRun:
		op.Action, op.Status = Skip, StatusClusterNotReady
		op.Reason = "the cluster is registered in this run and had no endpoint yet when the object was applied; the next apply places the object"
	}
	return op
}

func removeOperation(cluster string, orphan bool, reach Reach) Operation {
	op := Operation{Cluster: cluster, Action: Remove, Orphan: orphan}
	switch reach {
	case NotRegistered:
		op.Action = Forget
		op.Reason = "the cluster left the registry, so the provider cannot reach it to remove the object; it stays there"
	case RegisteredInRun:
		op.Action, op.Status = Skip, StatusDeletionFailed
		op.Reason = "the cluster is registered again in this run and has no endpoint yet; the next apply removes the object"
	}
	return op
}

// clusters lists every cluster Input names, sorted.
func clusters(in Input) []string {
	seen := map[string]bool{}
	for c := range in.Want {
		seen[c] = true
	}
	for c := range in.Held {
		seen[c] = true
	}
	for _, c := range in.Placed {
		seen[c] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// failed is the status word of an operation that did not happen.
func failed(op Operation) string {
	switch {
	case op.Action == Remove:
		return StatusDeletionFailed
	case op.Existed:
		return StatusUpdateFailed
	default:
		return StatusCreationFailed
	}
}
