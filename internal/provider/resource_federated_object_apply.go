package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// hostRecordGrace bounds the host write that follows an apply cut short (a
// timeout, an interrupt): the host still learns what each cluster holds.
const hostRecordGrace = 15 * time.Second

// apply carries out the plan: the operations reconcile.Diff decides are
// carried out on the members stage by stage, their outcomes are folded
// into what each cluster holds, and the host's Federated<Kind> records the
// spec and each cluster's status. plan becomes the new state. It reports false when it
// stopped before writing anything, so the caller keeps the prior state.
func (r *federatedObjectResource) apply(ctx context.Context, plan, prior *federatedObjectModel, timeout time.Duration, diags *diag.Diagnostics) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in, snapshot, ok := r.applyInputs(ctx, plan, prior, diags)
	if !ok {
		return false
	}
	defer redactDiagnostics(diags, in.secrets)
	if prior == nil {
		r.data.claimCreate(objectKey(in.id), in.object.String(), in.templateAt, diags)
		if !r.data.run.Replacing(objectKey(in.id)) {
			r.refuseExisting(ctx, in, diags)
		}
		if diags.HasError() {
			return false
		}
	}
	input := diffInput(in, snapshot, plan, prior)
	ops := reconcile.Diff(input)
	spec := r.startSpecWrite(ctx, in, prior == nil)
	outcomes, seen := r.rollOut(ctx, in, snapshot, input, ops, diags)
	record := reconcile.Fold(input, ops, outcomes)
	for cluster, s := range record.Status {
		s.Message = redact(s.Message, in.secrets)
		record.Status[cluster] = s
	}
	plan.Rendered = stringMap(record.Held)
	plan.ClusterStatus = statusValue(record.Status, diags)
	r.observeTheRest(ctx, in, snapshot, record, seen)
	plan.ClusterHealth = healthAfter(prior, record, seen, diags)
	r.recordInHost(ctx, in, record, seen, prior == nil, <-spec, diags)
	reportFailures(in, record, diags)
	return true
}

// applyInputs reads the configuration, the registry and the host, and fills
// what the plan left to apply because an input was unknown then.
func (r *federatedObjectResource) applyInputs(ctx context.Context, plan, prior *federatedObjectModel, diags *diag.Diagnostics) (*objectInputs, *runstate.Snapshot, bool) {
	if _, err := r.data.bootstrappedRegistry(ctx); err != nil {
		diags.AddError("Cannot write the federated object", err.Error())
		return nil, nil, false
	}
	in, inDiags := r.inputs(ctx, plan)
	diags.Append(inDiags...)
	if diags.HasError() {
		return nil, nil, false
	}
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		diags.AddError("Cannot read the registered clusters", err.Error())
		return nil, nil, false
	}
	if plan.Rendered.IsUnknown() || plan.PlacedClusters.IsUnknown() {
		held := map[string]string{}
		if prior != nil {
			held = mapStrings(prior.Rendered)
		}
		out := r.desired(ctx, in, snapshot, held, false, diags)
		if diags.HasError() {
			return nil, nil, false
		}
		plan.PlacedClusters = stringSet(out.placed)
		plan.Rendered = stringMap(out.rendered)
	}
	if plan.RolloutPlan.IsUnknown() {
		plan.RolloutPlan = r.plannedOrder(in, setStrings(plan.PlacedClusters), diags)
	}
	plan.ID = types.StringValue(in.id)
	return in, snapshot, true
}

// diffInput is what the plan wants, what the state says each cluster
// holds, and which clusters can be reached.
func diffInput(in *objectInputs, snapshot *runstate.Snapshot, plan, prior *federatedObjectModel) reconcile.Input {
	input := reconcile.Input{
		Want:   mapStrings(plan.Rendered),
		Held:   map[string]string{},
		Placed: setStrings(plan.PlacedClusters),
		Reach:  map[string]reconcile.Reach{},
		Orphan: in.orphan,
	}
	if prior != nil {
		input.Held = mapStrings(prior.Rendered)
		input.Pending = pendingRollouts(in, prior)
	}
	for _, names := range [][]string{sortedKeys(input.Want), sortedKeys(input.Held)} {
		for _, name := range names {
			input.Reach[name] = reachOf(snapshot, name)
		}
	}
	return input
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

// healthAfter is cluster_health after an apply: what the apply saw of the
// clusters it touched, what the state had of the others, for the clusters
// that hold the object.
func healthAfter(prior *federatedObjectModel, record reconcile.Record, seen map[string]map[string]any, diags *diag.Diagnostics) types.Map {
	health := map[string]rollout.Health{}
	if prior != nil {
		health = healthEntries(prior.ClusterHealth)
	}
	for cluster, obj := range seen {
		health[cluster] = rollout.HealthOf(obj)
	}
	for cluster := range health {
		if _, holds := record.Held[cluster]; !holds {
			delete(health, cluster)
		}
	}
	return healthValue(health, diags)
}

// startSpecWrite writes the Federated<Kind>'s spec, a create's with the
// incomplete-create mark, while the members are written: the spec depends
// on nothing they answer. The channel yields the write's error.
func (r *federatedObjectResource) startSpecWrite(ctx context.Context, in *objectInputs, creating bool) <-chan error {
	done := make(chan error, 1)
	go func() { done <- r.writeSpec(ctx, in, creating) }()
	return done
}

// writeSpec writes the spec of the object's Federated<Kind>, a create's
// marked as unfinished with the digest of what it writes. Its host
// namespace is made sure of, once per run, only when the write finds it
// missing: a namespace that exists costs no round trip.
func (r *federatedObjectResource) writeSpec(ctx context.Context, in *objectInputs, incomplete bool) error {
	reg, err := r.data.registry(ctx)
	if err != nil {
		return err
	}
	host := in.hostObject(nil)
	if incomplete {
		host.Incomplete = true
		if host.CreatedFrom, err = registry.ContentDigest(host); err != nil {
			return err
		}
	}
	err = reg.ApplyFederatedSpec(ctx, in.ft, host)
	if registry.IsNamespaceMissing(err, host.Namespace) {
		if err = r.data.run.EnsureNamespace(ctx, host.Namespace, reg.EnsureObjectNamespace); err == nil {
			err = reg.ApplyFederatedSpec(ctx, in.ft, host)
		}
	}
	if err == nil && incomplete {
		exitAfterHostWrite(in.id)
	}
	return err
}

// recordInHost completes the Federated<Kind> once the members answered:
// each cluster's status, and, for a create that is all written with no
// cluster failed, its spec without the incomplete-create mark, both at
// once. A spec write that failed while the members were written is tried
// again first. An apply cut short still records what the clusters hold,
// within a grace: whatever stops a create, Terraform then replaces the
// object, and its replacement takes the marked record over.
func (r *federatedObjectResource) recordInHost(ctx context.Context, in *objectInputs, record reconcile.Record,
	seen map[string]map[string]any, creating bool, specErr error, diags *diag.Diagnostics) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), hostRecordGrace)
		defer cancel()
	}
	err := specErr
	if err != nil {
		err = r.writeSpec(ctx, in, creating)
	}
	if err == nil {
		err = r.writeRecord(ctx, in, record, seen, creating && !record.Failed())
	}
	if err != nil {
		diags.AddError("Cannot write the federated object to the host", err.Error()+
			"\n\nThe members hold what the state records; the next plan compares the host's record with the configuration and writes it again.")
	}
}

// writeRecord writes each cluster's status and, when complete is set, the
// spec without the incomplete-create mark, in parallel.
func (r *federatedObjectResource) writeRecord(ctx context.Context, in *objectInputs, record reconcile.Record,
	seen map[string]map[string]any, complete bool) error {
	reg, err := r.data.registry(ctx)
	if err != nil {
		return err
	}
	status := map[string]string{}
	for cluster, s := range record.Status {
		status[cluster] = s.Status
	}
	host := in.hostObject(status)
	host.RemoteStatus = remoteStatus(in, record, seen)
	var specErr error
	var wg sync.WaitGroup
	if complete {
		wg.Go(func() { specErr = reg.ApplyFederatedSpec(ctx, in.ft, host) })
	}
	statusErr := reg.ApplyFederatedStatus(ctx, in.ft, host)
	wg.Wait()
	return errors.Join(statusErr, specErr)
}

// observeTheRest reads, with the type's status collection on, the clusters
// the apply did not touch, so the host records every cluster's status.
func (r *federatedObjectResource) observeTheRest(ctx context.Context, in *objectInputs, snapshot *runstate.Snapshot,
	record reconcile.Record, seen map[string]map[string]any) {
	if in.ft.StatusCollection != registry.Enabled {
		return
	}
	members := map[string]propagation.Member{}
	for cluster := range record.Held {
		if _, ok := seen[cluster]; ok {
			continue
		}
		if m, err := r.member(snapshot, cluster); err == nil {
			members[cluster] = m
		}
	}
	results := propagation.FanOut(ctx, sortedKeys(members), r.options(false, r.data.settings.RequestTimeout),
		func(ctx context.Context, cluster string) (map[string]any, error) {
			obj, _, err := propagation.Get(ctx, members[cluster], in.object)
			return obj, err
		})
	for _, res := range results {
		if res.Value != nil {
			seen[res.Cluster] = res.Value
		}
	}
}

// remoteStatus is, with the type's status collection on, each cluster's
// own status of the object as the apply last saw it, KubeFed's remoteStatus.
func remoteStatus(in *objectInputs, record reconcile.Record, seen map[string]map[string]any) map[string]map[string]any {
	if in.ft.StatusCollection != registry.Enabled {
		return nil
	}
	out := map[string]map[string]any{}
	for cluster := range record.Status {
		if status, ok := seen[cluster]["status"].(map[string]any); ok {
			out[cluster] = status
		}
	}
	return out
}

// reportFailures turns the clusters that failed into one error.
func reportFailures(in *objectInputs, record reconcile.Record, diags *diag.Diagnostics) {
	var failed []string
	for _, cluster := range sortedKeys(record.Status) {
		if s := record.Status[cluster]; s.Failed() {
			failed = append(failed, fmt.Sprintf("cluster %q (%s): %s", cluster, s.Status, s.Message))
		}
	}
	if len(failed) > 0 {
		diags.AddError(fmt.Sprintf("Propagation of %s failed on %d cluster(s)", in.object, len(failed)),
			strings.Join(failed, "\n")+"\n\nThe other clusters were updated; the state records what each cluster holds, "+
				"so the next plan shows only the remaining work.")
	}
}

var errNotRegistered = errors.New("the cluster is not registered")

// member returns the shared clients of a registered cluster.
func (r *federatedObjectResource) member(snapshot *runstate.Snapshot, cluster string) (propagation.Member, error) {
	c, ok := snapshot.Cluster(cluster)
	if !ok {
		return propagation.Member{}, fmt.Errorf("cluster %q: %w", cluster, errNotRegistered)
	}
	if c.Connection.APIEndpoint == "" {
		return propagation.Member{}, fmt.Errorf("cluster %q is registered in this run and has no API endpoint yet", cluster)
	}
	clients, err := r.data.members.Clients(cluster, c.Connection)
	if err != nil {
		return propagation.Member{}, err
	}
	return propagation.Member{Name: cluster, Clients: clients, Reads: r.data.reads}, nil
}

// options are the propagation settings of one operation.
func (r *federatedObjectResource) options(force bool, timeout time.Duration) propagation.Options {
	return propagation.Options{
		FieldManager: r.data.settings.FieldManager,
		Force:        force,
		MaxParallel:  r.data.settings.MaxParallelClusters,
		Timeout:      timeout,
	}
}

// addServerWarnings shows what a member's API server warned about the
// object, once per cluster.
func addServerWarnings(diags *diag.Diagnostics, object propagation.Object, cluster string, answer propagation.Answer) {
	if len(answer.Warnings) == 0 {
		return
	}
	diags.AddWarning(fmt.Sprintf("Cluster %q warns about %s", cluster, object),
		"The cluster's API server answered with these warnings:\n- "+strings.Join(answer.Warnings, "\n- "))
}

// addReclaimWarning says which fields a member's update-style writers had
// changed, and that the apply takes them back; verb is "The apply sets"
// at plan, "The apply set" after it.
func addReclaimWarning(diags *diag.Diagnostics, object propagation.Object, cluster string, answer propagation.Answer, verb string) {
	if len(answer.Reclaimed) == 0 {
		return
	}
	diags.AddWarning(fmt.Sprintf("Cluster %q: fields of %s are taken back", cluster, object),
		fmt.Sprintf("On cluster %q, %s changed fields the template sets (an update-style writer: kubectl edit or patch, a "+
			"client's Update). %s them back to the template's values and takes their ownership back; the other fields of "+
			"those writers are left alone.", cluster, answer.Reclaimed, verb))
}

// statusValue is the cluster_status value of a record. It builds the
// values directly: a large plan converts one per object and cluster, and
// the framework's reflection costs more than the rest of the conversion.
func statusValue(status map[string]reconcile.Status, diags *diag.Diagnostics) types.Map {
	entries := make(map[string]attr.Value, len(status))
	for cluster, s := range status {
		entry, d := types.ObjectValue(clusterStatusType.AttrTypes, map[string]attr.Value{
			"status":  types.StringValue(s.Status),
			"message": types.StringValue(s.Message),
		})
		diags.Append(d...)
		entries[cluster] = entry
	}
	v, d := types.MapValue(clusterStatusType, entries)
	diags.Append(d...)
	return v
}
