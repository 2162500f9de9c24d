package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// rollOut carries the operations out stage by stage: a stage's writes,
// then the waits for the clusters it wrote to and for those whose last
// rollout did not finish. In a staged rollout, a stage that leaves more
// failed clusters than max_failed_clusters stops it: the later stages keep
// what they hold. It returns the outcomes and, by cluster, the object as the
// apply last saw it there.
func (r *federatedObjectResource) rollOut(ctx context.Context, in *objectInputs, snapshot *runstate.Snapshot,
	input reconcile.Input, ops []reconcile.Operation, diags *diag.Diagnostics) ([]reconcile.Outcome, map[string]map[string]any) {
	order, _ := in.order(input.Placed)
	stages := reconcile.Stages(ops, order.Stages)
	seen := map[string]map[string]any{}
	passed := map[string]bool{}
	var outcomes []reconcile.Outcome
	for i, stage := range stages {
		done := r.carryOut(ctx, in, snapshot, input, stage, seen, diags)
		done = r.waitFor(ctx, in, snapshot, stage, done, seen)
		outcomes = append(outcomes, done...)
		for _, o := range done {
			passed[o.Cluster] = o.Err == "" && (o.Rollout == "" || o.Rollout == reconcile.RolloutDone)
		}
		if !in.strategy.staged() || i == len(stages)-1 {
			continue
		}
		if ok, failed := rollout.Continue(passed, in.strategy.maxFailed); !ok {
			return append(outcomes, stoppedOutcomes(stages[i+1:], failed)...), seen
		}
		pause(ctx, in.strategy.pause)
	}
	return outcomes, seen
}

// waitFor waits, in parallel, for the object to run on every cluster of
// the stage that took it or whose last rollout did not finish, and notes
// how each wait ended in its outcome.
func (r *federatedObjectResource) waitFor(ctx context.Context, in *objectInputs, snapshot *runstate.Snapshot,
	stage []reconcile.Operation, done []reconcile.Outcome, seen map[string]map[string]any) []reconcile.Outcome {
	if !in.waiter.Needed() {
		return done
	}
	byCluster := map[string]int{}
	for i, o := range done {
		byCluster[o.Cluster] = i
	}
	var members []propagation.Member
	for _, op := range stage {
		i, applied := byCluster[op.Cluster]
		ok := op.Action == reconcile.Wait || (op.Action == reconcile.Apply && applied && done[i].Err == "")
		if m, err := r.member(snapshot, op.Cluster); ok && err == nil {
			members = append(members, m)
		}
		if op.Action == reconcile.Wait && !applied {
			byCluster[op.Cluster] = len(done)
			done = append(done, reconcile.Outcome{Cluster: op.Cluster})
		}
	}
	var mu sync.Mutex
	waits := make(map[string]propagation.WaitResult, len(members))
	results := propagation.FanOut(ctx, members, r.options(false, 0), func(ctx context.Context, m propagation.Member) propagation.Result {
		w := propagation.Wait(ctx, m, in.object, in.waiter, propagation.DefaultWaitInterval)
		mu.Lock()
		defer mu.Unlock()
		waits[m.Name] = w
		return propagation.Result{}
	})
	for _, res := range results {
		if res.NotRun {
			continue
		}
		w := waits[res.Cluster]
		o := &done[byCluster[res.Cluster]]
		o.Rollout, o.RolloutMessage = rolloutEnd(w)
		if w.Object != nil {
			seen[res.Cluster] = w.Object
		}
	}
	return done
}

// rolloutEnd is how a wait ended, in the outcome's words.
func rolloutEnd(w propagation.WaitResult) (string, string) {
	st := w.Status
	switch {
	case st.Done:
		return reconcile.RolloutDone, ""
	case st.Failed:
		return reconcile.RolloutFailed, strings.TrimSpace(st.Reason + ": " + st.Message)
	case w.Err != nil:
		return reconcile.RolloutTimedOut, "timed out: the cluster could not be read (" + w.Err.Error() + ")"
	}
	return reconcile.RolloutTimedOut, "timed out waiting for the rollout: " + st.Message
}

// stoppedOutcomes are the outcomes of the operations a stopped rollout
// leaves undone.
func stoppedOutcomes(stages [][]reconcile.Operation, failed []string) []reconcile.Outcome {
	why := fmt.Sprintf("not updated: the rollout stopped after %s failed; fix it and apply again to continue",
		strings.Join(quoted(failed), ", "))
	var out []reconcile.Outcome
	for _, stage := range stages {
		for _, op := range stage {
			if op.Action == reconcile.Apply || op.Action == reconcile.Wait || op.Action == reconcile.Remove {
				out = append(out, reconcile.Outcome{Cluster: op.Cluster, Stopped: why})
			}
		}
	}
	return out
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("cluster %q", n)
	}
	return out
}

// pause waits between stages, or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
