package objectset

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// ApplyInput is what an apply of a set starts from: the plan, and what the
// state says of the set before it.
type ApplyInput struct {
	// Set is the planned set; Prior the one the state records, nil for a
	// create.
	Set, Prior *Set
	Snapshot   *runstate.Snapshot
	// Want is, by object key and cluster, what the plan renders; Held what
	// the state says each cluster holds.
	Want, Held map[string]map[string]string
	// Placed are the clusters the plan places the set on.
	Placed []string
	// PriorStatus is, by object key and cluster, the last apply's outcome.
	PriorStatus map[string]map[string]reconcile.Status
}

// ApplyResult is what an apply came to, by object key: what each cluster
// holds and the status of each, the objects as the apply last saw them,
// and which objects' host records could not be written.
type ApplyResult struct {
	// Keys are the objects the apply worked on: the set's, in order, then
	// those that left it.
	Keys      []string
	Records   map[string]reconcile.Record
	Seen      map[string]map[string]map[string]any
	Unwritten map[string]bool
	Problems  Problems
}

// setApply is one apply of a set: for each object, old or new, what the
// plan wants of it, the operations that bring every cluster there and what
// they came to.
type setApply struct {
	env      *Env
	in       ApplyInput
	keys     []string
	objects  map[string]*Object
	inputs   map[string]reconcile.Input
	ops      map[string][]reconcile.Operation
	records  map[string]reconcile.Record
	seen     map[string]map[string]map[string]any
	outcomes map[string]map[string]reconcile.Outcome
	// holding is the set with the objects that left it and clusters hold.
	holding *Set
	// rollingBack is set for the apply that rolls a failed stage back: an
	// object it adopted is given back whatever the deletion policy.
	rollingBack bool
	// rolledBack is set once a failed stage was rolled back.
	rolledBack bool
}

func newSetApply(env *Env, in ApplyInput) *setApply {
	return &setApply{env: env, in: in, objects: map[string]*Object{}, inputs: map[string]reconcile.Input{},
		ops: map[string][]reconcile.Operation{}, records: map[string]reconcile.Record{},
		seen: map[string]map[string]map[string]any{}, outcomes: map[string]map[string]reconcile.Outcome{}}
}

// Apply carries out the plan: every object's operations, as reconcile.Diff
// decides them, rolled out as one set (propagation.DispatchSet); with
// OnFailureRollback, a failed stage's clusters get their prior set back.
// The host records each object of the set, and loses the records of those
// that left it.
func (e *Env) Apply(ctx context.Context, in ApplyInput) ApplyResult {
	a := newSetApply(e, in)
	order, _ := in.Set.Order(in.Placed)
	specs := map[string]func() error{}
	for _, o := range in.Set.Objects {
		specs[o.Key.String()] = e.startSpecWrite(ctx, o, in.Prior.Get(o.Key.String()) == nil)
	}
	var problems Problems
	a.diff(ctx, &problems)
	if !a.intentsRecorded(specs, &problems) {
		a.keepAll()
		a.keepStuck()
		return ApplyResult{Keys: a.keys, Records: a.records, Seen: a.seen, Unwritten: map[string]bool{}, Problems: problems}
	}
	strategy := in.Set.Strategy
	res := propagation.DispatchSet(ctx, a.items(), propagation.Rollout{Stages: order.Stages, Staged: strategy.Staged(),
		MaxFailed: strategy.MaxFailed, Pause: strategy.Pause, MaxParallel: e.Settings.MaxParallelClusters,
		ItemsAtOnce: e.Settings.objectsAtOnce()})
	for i, key := range a.keys {
		a.fold(key, res.Outcomes[i], &problems)
	}
	exitAfterMemberWrites(in.Set.Objects)
	if res.Halted >= 0 && strategy.OnFailure == OnFailureRollback {
		a.rollBack(ctx, order.Stages[res.Halted], res.Failed, res.Halted < len(order.Stages)-1, &problems)
	}
	unwritten := a.record(ctx, specs, &problems)
	a.keepStuck()
	return ApplyResult{Keys: a.keys, Records: a.records, Seen: a.seen, Unwritten: unwritten, Problems: problems}
}

// intentsRecorded waits for the host records of the objects the apply
// creates: each is written, marked as an unfinished create, before any
// member is, so that a process killed between the member writes and the
// end of the apply leaves nothing on a member that neither the state nor
// the host knows (the next create of the same content completes it; an
// application's destroy removes it). An update's spec is written while the
// members are: its record exists already. A create whose record could not
// be written stops the apply before any member write.
func (a *setApply) intentsRecorded(specs map[string]func() error, problems *Problems) bool {
	ok := true
	for _, o := range a.in.Set.Objects {
		key := o.Key.String()
		if a.in.Prior.Get(key) != nil {
			continue
		}
		if err := specs[key](); err != nil {
			problems.AddError(fmt.Sprintf("Cannot record %s in the host", o.Target), err.Error()+
				"\n\nNothing was written to any member: a create records its object in the host first. Apply again once "+
				"the host accepts the write.")
			ok = false
		}
	}
	return ok
}

// keepAll records every object as the state had it: the apply wrote
// nothing.
func (a *setApply) keepAll() {
	for _, key := range a.keys {
		a.records[key] = a.asStateHad(key)
	}
}

// asStateHad is the record of the object with key as the state had it.
func (a *setApply) asStateHad(key string) reconcile.Record {
	return reconcile.Record{Held: maps.Clone(a.in.Held[key]), Status: maps.Clone(a.in.PriorStatus[key])}
}

// keepStuck records the objects the apply could not work on as the state
// had them: their removal is still owed.
func (a *setApply) keepStuck() {
	for _, key := range Stuck(a.holding, a.in.Held) {
		a.keys = append(a.keys, key)
		a.records[key] = a.asStateHad(key)
	}
}

// diff works out each object's operations: the plan's objects, then those
// that left the set and clusters still hold, which are removed from them.
func (a *setApply) diff(ctx context.Context, problems *Problems) {
	holding, p := a.env.Holding(ctx, a.in.Set, a.in.Prior, a.in.Held)
	problems.Append(p...)
	a.holding = holding
	for _, o := range holding.Objects {
		key := o.Key.String()
		if a.in.Set.Get(key) != nil {
			a.add(o, a.in.Want[key], a.in.Held[key], a.in.Placed, a.in.PriorStatus[key], o.Orphan)
			continue
		}
		a.add(o, nil, a.in.Held[key], nil, a.in.PriorStatus[key], o.Orphan)
	}
}

// heldKeys are the object keys held, in the order a cluster receives them.
func heldKeys(held map[string]map[string]string) []string {
	var keys []federation.Key
	for key := range held {
		if k, err := federation.ParseKey(key); err == nil {
			keys = append(keys, k)
		}
	}
	var out []string
	for _, k := range slices.Concat(federation.ApplyOrder(keys)...) {
		out = append(out, k.String())
	}
	return out
}

func (a *setApply) add(o *Object, want, held map[string]string, placed []string, priorStatus map[string]reconcile.Status, orphan bool) {
	key := o.Key.String()
	if want == nil {
		want = map[string]string{}
	}
	if held == nil {
		held = map[string]string{}
	}
	input := reconcile.Input{Want: want, Held: held, Placed: placed, Reach: map[string]reconcile.Reach{}, Orphan: orphan,
		Pending: PendingRollouts(o, priorStatus)}
	for _, names := range [][]string{slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(held))} {
		for _, name := range names {
			input.Reach[name] = reachOf(a.in.Snapshot, name)
		}
	}
	a.keys = append(a.keys, key)
	a.objects[key], a.inputs[key], a.ops[key] = o, input, reconcile.Diff(input)
}

func reachOf(snapshot *runstate.Snapshot, name string) reconcile.Reach {
	c, ok := snapshot.Cluster(name)
	switch {
	case !ok:
		return reconcile.NotRegistered
	case c.Connection.APIEndpoint == "":
		return reconcile.RegisteredInRun
	}
	return reconcile.Reachable
}

// items are the objects' work for propagation, each written as its input wants.
func (a *setApply) items() []propagation.Item {
	items := make([]propagation.Item, len(a.keys))
	for i, key := range a.keys {
		o := a.objects[key]
		items[i] = propagation.Item{
			Ops: a.ops[key],
			Writer: memberWriter{env: a.env, o: o, snapshot: a.in.Snapshot, want: a.inputs[key].Want, held: a.inputs[key].Held,
				giveBackAdopted: a.rollingBack || !o.DeleteAdopted},
			Tier: federation.Tier(o.Key),
		}
		if o.Waiter.Needed() {
			items[i].Waiter = memberWaiter{env: a.env, o: o, snapshot: a.in.Snapshot}
		}
	}
	return items
}

// fold records what an object's outcomes came to.
func (a *setApply) fold(key string, outcomes []propagation.Outcome, problems *Problems) {
	o := a.objects[key]
	var folded []reconcile.Outcome
	seen := map[string]map[string]any{}
	a.outcomes[key] = map[string]reconcile.Outcome{}
	for _, out := range outcomes {
		a.outcomes[key][out.Cluster] = out.Outcome
		warnSkipped(o, out.Op, problems)
		addServerWarnings(problems, o.Target, out.Cluster, out.Answer)
		addReclaimWarning(problems, o.Target, out.Cluster, out.Answer, "The apply set")
		addKeptWarning(problems, o.Target, out.Cluster, out.Answer)
		if out.Seen != nil {
			seen[out.Cluster] = out.Seen
		}
		folded = append(folded, out.Outcome)
	}
	record := reconcile.Fold(a.inputs[key], a.ops[key], folded)
	for cluster, s := range record.Status {
		s.Message = Redact(s.Message, o.Secrets)
		record.Status[cluster] = s
	}
	a.records[key], a.seen[key] = record, seen
}

// rollBack gives the clusters of a failed stage the set the state recorded
// before this apply, and says so in an error. What the failed apply added
// is removed whatever the deletion policy: it never was the user's.
func (a *setApply) rollBack(ctx context.Context, clusters, failed []string, later bool, problems *Problems) {
	back := newSetApply(a.env, a.in)
	back.rollingBack, a.rolledBack = true, true
	for _, key := range a.keys {
		o := a.objects[key]
		if was := a.in.Prior.Get(key); was != nil {
			o = was
		}
		want, held, placed := map[string]string{}, map[string]string{}, []string{}
		for _, c := range clusters {
			if text, ok := a.in.Held[key][c]; ok {
				want[c], placed = text, append(placed, c)
			}
			if text, ok := a.records[key].Held[c]; ok {
				held[c] = text
			}
		}
		back.add(o, want, held, placed, nil, false)
	}
	res := propagation.DispatchSet(ctx, back.items(), propagation.Rollout{Stages: [][]string{clusters},
		MaxParallel: a.env.Settings.MaxParallelClusters, ItemsAtOnce: a.env.Settings.objectsAtOnce()})
	var failures []string
	secrets := append(a.in.Set.Secrets(), a.in.Prior.Secrets()...)
	for i, key := range back.keys {
		back.fold(key, res.Outcomes[i], problems)
		failures = append(failures, a.takeRolledBack(key, back.records[key], clusters, secrets)...)
	}
	detail := fmt.Sprintf("The stage of clusters %s failed (%s), so they were rolled back: given back the set the state "+
		"recorded before this apply, objects the apply added removed and changed ones written as they were.",
		strings.Join(quoted(clusters), ", "), strings.Join(quoted(failed), ", "))
	if later {
		detail += " Later stages were not updated."
	}
	if len(failures) > 0 {
		detail += "\n\nThe rollback itself failed for:\n- " + strings.Join(failures, "\n- ")
	}
	problems.AddError("Rolled back after a failed stage", detail)
}

// takeRolledBack puts what the rollback left on clusters into the record
// of the object with key, and names where the rollback itself failed;
// secrets are the values of both sets' Secrets, kept out of its messages.
func (a *setApply) takeRolledBack(key string, back reconcile.Record, clusters, secrets []string) []string {
	var failures []string
	rec := a.records[key]
	for _, c := range clusters {
		delete(rec.Held, c)
		if text, ok := back.Held[c]; ok {
			rec.Held[c] = text
		}
		if s, ok := back.Status[c]; ok && s.Failed() {
			failures = append(failures, fmt.Sprintf("%s on cluster %q: %s", a.objects[key].Key.Object(), c, s.Message))
		} else if s, ok := rec.Status[c]; ok {
			s = RolledBackStatus(s, a.outcomes[key][c])
			s.Message = Redact(s.Message, secrets)
			rec.Status[c] = s
		}
	}
	return failures
}

// RolledBackStatus is the status of an object on a cluster a rollback gave
// its prior set back: how the failed stage's apply of it ended there, and
// that the cluster holds it as before, not as the failed apply left it.
func RolledBackStatus(s reconcile.Status, out reconcile.Outcome) reconcile.Status {
	if !s.Failed() {
		return s
	}
	why := s.Message
	switch {
	case out.Rollout != "" && out.RolloutMessage != "":
		why = "the rollout " + out.Rollout + ": " + out.RolloutMessage
	case out.Err != "":
		why = out.Err
	}
	return reconcile.Status{Status: s.Status, Message: why + "; rolled back: the cluster holds the object as the state " +
		"recorded it before this apply, and the next apply writes the planned one again"}
}

// warnSkipped tells about a cluster the apply leaves alone.
func warnSkipped(o *Object, op reconcile.Operation, problems *Problems) {
	switch {
	case op.Action == reconcile.Forget:
		problems.AddWarning(fmt.Sprintf("Cluster %q is no longer registered", op.Cluster),
			fmt.Sprintf("%s stays on cluster %q: %s.", o.Target, op.Cluster, op.Reason))
	case op.Action == reconcile.Skip && op.Status == reconcile.StatusClusterNotReady:
		problems.AddWarning(fmt.Sprintf("Cluster %q is not placed yet", op.Cluster),
			fmt.Sprintf("%s was not applied to cluster %q: %s.", o.Target, op.Cluster, op.Reason))
	}
}

// addServerWarnings shows what a member's API server warned about the
// object, once per cluster.
func addServerWarnings(problems *Problems, object propagation.Object, cluster string, answer propagation.Answer) {
	if len(answer.Warnings) == 0 {
		return
	}
	problems.AddWarning(fmt.Sprintf("Cluster %q warns about %s", cluster, object),
		"The cluster's API server answered with these warnings:\n- "+strings.Join(answer.Warnings, "\n- "))
}

// addReclaimWarning says which fields a member's update-style writers had
// changed, and that the apply takes them back; verb is "The apply sets"
// at plan, "The apply set" after it.
func addReclaimWarning(problems *Problems, object propagation.Object, cluster string, answer propagation.Answer, verb string) {
	if len(answer.Reclaimed) == 0 {
		return
	}
	problems.AddWarning(fmt.Sprintf("Cluster %q: fields of %s are taken back", cluster, object),
		fmt.Sprintf("On cluster %q, %s changed fields the template sets (an update-style writer: kubectl edit or patch, a "+
			"client's Update). %s them back to the template's values and takes their ownership back; the other fields of "+
			"those writers are left alone.", cluster, answer.Reclaimed, verb))
}

// reportFailures turns the clusters that failed into one error.
func reportFailures(o *Object, record reconcile.Record, problems *Problems) {
	var failed []string
	for _, cluster := range slices.Sorted(maps.Keys(record.Status)) {
		if s := record.Status[cluster]; s.Failed() {
			failed = append(failed, fmt.Sprintf("cluster %q (%s): %s", cluster, s.Status, s.Message))
		}
	}
	if len(failed) > 0 {
		problems.AddError(fmt.Sprintf("Propagation of %s failed on %d cluster(s)", o.Target, len(failed)),
			strings.Join(failed, "\n")+"\n\nThe other clusters were updated; the state records what each cluster holds, "+
				"so the next plan shows only the remaining work.")
	}
}

// memberWriter writes the object to a member as the plan rendered it for
// that cluster, or removes it from there.
type memberWriter struct {
	env        *Env
	o          *Object
	snapshot   *runstate.Snapshot
	want, held map[string]string
	// giveBackAdopted gives an adopted object back on removal rather than
	// deleting it.
	giveBackAdopted bool
}

func (w memberWriter) Write(ctx context.Context, op reconcile.Operation) (propagation.Answer, error) {
	m, err := w.env.Member(w.snapshot, op.Cluster)
	if err != nil {
		return propagation.Answer{}, propagation.NotSent(err)
	}
	opts := w.env.options(w.o.Force, 0)
	if op.Action == reconcile.Remove {
		return w.env.removeFrom(ctx, m, w.o, removal{held: w.held[op.Cluster], orphan: op.Orphan, giveBackAdopted: w.giveBackAdopted}, opts)
	}
	payload, err := w.payload(ctx, m, op)
	if err != nil {
		return propagation.Answer{}, propagation.NotSent(err)
	}
	return propagation.Apply(ctx, m, w.o.Target, payload, opts)
}

// payload is what an apply sends a cluster. With retain_replicas, a
// cluster whose replicas only this provider set gets its live count once
// more: the field would otherwise drop to its default as its only owner
// stops setting it.
func (w memberWriter) payload(ctx context.Context, m propagation.Member, op reconcile.Operation) ([]byte, error) {
	c, _ := w.snapshot.Cluster(op.Cluster)
	payload, err := w.o.payload(federation.Cluster{Name: c.Name, Labels: c.Labels}, w.want[op.Cluster], op.Existed)
	if err != nil || !w.o.Retain || !op.Existed {
		return payload, err
	}
	return propagation.KeepReplicas(ctx, m, w.o.Target, payload, w.env.Settings.FieldManager)
}

// memberWaiter waits on a member for what the wait attribute asks.
type memberWaiter struct {
	env      *Env
	o        *Object
	snapshot *runstate.Snapshot
}

func (w memberWaiter) Wait(ctx context.Context, cluster string) (propagation.WaitResult, error) {
	m, err := w.env.Member(w.snapshot, cluster)
	if err != nil {
		return propagation.WaitResult{}, err
	}
	return propagation.Wait(ctx, m, w.o.Target, w.o.Waiter, propagation.DefaultWaitInterval), nil
}
