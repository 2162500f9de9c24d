package propagation

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"
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
	// ItemsAtOnce bounds how many items of a set are written at once (0:
	// all of a tier). Each item's writes reach every cluster of the stage,
	// where requests beyond the cluster's bound wait their turn, and a
	// request that waits longer than its timeout fails: a set of thousands
	// of objects written at once would make the last ones wait for all
	// the others. Waits are not bounded: a rollout waited for takes no
	// request most of the time.
	ItemsAtOnce int
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
	return DispatchSet(ctx, []Item{{Ops: ops, Writer: writer, Waiter: waiter}}, r).Outcomes[0]
}

// Item is one object of a set that is rolled out together: its
// operations, how they are written and waited for, and its tier, the step
// of a cluster's apply it belongs to (federation.ApplyOrder's index).
type Item struct {
	Ops    []reconcile.Operation
	Writer Writer
	Waiter Waiter
	Tier   int
}

// SetResult is what DispatchSet came to.
type SetResult struct {
	// Outcomes are each item's, as Dispatch returns them.
	Outcomes [][]Outcome
	// Halted is the stage after which a staged rollout stopped, with the
	// clusters that had failed by then, or -1. A staged rollout whose last
	// stage fails halts there too, with nothing left to stop: a rollback
	// gives that stage its clusters' prior set back.
	Halted int
	Failed []string
}

// DispatchSet carries out the operations of a set of objects, stage by
// stage, as Dispatch does for one: on each cluster of a stage, the items'
// writes tier by tier (a tier starts once the one before is written on
// every cluster of the stage), removals in the reverse order of the tiers,
// then the waits of every item. A cluster where an item's write failed
// gets no item of a later tier in that stage: what it would depend on is
// missing. A cluster passes a stage when every item passed there.
func DispatchSet(ctx context.Context, items []Item, r Rollout) SetResult {
	res := SetResult{Outcomes: make([][]Outcome, len(items)), Halted: -1}
	groups := make([][][]reconcile.Operation, len(items))
	for i, item := range items {
		groups[i] = reconcile.StageGroups(item.Ops, r.Stages)
	}
	stages := nonEmptyStages(groups, len(r.Stages)+1)
	passed := map[string]bool{}
	for n, s := range stages {
		set := newSetStage(items, groups, s, r)
		set.run(ctx)
		for i := range items {
			done := set.stages[i].outcomes()
			res.Outcomes[i] = append(res.Outcomes[i], done...)
		}
		maps.Copy(passed, set.passed())
		if !r.Staged || s >= len(r.Stages) {
			continue
		}
		if ok, failed := rollout.Continue(passed, r.MaxFailed); !ok {
			res.Halted, res.Failed = s, failed
			for i := range items {
				res.Outcomes[i] = append(res.Outcomes[i], stopped(groups[i][s+1:], failed)...)
			}
			return res
		}
		if n < len(stages)-1 {
			pause(ctx, r.Pause)
		}
	}
	return res
}

// nonEmptyStages are the indexes of the stages some item has work in.
func nonEmptyStages(groups [][][]reconcile.Operation, count int) []int {
	var out []int
	for s := range count {
		for _, g := range groups {
			if len(g[s]) > 0 {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// setStage is one stage of a set: each item's part of it.
type setStage struct {
	items  []Item
	stages []*stage
	// itemsAtOnce is Rollout.ItemsAtOnce.
	itemsAtOnce int
}

func newSetStage(items []Item, groups [][][]reconcile.Operation, s int, r Rollout) *setStage {
	set := &setStage{items: items, stages: make([]*stage, len(items)), itemsAtOnce: r.ItemsAtOnce}
	for i, item := range items {
		set.stages[i] = newStage(groups[i][s], item.Writer, item.Waiter, r.MaxParallel)
	}
	return set
}

// run writes the applies tier by tier, the removals in reverse, then waits.
func (s *setStage) run(ctx context.Context) {
	tiers := s.tiers()
	broken := map[string]string{}
	for _, t := range tiers {
		s.writeTier(ctx, t, isApply, broken)
	}
	for _, t := range slices.Backward(tiers) {
		s.writeTier(ctx, t, isRemove, nil)
	}
	var wg sync.WaitGroup
	for _, st := range s.stages {
		wg.Go(func() { st.waits(ctx) })
	}
	wg.Wait()
}

// tiers are the items' tiers, in order.
func (s *setStage) tiers() []int {
	var out []int
	for _, item := range s.items {
		if !slices.Contains(out, item.Tier) {
			out = append(out, item.Tier)
		}
	}
	slices.Sort(out)
	return out
}

// writeTier writes, at once, the operations of one kind of the items of a
// tier; broken, when given, holds the clusters where an earlier write
// failed, which get nothing more, and gains those where this tier failed.
func (s *setStage) writeTier(ctx context.Context, tier int, kind func(reconcile.Operation) bool, broken map[string]string) {
	var inTier []int
	for i, item := range s.items {
		if item.Tier != tier {
			continue
		}
		for cluster, why := range broken {
			s.stages[i].hold(cluster, why)
		}
		inTier = append(inTier, i)
	}
	overlap.Each(len(inTier), s.itemsAtOnce, func(j int) { s.stages[inTier[j]].writes(ctx, kind) })
	if broken == nil {
		return
	}
	for i, item := range s.items {
		if item.Tier != tier {
			continue
		}
		for _, cluster := range s.stages[i].failedWrites() {
			if _, ok := broken[cluster]; !ok {
				broken[cluster] = fmt.Sprintf("not applied: an object it depends on failed on cluster %q first", cluster)
			}
		}
	}
}

// passed is, for each cluster the stage worked on, whether every item
// passed there.
func (s *setStage) passed() map[string]bool {
	out := map[string]bool{}
	for _, st := range s.stages {
		for _, o := range st.outcomes() {
			if o.Op.Action == reconcile.Skip || o.Op.Action == reconcile.Forget {
				continue
			}
			was, seen := out[o.Cluster]
			out[o.Cluster] = o.passed() && (!seen || was)
		}
	}
	return out
}

func isApply(op reconcile.Operation) bool  { return op.Action == reconcile.Apply }
func isRemove(op reconcile.Operation) bool { return op.Action == reconcile.Remove }

// passed reports whether the cluster did what was asked and, when it was
// waited for, runs the object.
func (o Outcome) passed() bool {
	return o.Err == "" && o.Stopped == "" && (o.Rollout == "" || o.Rollout == reconcile.RolloutDone)
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

// writes carries out the stage's writes that kind selects.
func (s *stage) writes(ctx context.Context, kind func(reconcile.Operation) bool) {
	opts := Options{MaxParallel: s.maxParallel}
	clusters := s.clusters(func(j *clusterJob) bool { return j.writes() && kind(j.Op) })
	writes := FanOut(ctx, clusters, opts, func(ctx context.Context, cluster string) (Answer, error) {
		return s.writer.Write(ctx, s.jobs[cluster].Op)
	})
	for _, res := range writes {
		s.jobs[res.Cluster].wrote(res)
	}
}

// waits waits for the clusters written to, and those whose last rollout
// did not finish.
func (s *stage) waits(ctx context.Context) {
	if s.waiter == nil {
		return
	}
	opts := Options{MaxParallel: s.maxParallel}
	for _, res := range FanOut(ctx, s.clusters((*clusterJob).waits), opts, s.waiter.Wait) {
		s.jobs[res.Cluster].waited(res)
	}
}

// hold keeps a cluster's write from being carried out, saying why.
func (s *stage) hold(cluster, why string) {
	if j, ok := s.jobs[cluster]; ok && j.writes() && !j.reached {
		j.Stopped, j.held, j.reached = why, true, true
	}
}

// failedWrites are the clusters whose write failed.
func (s *stage) failedWrites() []string {
	var out []string
	for _, cluster := range s.order {
		if j := s.jobs[cluster]; j.reached && (j.Err != "" || j.held) {
			out = append(out, cluster)
		}
	}
	return out
}

// outcomes are the outcomes of the jobs that were reached.
func (s *stage) outcomes() []Outcome {
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
	// held is true when the write was kept back: an earlier write on the
	// cluster failed.
	held bool
}

// newClusterJob is the job of op. Skips and forgets have nothing to carry
// out, and a Wait is under way once there is a waiter: they are reached.
func newClusterJob(op reconcile.Operation, waiting bool) *clusterJob {
	reached := op.Action == reconcile.Skip || op.Action == reconcile.Forget || (op.Action == reconcile.Wait && waiting)
	return &clusterJob{Outcome: Outcome{Outcome: reconcile.Outcome{Cluster: op.Cluster}, Op: op}, reached: reached}
}

func (j *clusterJob) writes() bool {
	return (j.Op.Action == reconcile.Apply || j.Op.Action == reconcile.Remove) && !j.held
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
