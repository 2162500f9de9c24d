package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

func (r *federatedApplicationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan federatedApplicationModel
	resp.Diagnostics.Append(applicationModels.fromPlan(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.write(ctx, &plan, nil, plan.Timeouts.Create, &resp.Diagnostics) {
		resp.Diagnostics.Append(applicationModels.toState(ctx, &resp.State, &plan)...)
		applicationIdentity.set(ctx, resp.Identity, plan.ID, &resp.Diagnostics)
		resp.Diagnostics.Append(r.objects.data.noteMemberEndpoints(ctx, resp.Private, applicationClusters(&plan))...)
	}
	resp.Diagnostics.Append(forgetNotes(ctx, resp.Private, registeredAtReadNote)...)
}

func (r *federatedApplicationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior federatedApplicationModel
	resp.Diagnostics.Append(applicationModels.fromPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(applicationModels.fromState(ctx, req.State, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.objects.data.dialMembersAhead(ctx, req.Private)...)
	if !r.write(ctx, &plan, &prior, plan.Timeouts.Update, &resp.Diagnostics) {
		plan = prior
	}
	resp.Diagnostics.Append(applicationModels.toState(ctx, &resp.State, &plan)...)
	applicationIdentity.set(ctx, resp.Identity, plan.ID, &resp.Diagnostics)
	resp.Diagnostics.Append(r.objects.data.noteMemberEndpoints(ctx, resp.Private, applicationClusters(&plan))...)
	resp.Diagnostics.Append(forgetNotes(ctx, resp.Private, registeredAtReadNote)...)
}

// write applies the plan within the operation's timeout and reports
// whether anything was written.
func (r *federatedApplicationResource) write(ctx context.Context, plan, prior *federatedApplicationModel,
	timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), diags *diag.Diagnostics) bool {
	d, tdiags := timeout(ctx, defaultOperationTimeout)
	diags.Append(tdiags...)
	if diags.HasError() {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return r.apply(ctx, plan, prior, diags)
}

// setApply is one apply of a set: for each object, old or new, what the
// plan wants of it, the operations that bring every cluster there and what
// they came to.
type setApply struct {
	set, prior *appSet
	snapshot   *runstate.Snapshot
	keys       []string
	objects    map[string]*appObject
	inputs     map[string]reconcile.Input
	ops        map[string][]reconcile.Operation
	records    map[string]reconcile.Record
	seen       map[string]map[string]map[string]any
	// outcomes are, by object and cluster, how the operations ended.
	outcomes map[string]map[string]reconcile.Outcome
	// unwritten are the objects whose host record the apply could not
	// write; record fills it, objects at once.
	unwrittenMu sync.Mutex
	unwritten   map[string]bool
}

// apply carries out the plan: every object's operations, as reconcile.Diff
// decides them, rolled out as one set (propagation.DispatchSet); with
// on_failure = "rollback", a failed stage's clusters get their prior set
// back. The host records each object; plan becomes the new state. It
// reports false when it stopped before writing anything.
func (r *federatedApplicationResource) apply(ctx context.Context, plan, prior *federatedApplicationModel, diags *diag.Diagnostics) bool {
	a, ok := r.applyInputs(ctx, plan, prior, diags)
	if !ok {
		return false
	}
	defer redactDiagnostics(diags, a.secrets())
	order, _ := a.set.order(setStrings(plan.PlacedClusters))
	specs := map[string]<-chan error{}
	for _, o := range a.set.objects {
		_, known := a.prior.byKey[o.key.String()]
		specs[o.key.String()] = r.objects.startSpecWrite(ctx, o.in, !known)
	}
	items := a.items(r, func(o *appObject) map[string]string { return a.inputs[o.key.String()].Want })
	strategy := a.strategy()
	res := propagation.DispatchSet(ctx, items, propagation.Rollout{Stages: order.Stages, Staged: strategy.staged(),
		MaxFailed: strategy.maxFailed, Pause: strategy.pause, MaxParallel: r.objects.data.settings.MaxParallelClusters})
	for i, key := range a.keys {
		a.fold(key, res.Outcomes[i], diags)
	}
	if res.Halted >= 0 && a.set.onFailure == onFailureRollback {
		r.rollBack(ctx, a, prior, order.Stages[res.Halted], res.Failed, diags)
	}
	r.record(ctx, a, specs, diags)
	a.toState(plan, prior, diags)
	return true
}

// applyInputs reads both sets, the registry, and fills what the plan left
// to apply.
func (r *federatedApplicationResource) applyInputs(ctx context.Context, plan, prior *federatedApplicationModel, diags *diag.Diagnostics) (*setApply, bool) {
	if _, err := r.objects.data.bootstrappedRegistry(ctx); err != nil {
		diags.AddError("Cannot write the application", err.Error())
		return nil, false
	}
	a := &setApply{objects: map[string]*appObject{}, inputs: map[string]reconcile.Input{}, ops: map[string][]reconcile.Operation{},
		records: map[string]reconcile.Record{}, seen: map[string]map[string]map[string]any{}, unwritten: map[string]bool{}}
	var d diag.Diagnostics
	a.set, d = r.set(ctx, plan)
	diags.Append(d...)
	a.prior = &appSet{byKey: map[string]*appObject{}}
	if prior != nil {
		a.prior, d = r.set(ctx, prior)
		diags.Append(d...)
	}
	snapshot, err := r.objects.data.snapshot(ctx)
	if err != nil {
		diags.AddError("Cannot read the registered clusters", err.Error())
	}
	if diags.HasError() {
		return nil, false
	}
	a.snapshot = snapshot
	held := heldByObject(prior)
	if plan.Rendered.IsUnknown() || plan.PlacedClusters.IsUnknown() {
		if prior == nil {
			r.refuseOwned(ctx, a.set, held, diags)
		}
		outs, _ := r.desired(ctx, a.set, snapshot, nil, held, diags)
		if diags.HasError() {
			return nil, false
		}
		plan.Rendered, plan.PlacedClusters = nestedStrings(renderedOf(outs)), stringSet(placedOf(outs))
		plan.Objects = stringList(a.set.keys())
	}
	if plan.RolloutPlan.IsUnknown() {
		order, _ := a.set.order(setStrings(plan.PlacedClusters))
		plan.RolloutPlan = rolloutPlanValue(order.Stages, diags)
	}
	plan.ID = plan.Name
	a.diff(plan, prior)
	return a, true
}

// diff works out each object's operations: the plan's objects, then those
// that left the set, which are removed from every cluster.
func (a *setApply) diff(plan, prior *federatedApplicationModel) {
	want, held := heldByObject(plan), heldByObject(prior)
	placed := setStrings(plan.PlacedClusters)
	for _, o := range a.set.objects {
		a.add(o, want[o.key.String()], held[o.key.String()], placed, prior)
	}
	for _, k := range keysOf(prior) {
		if o, gone := a.prior.byKey[k.String()]; gone && a.set.byKey[k.String()] == nil {
			a.add(o, nil, held[k.String()], nil, prior)
		}
	}
}

func (a *setApply) add(o *appObject, want, held map[string]string, placed []string, prior *federatedApplicationModel) {
	key := o.key.String()
	if want == nil {
		want = map[string]string{}
	}
	if held == nil {
		held = map[string]string{}
	}
	input := reconcile.Input{Want: want, Held: held, Placed: placed, Reach: map[string]reconcile.Reach{}, Orphan: o.in.orphan,
		Pending: pendingRollouts(o.in, appObjectState(prior, key))}
	for _, names := range [][]string{sortedKeys(want), sortedKeys(held)} {
		for _, name := range names {
			input.Reach[name] = reachOf(a.snapshot, name)
		}
	}
	a.keys = append(a.keys, key)
	a.objects[key], a.inputs[key], a.ops[key] = o, input, reconcile.Diff(input)
}

// items are the objects' work for propagation, each written as want says.
func (a *setApply) items(r *federatedApplicationResource, want func(*appObject) map[string]string) []propagation.Item {
	items := make([]propagation.Item, len(a.keys))
	for i, key := range a.keys {
		o := a.objects[key]
		items[i] = propagation.Item{
			Ops:    a.ops[key],
			Writer: memberWriter{r: &r.objects, in: o.in, snapshot: a.snapshot, want: want(o)},
			Tier:   federation.Tier(o.key),
		}
		if o.in.waiter.Needed() {
			items[i].Waiter = memberWaiter{r: &r.objects, in: o.in, snapshot: a.snapshot}
		}
	}
	return items
}

// fold records what an object's outcomes came to.
func (a *setApply) fold(key string, outcomes []propagation.Outcome, diags *diag.Diagnostics) {
	o := a.objects[key]
	var folded []reconcile.Outcome
	seen := map[string]map[string]any{}
	if a.outcomes == nil {
		a.outcomes = map[string]map[string]reconcile.Outcome{}
	}
	a.outcomes[key] = map[string]reconcile.Outcome{}
	for _, out := range outcomes {
		a.outcomes[key][out.Cluster] = out.Outcome
		warnSkipped(o.in, out.Op, diags)
		addServerWarnings(diags, o.in.object, out.Cluster, out.Answer)
		addReclaimWarning(diags, o.in.object, out.Cluster, out.Answer, "The apply set")
		if out.Seen != nil {
			seen[out.Cluster] = out.Seen
		}
		folded = append(folded, out.Outcome)
	}
	record := reconcile.Fold(a.inputs[key], a.ops[key], folded)
	for cluster, s := range record.Status {
		s.Message = redact(s.Message, o.in.secrets)
		record.Status[cluster] = s
	}
	a.records[key], a.seen[key] = record, seen
}

func (a *setApply) strategy() strategy {
	if len(a.set.objects) == 0 {
		return strategy{}
	}
	return a.set.objects[0].in.strategy
}

func (a *setApply) secrets() []string {
	return append(a.set.secrets(), a.prior.secrets()...)
}

// order is the rollout order of the placed clusters.
func (s *appSet) order(placed []string) (rollout.Order, error) {
	if len(s.objects) == 0 {
		return rollout.Order{Stages: [][]string{placed}}, nil
	}
	return s.objects[0].in.order(placed)
}

// rollBack gives the clusters of a failed stage the set the state recorded
// before this apply, and says so in an error.
func (r *federatedApplicationResource) rollBack(ctx context.Context, a *setApply, prior *federatedApplicationModel,
	clusters, failed []string, diags *diag.Diagnostics) {
	back := &setApply{set: a.set, prior: a.prior, snapshot: a.snapshot, objects: map[string]*appObject{},
		inputs: map[string]reconcile.Input{}, ops: map[string][]reconcile.Operation{}, records: map[string]reconcile.Record{},
		seen: map[string]map[string]map[string]any{}}
	before := heldByObject(prior)
	for _, key := range a.keys {
		o := a.objects[key]
		if was, ok := a.prior.byKey[key]; ok {
			o = was
		}
		want, held, placed := map[string]string{}, map[string]string{}, []string{}
		for _, c := range clusters {
			if text, ok := before[key][c]; ok {
				want[c], placed = text, append(placed, c)
			}
			if text, ok := a.records[key].Held[c]; ok {
				held[c] = text
			}
		}
		back.add(o, want, held, placed, nil)
	}
	items := back.items(r, func(o *appObject) map[string]string { return back.inputs[o.key.String()].Want })
	res := propagation.DispatchSet(ctx, items, propagation.Rollout{Stages: [][]string{clusters},
		MaxParallel: r.objects.data.settings.MaxParallelClusters})
	var problems []string
	for i, key := range back.keys {
		back.fold(key, res.Outcomes[i], diags)
		rec := a.records[key]
		for _, c := range clusters {
			delete(rec.Held, c)
			if text, ok := back.records[key].Held[c]; ok {
				rec.Held[c] = text
			}
			if s, ok := back.records[key].Status[c]; ok && s.Failed() {
				problems = append(problems, fmt.Sprintf("%s on cluster %q: %s", a.objects[key].key.Object(), c, s.Message))
			} else if s, ok := rec.Status[c]; ok {
				s = rolledBackStatus(s, a.outcomes[key][c])
				s.Message = redact(s.Message, a.secrets())
				rec.Status[c] = s
			}
		}
	}
	detail := fmt.Sprintf("The stage of clusters %s failed (%s), so they were given back the set the state recorded before "+
		"this apply: objects the apply added were removed and changed ones written as they were. Later stages were not updated.",
		strings.Join(quoted(clusters), ", "), strings.Join(quoted(failed), ", "))
	if len(problems) > 0 {
		detail += "\n\nThe rollback itself failed for:\n- " + strings.Join(problems, "\n- ")
	}
	diags.AddError("Rolled back after a failed stage", detail)
}

// rolledBackStatus is the status of an object on a cluster a rollback gave
// its prior set back: how the failed stage's apply of it ended there, and
// that the cluster holds it as before, not as the failed apply left it.
func rolledBackStatus(s reconcile.Status, out reconcile.Outcome) reconcile.Status {
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

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// record writes each object's record to the host: the set's objects with
// their status, several at once, then removes, one after another, the
// records of objects no cluster holds any more that left the set.
func (r *federatedApplicationResource) record(ctx context.Context, a *setApply, specs map[string]<-chan error, diags *diag.Diagnostics) {
	var written []*appObject
	for _, key := range a.keys {
		if _, inSet := specs[key]; inSet {
			written = append(written, a.objects[key])
		}
	}
	eachObject(written, diags, func(o *appObject, diags *diag.Diagnostics) {
		key := o.key.String()
		record := a.records[key]
		_, known := a.prior.byKey[key]
		r.objects.observeTheRest(ctx, o.in, a.snapshot, record, a.seen[key])
		errorsBefore := diags.ErrorsCount()
		r.objects.recordInHost(ctx, o.in, record, a.seen[key], !known, <-specs[key], diags)
		if diags.ErrorsCount() > errorsBefore {
			a.unwrittenMu.Lock()
			a.unwritten[key] = true
			a.unwrittenMu.Unlock()
		}
		reportFailures(o.in, record, diags)
	})
	for _, key := range a.keys {
		o, record := a.objects[key], a.records[key]
		if _, inSet := specs[key]; inSet {
			continue
		}
		if len(record.Held) > 0 {
			reportFailures(o.in, record, diags)
			continue
		}
		r.objects.removeFromHost(ctx, o.in, r.objects.startHostNamespaceCheck(ctx, o.in), diags)
	}
}

// toState writes what the clusters hold, their status and health.
func (a *setApply) toState(plan, prior *federatedApplicationModel, diags *diag.Diagnostics) {
	held := map[string]map[string]string{}
	status, health := map[string]types.Map{}, map[string]types.Map{}
	for _, key := range a.keys {
		record := a.records[key]
		if len(record.Held) == 0 {
			continue
		}
		held[key] = record.Held
		status[key] = statusValue(record.Status, diags)
		health[key] = healthAfter(appObjectState(prior, key), record, a.seen[key], diags)
	}
	plan.Rendered = nestedStrings(held)
	plan.ClusterStatus = byCluster(status, clusterStatusType)
	plan.ClusterHealth = byCluster(health, healthType)
	plan.Objects = stringList(a.set.keys())
	records := map[string]string{}
	for _, o := range a.set.objects {
		records[o.key.String()] = hostRecordCurrent
		if a.unwritten[o.key.String()] {
			records[o.key.String()] = hostRecordNotWritten
		}
	}
	plan.HostRecords = stringMap(records)
}
