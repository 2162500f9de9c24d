package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// apply carries out the plan as the apply of a set of one: the operations
// reconcile.Diff decides, carried out on the members stage by stage, their
// outcomes folded into what each cluster holds, and the host's
// Federated<Kind> recording the spec and each cluster's status. plan
// becomes the new state. It reports false when it stopped before writing
// anything, so the caller keeps the prior state.
func (r *federatedObjectResource) apply(ctx context.Context, plan, prior *federatedObjectModel, timeout time.Duration, diags *diag.Diagnostics) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	env := r.data.objects()
	o, set, snapshot, ok := r.applyInputs(ctx, env, plan, prior, diags)
	if !ok {
		return false
	}
	defer redactDiagnostics(diags, o.Secrets)
	if prior == nil {
		addProblems(diags, env.ClaimCreate(o), nil)
		if !r.data.run.Replacing(o.RunKey()) {
			addProblems(diags, env.RefuseExisting(ctx, o), nil)
		}
		if diags.HasError() {
			return false
		}
	}
	key := o.Key.String()
	in := objectset.ApplyInput{Set: set, Snapshot: snapshot, Placed: setStrings(plan.PlacedClusters),
		Want: map[string]map[string]string{key: tfvalue.RenderedByCluster(plan.Rendered)}}
	var priorHealth map[string]rollout.Health
	if prior != nil {
		in.Prior = set
		in.Held = map[string]map[string]string{key: tfvalue.RenderedByCluster(prior.Rendered)}
		in.PriorStatus = map[string]map[string]reconcile.Status{key: statusEntries(prior.ClusterStatus)}
		priorHealth = healthEntries(prior.ClusterHealth)
	}
	res := env.Apply(ctx, in)
	record := res.Records[key]
	plan.Rendered = tfvalue.Rendered(record.Held)
	plan.ClusterStatus = statusValue(record.Status, diags)
	plan.ClusterHealth = healthValue(objectset.HealthAfter(priorHealth, record, res.Seen[key]), diags)
	addProblems(diags, res.Problems, nil)
	return true
}

// applyInputs reads the configuration, the registry and the host, and fills
// what the plan left to apply because an input was unknown then.
func (r *federatedObjectResource) applyInputs(ctx context.Context, env *objectset.Env, plan, prior *federatedObjectModel,
	diags *diag.Diagnostics) (*objectset.Object, *objectset.Set, *runstate.Snapshot, bool) {
	if _, err := r.data.bootstrappedRegistry(ctx); err != nil {
		diags.AddError("Cannot write the federated object", err.Error())
		return nil, nil, nil, false
	}
	o, set := r.object(ctx, env, plan, diags)
	if diags.HasError() {
		return nil, nil, nil, false
	}
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		diags.AddError("Cannot read the registered clusters", err.Error())
		return nil, nil, nil, false
	}
	if plan.Rendered.IsUnknown() || plan.PlacedClusters.IsUnknown() {
		held := map[string]string{}
		if prior != nil {
			held = tfvalue.RenderedByCluster(prior.Rendered)
		}
		out, problems := env.Desired(ctx, o, snapshot, held, false)
		if addProblems(diags, problems, nil); diags.HasError() {
			return nil, nil, nil, false
		}
		plan.PlacedClusters = stringSet(out.Placed)
		plan.Rendered = tfvalue.Rendered(out.Rendered)
	}
	if plan.RolloutPlan.IsUnknown() {
		plan.RolloutPlan = plannedOrder(set, setStrings(plan.PlacedClusters), diags)
	}
	plan.ID = types.StringValue(o.ID)
	return o, set, snapshot, true
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
