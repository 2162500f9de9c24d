package propagation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// Writer writes one cluster's part of an apply: the object for an Apply,
// its removal (or orphaning) for a Remove. A failure before anything
// reached the member is returned as NotSent, so the outcome is certain.
type Writer interface {
	Write(ctx context.Context, op reconcile.Operation) (Answer, error)
}

// Waiter waits on one cluster until the object runs there, fails, or ctx
// ends. An error says the wait could not start.
type Waiter interface {
	Wait(ctx context.Context, cluster string) (WaitResult, error)
}

// Rollout is how an apply's operations are carried out.
type Rollout struct {
	// Stages are the placed clusters in the order they are updated, as
	// rollout.Plan orders them.
	Stages [][]string
	// Staged is a rollout strategy's: after every stage but the last, the
	// rollout stops when more than MaxFailed clusters failed so far, and
	// goes on after Pause otherwise.
	Staged    bool
	MaxFailed int
	Pause     time.Duration
	// MaxParallel bounds how many clusters are written to, or waited for,
	// at once.
	MaxParallel int
}

// Outcome is what an apply came to on one cluster.
type Outcome struct {
	// Outcome is reconcile.Fold's part.
	reconcile.Outcome
	Op reconcile.Operation
	// Answer is the member's answer to the write: its warnings and the
	// fields taken back, the write's error aside.
	Answer Answer
	// Seen is the object as the apply last saw it there: after the write,
	// or at the wait's last look; nil when it saw none.
	Seen map[string]any
}

// Dispatch carries the operations out stage by stage, in the order of
// reconcile.Stages: a stage's writes, then the waits for the clusters it
// wrote to and for those whose last rollout did not finish (none when
// waiter is nil). A staged rollout that fails on more than MaxFailed
// clusters stops: the later stages keep what they hold, and their
// outcomes say so. It returns an outcome for each operation of the stages
// it reached, skips and forgets included, in stage order and by cluster
// within a stage, and none for work that never started: the context ended
// first.
func Dispatch(ctx context.Context, ops []reconcile.Operation, r Rollout, writer Writer, waiter Waiter) []Outcome {
	stages := reconcile.Stages(ops, r.Stages)
	passed := map[string]bool{}
	var out []Outcome
	for i, ops := range stages {
		done := newStage(ops, writer, waiter, r.MaxParallel).run(ctx)
		out = append(out, done...)
		for _, o := range done {
			if o.Op.Action != reconcile.Skip && o.Op.Action != reconcile.Forget {
				passed[o.Cluster] = o.passed()
			}
		}
		if !r.Staged || i == len(stages)-1 {
			continue
		}
		if ok, failed := rollout.Continue(passed, r.MaxFailed); !ok {
			return append(out, stopped(stages[i+1:], failed)...)
		}
		pause(ctx, r.Pause)
	}
	return out
}

// passed reports whether the cluster did what was asked and, when it was
// waited for, runs the object.
func (o Outcome) passed() bool {
	return o.Err == "" && (o.Rollout == "" || o.Rollout == reconcile.RolloutDone)
}

// stage carries out one stage: all its writes, within the bound, then all
// its waits, so that a slow rollout never holds up another cluster's write.
type stage struct {
	jobs        map[string]*clusterJob
	order       []string
	writer      Writer
	waiter      Waiter
	maxParallel int
}

func newStage(ops []reconcile.Operation, writer Writer, waiter Waiter, maxParallel int) *stage {
	s := &stage{jobs: make(map[string]*clusterJob, len(ops)), writer: writer, waiter: waiter, maxParallel: maxParallel}
	for _, op := range ops {
		s.jobs[op.Cluster] = newClusterJob(op, waiter != nil)
		s.order = append(s.order, op.Cluster)
	}
	return s
}

func (s *stage) run(ctx context.Context) []Outcome {
	opts := Options{MaxParallel: s.maxParallel}
	writes := FanOut(ctx, s.clusters((*clusterJob).writes), opts, func(ctx context.Context, cluster string) (Answer, error) {
		return s.writer.Write(ctx, s.jobs[cluster].Op)
	})
	for _, res := range writes {
		s.jobs[res.Cluster].wrote(res)
	}
	if s.waiter != nil {
		for _, res := range FanOut(ctx, s.clusters((*clusterJob).waits), opts, s.waiter.Wait) {
			s.jobs[res.Cluster].waited(res)
		}
	}
	var out []Outcome
	for _, cluster := range s.order {
		if j := s.jobs[cluster]; j.reached {
			out = append(out, j.Outcome)
		}
	}
	return out
}

// clusters are the stage's clusters whose job wants what is asked.
func (s *stage) clusters(wants func(*clusterJob) bool) []string {
	var out []string
	for _, cluster := range s.order {
		if wants(s.jobs[cluster]) {
			out = append(out, cluster)
		}
	}
	return out
}

// clusterJob is one cluster's part of a stage: its operation, the write
// and the wait it takes, and what came of them.
type clusterJob struct {
	Outcome
	// reached is false while the job has nothing to show: a write that
	// never started leaves the cluster to the next apply.
	reached bool
}

// newClusterJob is the job of op. Skips and forgets have nothing to carry
// out, and a Wait is under way once there is a waiter: they are reached.
func newClusterJob(op reconcile.Operation, waiting bool) *clusterJob {
	reached := op.Action == reconcile.Skip || op.Action == reconcile.Forget || (op.Action == reconcile.Wait && waiting)
	return &clusterJob{Outcome: Outcome{Outcome: reconcile.Outcome{Cluster: op.Cluster}, Op: op}, reached: reached}
}

func (j *clusterJob) writes() bool {
	return j.Op.Action == reconcile.Apply || j.Op.Action == reconcile.Remove
}

// waits reports whether the cluster is waited for: its last rollout did
// not finish, or it took the object just now.
func (j *clusterJob) waits() bool {
	return j.Op.Action == reconcile.Wait || (j.Op.Action == reconcile.Apply && j.reached && j.Err == "")
}

func (j *clusterJob) wrote(res Result[Answer]) {
	if res.NotRun {
		return
	}
	j.reached = true
	j.Answer = res.Value
	j.Seen = res.Value.Object
	if res.Err != nil {
		j.Err = res.Err.Error()
		j.Uncertain = Uncertain(res.Err)
	}
}

// waited notes how the wait ended. A wait that never started leaves the
// outcome as the write left it.
func (j *clusterJob) waited(res Result[WaitResult]) {
	if res.NotRun || res.Err != nil {
		return
	}
	j.Rollout, j.RolloutMessage = rolloutEnd(res.Value)
	if res.Value.Object != nil {
		j.Seen = res.Value.Object
	}
}

// rolloutEnd is how a wait ended, in the outcome's words.
func rolloutEnd(w WaitResult) (string, string) {
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

// stopped are the outcomes of the writes and waits a stopped rollout
// leaves undone.
func stopped(stages [][]reconcile.Operation, failed []string) []Outcome {
	names := make([]string, len(failed))
	for i, n := range failed {
		names[i] = fmt.Sprintf("cluster %q", n)
	}
	why := fmt.Sprintf("not updated: the rollout stopped after %s failed; fix it and apply again to continue", strings.Join(names, ", "))
	var out []Outcome
	for _, stage := range stages {
		for _, op := range stage {
			if op.Action == reconcile.Apply || op.Action == reconcile.Wait || op.Action == reconcile.Remove {
				out = append(out, Outcome{Outcome: reconcile.Outcome{Cluster: op.Cluster, Stopped: why}, Op: op})
			}
		}
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
