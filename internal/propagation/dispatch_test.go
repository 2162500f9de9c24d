package propagation

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// calls is the log of what the fakes were asked, in order.
type calls struct {
	mu  sync.Mutex
	log []string
}

func (c *calls) add(entry string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, entry)
}

// fakeWriter answers every write with the cluster's error, if any, and
// the object it then holds; cancel, when set, is called by the write of
// cancelAt, which is then cut off in flight.
type fakeWriter struct {
	calls    *calls
	errs     map[string]error
	cancelAt string
	cancel   context.CancelFunc
}

func (w *fakeWriter) Write(ctx context.Context, op reconcile.Operation) (Answer, error) {
	w.calls.add(fmt.Sprintf("%s %s", op.Action, op.Cluster))
	if op.Cluster == w.cancelAt {
		w.cancel()
		return Answer{}, fmt.Errorf("patch: %w", ctx.Err())
	}
	if err := w.errs[op.Cluster]; err != nil {
		return Answer{Warnings: []string{"warned by " + op.Cluster}}, err
	}
	return Answer{Object: map[string]any{"written": op.Cluster}}, nil
}

// fakeWaiter ends every wait as waits says, done by default.
type fakeWaiter struct {
	calls *calls
	waits map[string]WaitResult
}

func (w *fakeWaiter) Wait(_ context.Context, cluster string) (WaitResult, error) {
	w.calls.add("wait " + cluster)
	if res, ok := w.waits[cluster]; ok {
		return res, nil
	}
	return WaitResult{Cluster: cluster, Status: rollout.Status{Done: true}, Object: map[string]any{"running": cluster}}, nil
}

func applyOn(cluster string) reconcile.Operation {
	return reconcile.Operation{Cluster: cluster, Action: reconcile.Apply}
}

// summary is an outcome in one line: the cluster, what it was asked, and
// what came of it.
func summary(o Outcome) string {
	parts := []string{o.Cluster, string(o.Op.Action)}
	if o.Err != "" {
		parts = append(parts, fmt.Sprintf("err=%q uncertain=%v", o.Err, o.Uncertain))
	}
	if o.Rollout != "" {
		parts = append(parts, fmt.Sprintf("rollout=%s %q", o.Rollout, o.RolloutMessage))
	}
	if o.Stopped != "" {
		parts = append(parts, "stopped="+o.Stopped)
	}
	if o.Seen != nil {
		parts = append(parts, fmt.Sprintf("seen=%v", o.Seen))
	}
	if len(o.Answer.Warnings) > 0 {
		parts = append(parts, "warnings="+strings.Join(o.Answer.Warnings, ","))
	}
	return strings.Join(parts, " ")
}

func TestDispatch(t *testing.T) {
	refused := errors.New(`configmaps default/web: cluster "b" rejects the object: data: Invalid value`)
	tests := []struct {
		name     string
		ops      []reconcile.Operation
		rollout  Rollout
		noWaiter bool
		errs     map[string]error
		waits    map[string]WaitResult
		cancelAt string
		want     []string
		// wantCalls are the fakes' calls, one at a time, in order.
		wantCalls []string
	}{
		{
			name:      "one stage, every cluster takes the object and runs it",
			ops:       []reconcile.Operation{applyOn("a"), applyOn("b")},
			rollout:   Rollout{Stages: [][]string{{"a", "b"}}},
			want:      []string{`a apply rollout=done "" seen=map[running:a]`, `b apply rollout=done "" seen=map[running:b]`},
			wantCalls: []string{"apply a", "apply b", "wait a", "wait b"},
		},
		{
			name:      "without a waiter the writes are all there is",
			ops:       []reconcile.Operation{applyOn("a"), {Cluster: "b", Action: reconcile.Wait, Existed: true}},
			rollout:   Rollout{Stages: [][]string{{"a", "b"}}},
			noWaiter:  true,
			want:      []string{"a apply seen=map[written:a]"},
			wantCalls: []string{"apply a"},
		},
		{
			name:    "a failed cluster stops the later stages, which keep what they hold",
			ops:     []reconcile.Operation{applyOn("a"), applyOn("b"), applyOn("c"), {Cluster: "d", Action: reconcile.Wait, Existed: true}},
			rollout: Rollout{Stages: [][]string{{"a", "b"}, {"c", "d"}}, Staged: true},
			errs:    map[string]error{"b": NotSent(refused)},
			want: []string{
				`a apply rollout=done "" seen=map[running:a]`,
				fmt.Sprintf("b apply err=%q uncertain=false warnings=warned by b", refused),
				`c apply stopped=not updated: the rollout stopped after cluster "b" failed; fix it and apply again to continue`,
				`d wait stopped=not updated: the rollout stopped after cluster "b" failed; fix it and apply again to continue`,
			},
			wantCalls: []string{"apply a", "apply b", "wait a"},
		},
		{
			name:    "failures within max_failed_clusters let the rollout go on",
			ops:     []reconcile.Operation{applyOn("a"), applyOn("b")},
			rollout: Rollout{Stages: [][]string{{"a"}, {"b"}}, Staged: true, MaxFailed: 1},
			errs:    map[string]error{"a": NotSent(refused)},
			want: []string{
				fmt.Sprintf("a apply err=%q uncertain=false warnings=warned by a", refused),
				`b apply rollout=done "" seen=map[running:b]`,
			},
			wantCalls: []string{"apply a", "apply b", "wait b"},
		},
		{
			name:    "a rollout that fails on a cluster fails the stage",
			ops:     []reconcile.Operation{applyOn("a"), applyOn("b")},
			rollout: Rollout{Stages: [][]string{{"a"}, {"b"}}, Staged: true},
			waits: map[string]WaitResult{"a": {Status: rollout.Status{Failed: true, Reason: "ProgressDeadlineExceeded", Message: "no progress"},
				Object: map[string]any{"stuck": "a"}}},
			want: []string{
				`a apply rollout=failed "ProgressDeadlineExceeded: no progress" seen=map[stuck:a]`,
				`b apply stopped=not updated: the rollout stopped after cluster "a" failed; fix it and apply again to continue`,
			},
			wantCalls: []string{"apply a", "wait a"},
		},
		{
			name:    "a wait that runs out of time, or cannot read the cluster, times out",
			ops:     []reconcile.Operation{applyOn("a"), {Cluster: "b", Action: reconcile.Wait, Existed: true}},
			rollout: Rollout{Stages: [][]string{{"a", "b"}}},
			waits: map[string]WaitResult{
				"a": {Status: rollout.Status{Message: "2 of 3 replicas available"}, TimedOut: true},
				"b": {Err: errors.New("connection refused"), TimedOut: true},
			},
			want: []string{
				`a apply rollout=timed out "timed out waiting for the rollout: 2 of 3 replicas available" seen=map[written:a]`,
				`b wait rollout=timed out "timed out: the cluster could not be read (connection refused)"`,
			},
			wantCalls: []string{"apply a", "wait a", "wait b"},
		},
		{
			name:     "cancelled mid-stage: the write cut off is uncertain, the clusters not reached have no outcome",
			ops:      []reconcile.Operation{applyOn("a"), applyOn("b"), applyOn("c"), applyOn("d")},
			rollout:  Rollout{Stages: [][]string{{"a", "b", "c"}, {"d"}}},
			cancelAt: "b",
			want: []string{
				"a apply seen=map[written:a]",
				`b apply err="patch: context canceled" uncertain=true`,
			},
			wantCalls: []string{"apply a", "apply b"},
		},
		{
			name: "removals, skips and forgets come after the last stage",
			ops: []reconcile.Operation{
				applyOn("a"),
				{Cluster: "gone", Action: reconcile.Forget, Reason: "left the registry"},
				{Cluster: "kept", Action: reconcile.Remove, Orphan: true},
				{Cluster: "new", Action: reconcile.Skip, Status: reconcile.StatusClusterNotReady},
				{Cluster: "old", Action: reconcile.Remove},
			},
			rollout: Rollout{Stages: [][]string{{"a"}}, Staged: true},
			errs:    map[string]error{"kept": errors.New("connection reset")},
			want: []string{
				`a apply rollout=done "" seen=map[running:a]`,
				"gone forget",
				`kept remove err="connection reset" uncertain=true warnings=warned by kept`,
				"new skip",
				"old remove seen=map[written:old]",
			},
			wantCalls: []string{"apply a", "wait a", "remove kept", "remove old"},
		},
		{
			name:    "stages run in order: each one's writes, then its waits",
			ops:     []reconcile.Operation{applyOn("a"), applyOn("b"), applyOn("c"), {Cluster: "z", Action: reconcile.Remove}},
			rollout: Rollout{Stages: [][]string{{"c"}, {"a", "b"}}, Staged: true, Pause: time.Millisecond},
			want: []string{
				`c apply rollout=done "" seen=map[running:c]`,
				`a apply rollout=done "" seen=map[running:a]`,
				`b apply rollout=done "" seen=map[running:b]`,
				"z remove seen=map[written:z]",
			},
			wantCalls: []string{"apply c", "wait c", "apply a", "apply b", "wait a", "wait b", "remove z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			log := &calls{}
			writer := &fakeWriter{calls: log, errs: tt.errs, cancelAt: tt.cancelAt, cancel: cancel}
			var waiter Waiter = &fakeWaiter{calls: log, waits: tt.waits}
			if tt.noWaiter {
				waiter = nil
			}
			r := tt.rollout
			r.MaxParallel = 1
			var got []string
			for _, o := range Dispatch(ctx, tt.ops, r, writer, waiter) {
				got = append(got, summary(o))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("outcomes:\n got  %q\n want %q", got, tt.want)
			}
			if !slices.Equal(log.log, tt.wantCalls) {
				t.Errorf("calls %q, want %q", log.log, tt.wantCalls)
			}
		})
	}
}

// With room for every cluster, a stage's writes all start before any of
// its waits, and the next stage's only after them.
func TestDispatchWritesAStageTogether(t *testing.T) {
	log := &calls{}
	ops := []reconcile.Operation{applyOn("a"), applyOn("b"), applyOn("c")}
	Dispatch(context.Background(), ops, Rollout{Stages: [][]string{{"a", "b"}, {"c"}}, Staged: true, MaxParallel: 3},
		&fakeWriter{calls: log}, &fakeWaiter{calls: log})
	phases := [][]string{log.log[:2], log.log[2:4], log.log[4:]}
	for _, p := range phases {
		slices.Sort(p)
	}
	want := [][]string{{"apply a", "apply b"}, {"wait a", "wait b"}, {"apply c", "wait c"}}
	if !reflect.DeepEqual(phases, want) {
		t.Errorf("calls %q, want the phases %q", log.log, want)
	}
}

// Folded, a dispatch that was cut short leaves every cluster it did not
// finish to the next apply: what the state holds for them does not change.
func TestDispatchCutShortFoldsToTheNextApply(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := reconcile.Input{
		Want:   map[string]string{"a": "v2", "b": "v2", "c": "v2"},
		Held:   map[string]string{"a": "v1", "b": "v1", "c": "v1"},
		Placed: []string{"a", "b", "c"},
	}
	ops := reconcile.Diff(in)
	done := Dispatch(ctx, ops, Rollout{Stages: [][]string{{"a", "b", "c"}}, MaxParallel: 1},
		&fakeWriter{calls: &calls{}, cancelAt: "b", cancel: cancel}, &fakeWaiter{calls: &calls{}})
	outcomes := make([]reconcile.Outcome, len(done))
	for i, o := range done {
		outcomes[i] = o.Outcome
	}
	rec := reconcile.Fold(in, ops, outcomes)
	want := map[string]string{"a": "v2", "b": reconcile.Unknown, "c": "v1"}
	if !reflect.DeepEqual(rec.Held, want) {
		t.Errorf("held %v, want %v", rec.Held, want)
	}
	if s := rec.Status["c"]; s.Status != reconcile.StatusUpdateFailed || !strings.Contains(s.Message, "before this cluster was reached") {
		t.Errorf("cluster c: %+v, want it left to the next apply", s)
	}
}
