package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// rollOut has propagation carry the operations out, stage by stage, on the
// members, and tells what it met on the way. It returns the outcomes and,
// by cluster, the object as the apply last saw it there.
func (r *federatedObjectResource) rollOut(ctx context.Context, in *objectInputs, snapshot *runstate.Snapshot,
	input reconcile.Input, ops []reconcile.Operation, diags *diag.Diagnostics) ([]reconcile.Outcome, map[string]map[string]any) {
	order, _ := in.order(input.Placed)
	rollout := propagation.Rollout{Stages: order.Stages, Staged: in.strategy.staged(), MaxFailed: in.strategy.maxFailed,
		Pause: in.strategy.pause, MaxParallel: r.data.settings.MaxParallelClusters}
	var waiter propagation.Waiter
	if in.waiter.Needed() {
		waiter = memberWaiter{r: r, in: in, snapshot: snapshot}
	}
	writer := memberWriter{r: r, in: in, snapshot: snapshot, want: input.Want}
	seen := map[string]map[string]any{}
	var outcomes []reconcile.Outcome
	for _, o := range propagation.Dispatch(ctx, ops, rollout, writer, waiter) {
		warnSkipped(in, o.Op, diags)
		addServerWarnings(diags, in.object, o.Cluster, o.Answer)
		addReclaimWarning(diags, in.object, o.Cluster, o.Answer, "The apply set")
		if o.Seen != nil {
			seen[o.Cluster] = o.Seen
		}
		outcomes = append(outcomes, o.Outcome)
	}
	return outcomes, seen
}

// warnSkipped tells about a cluster the apply leaves alone.
func warnSkipped(in *objectInputs, op reconcile.Operation, diags *diag.Diagnostics) {
	switch {
	case op.Action == reconcile.Forget:
		diags.AddWarning(fmt.Sprintf("Cluster %q is no longer registered", op.Cluster),
			fmt.Sprintf("%s stays on cluster %q: %s.", in.object, op.Cluster, op.Reason))
	case op.Action == reconcile.Skip && op.Status == reconcile.StatusClusterNotReady:
		diags.AddWarning(fmt.Sprintf("Cluster %q is not placed yet", op.Cluster),
			fmt.Sprintf("%s was not applied to cluster %q: %s.", in.object, op.Cluster, op.Reason))
	}
}

// memberWriter writes the object to a member as the plan rendered it for
// that cluster, or removes it from there.
type memberWriter struct {
	r        *federatedObjectResource
	in       *objectInputs
	snapshot *runstate.Snapshot
	want     map[string]string
}

func (w memberWriter) Write(ctx context.Context, op reconcile.Operation) (propagation.Answer, error) {
	m, err := w.r.member(w.snapshot, op.Cluster)
	if err != nil {
		return propagation.Answer{}, propagation.NotSent(err)
	}
	opts := w.r.options(w.in.force, 0)
	if op.Action == reconcile.Remove {
		return propagation.Answer{}, propagation.Remove(ctx, m, w.in.object, op.Orphan, opts)
	}
	payload, err := w.payload(ctx, m, op)
	if err != nil {
		return propagation.Answer{}, propagation.NotSent(err)
	}
	return propagation.Apply(ctx, m, w.in.object, payload, opts)
}

// payload is what an apply sends a cluster. With retain_replicas, a
// cluster whose replicas only this provider set gets its live count once
// more: the field would otherwise drop to its default as its only owner
// stops setting it.
func (w memberWriter) payload(ctx context.Context, m propagation.Member, op reconcile.Operation) ([]byte, error) {
	c, _ := w.snapshot.Cluster(op.Cluster)
	payload, err := w.in.payload(federation.Cluster{Name: c.Name, Labels: c.Labels}, w.want[op.Cluster], op.Existed)
	if err != nil || !w.in.retain || !op.Existed {
		return payload, err
	}
	return propagation.KeepReplicas(ctx, m, w.in.object, payload, w.r.data.settings.FieldManager)
}

// memberWaiter waits on a member for what the wait attribute asks.
type memberWaiter struct {
	r        *federatedObjectResource
	in       *objectInputs
	snapshot *runstate.Snapshot
}

func (w memberWaiter) Wait(ctx context.Context, cluster string) (propagation.WaitResult, error) {
	m, err := w.r.member(w.snapshot, cluster)
	if err != nil {
		return propagation.WaitResult{}, err
	}
	return propagation.Wait(ctx, m, w.in.object, w.in.waiter, propagation.DefaultWaitInterval), nil
}
