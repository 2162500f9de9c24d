package provider

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// ModifyPlan computes, from the registry snapshot and the engine, where the
// object goes and what each cluster receives, and validates each changed
// object with a server-side dry run on its member.
func (r *federatedObjectResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	r.modifyPlan(ctx, req, resp, resp.Private)
}

// modifyPlan is ModifyPlan with the private state, which the framework
// passes in both the request and the response, given apart: the provider's
// protocol server (fastpath) calls it with its own.
func (r *federatedObjectResource) modifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	private privateData) {
	if r.data == nil || req.Plan.Raw.IsNull() {
		return
	}
	if reason := r.data.placementUnknownReason(req.Config.Raw.IsFullyKnown()); reason != "" {
		planUnknown(ctx, resp, reason, r.data.hostKnown())
		return
	}
	var plan federatedObjectModel
	resp.Diagnostics.Append(objectModels.fromPlan(ctx, req.Plan, &plan)...)
	prior := priorObject(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if prior != nil && !req.Plan.Raw.Equal(req.State.Raw) {
		keepPriorSpelling(ctx, &plan.Placement, prior.Placement, &plan.Overrides, prior.Overrides, false)
		// A change is checked on its members now and written at apply: in
		// an apply's process, this plan is the object's first call.
		resp.Diagnostics.Append(r.data.dialMembersAhead(ctx, private)...)
	}
	env := r.data.objects()
	o, set := r.object(ctx, env, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, o.Secrets)
	if refuseSecretInClear(&resp.Diagnostics, &plan, o.Type.Name(), o.Identity, o.Overrides); resp.Diagnostics.HasError() {
		return
	}
	seen, diags := registeredAtReadNote.Load(ctx, private)
	resp.Diagnostics.Append(diags...)
	o.Seen = objectset.SeenSet(seen)
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the registered clusters", err.Error())
		return
	}
	priorRendered := map[string]string{}
	replacing := prior == nil && (noteHolds(ctx, private, plannedFromStateNote, o.RunKey(), &resp.Diagnostics) ||
		r.data.run.Replacing(o.RunKey()))
	if prior != nil {
		priorRendered = tfvalue.RenderedByCluster(prior.Rendered)
		resp.Diagnostics.Append(plannedFromStateNote.Save(ctx, private, objectset.RunKey(prior.ID.ValueString()))...)
	} else if !replacing {
		// A create asks the host whether the object is recorded there while
		// the members are asked whether they accept it.
		refused := env.StartRefuseExisting(ctx, o)
		defer func() { addProblems(&resp.Diagnostics, refused(), nil) }()
	}
	out, problems := env.Desired(ctx, o, snapshot, priorRendered, true)
	if addProblems(&resp.Diagnostics, problems, nil); resp.Diagnostics.HasError() {
		return
	}
	if o.PlacementSet {
		r.data.run.PlannedPlacement(o.ID, o.Placement, o.Seen != nil)
	}
	if prior != nil && !prior.ID.IsNull() && prior.ID.ValueString() != o.ID {
		// Another object: the old one must go from every cluster.
		resp.RequiresReplace = append(resp.RequiresReplace, plan.templateAt())
	}
	// The members' answers come first: an object adopted on a cluster is
	// marked so in what the plan renders for it.
	addProblems(&resp.Diagnostics, env.CheckMembers(ctx, o, snapshot, out, priorRendered, plan.ForceConflicts.ValueBool()), nil)
	plan.ID = types.StringValue(o.ID)
	plan.PlacedClusters = stringSet(out.Placed)
	plan.Rendered = tfvalue.Rendered(out.Rendered)
	plan.RolloutPlan = plannedOrder(set, out.Placed, &resp.Diagnostics)
	plan.ClusterStatus, plan.ClusterHealth = plannedOutcome(o, prior, priorRendered, out, &resp.Diagnostics)
	if prior == nil {
		resp.Diagnostics.Append(replacementNote.Save(ctx, private, replacement{ID: o.ID, Placed: out.Placed})...)
	}
	resp.Diagnostics.Append(objectModels.toPlan(ctx, &resp.Plan, &plan)...)
	if len(out.Fresh) > 0 {
		tflog.Info(ctx, "placement left to apply: the selector picks clusters this run registers",
			map[string]any{"object": o.Target.String(), "clusters": out.Fresh})
		setUnknown(ctx, resp, placementUnknown())
	}
}

// placementUnknownReason says why placement and rendering wait for apply,
// or is empty when they can be planned now.
func (d *providerData) placementUnknownReason(configKnown bool) string {
	switch {
	case !configKnown:
		return "An input of the federated object (template, placement, overrides or cluster_replicas) is not known until apply, " +
			"so the clusters it lands on and the objects they receive are computed then."
	case !d.hostKnown():
		return "The host cluster cannot be contacted before apply (" + d.hostUnknownReason + "), so the registered clusters are not known yet."
	}
	return ""
}

// planUnknown plans where the object goes and what each cluster receives
// as known at apply. An input known at apply only shows as such in the plan
// itself, so only an unreachable host, which the plan does not show, is
// worth a warning.
func planUnknown(ctx context.Context, resp *resource.ModifyPlanResponse, reason string, hostKnown bool) {
	if hostKnown {
		tflog.Info(ctx, "placement and rendered objects known at apply", map[string]any{"reason": reason})
	} else {
		resp.Diagnostics.AddWarning("Placement and rendered objects known at apply", reason)
	}
	setUnknown(ctx, resp, placementUnknown())
}

// setUnknown plans each attribute of values with its value.
func setUnknown(ctx context.Context, resp *resource.ModifyPlanResponse, values map[string]attr.Value) {
	for name, value := range values {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), value)...)
	}
}

// placementUnknown is, by attribute, what a plan that leaves placement to
// apply gives each attribute that follows from it. A selector that picks
// clusters this run registers leaves it to apply too: Terraform plans the
// object once more right before applying it, and that plan sees the
// clusters only if they were registered first.
func placementUnknown() map[string]attr.Value {
	return map[string]attr.Value{
		"placed_clusters": types.SetUnknown(types.StringType),
		"rendered":        types.ObjectUnknown(tfvalue.RenderedType.AttrTypes),
		"cluster_status":  types.MapUnknown(clusterStatusType),
		"cluster_health":  types.MapUnknown(healthType),
		"rollout_plan":    types.ListUnknown(rolloutPlanType.ElemType),
	}
}

// plannedOutcome keeps the prior status and health when apply has nothing
// to do; otherwise only the clusters apply writes to or waits for (a
// cluster whose last rollout did not finish) are left to it.
func plannedOutcome(o *objectset.Object, prior *federatedObjectModel, held map[string]string, out objectset.Planned,
	diags *diag.Diagnostics) (status, health types.Map) {
	unknownStatus, unknownHealth := types.MapUnknown(clusterStatusType), types.MapUnknown(healthType)
	if prior == nil || prior.ClusterStatus.IsUnknown() {
		return unknownStatus, unknownHealth
	}
	priorStatus := statusEntries(prior.ClusterStatus)
	if maps.Equal(held, out.Rendered) && slices.Equal(setStrings(prior.PlacedClusters), out.Placed) &&
		len(objectset.PendingRollouts(o, priorStatus)) == 0 {
		return prior.ClusterStatus, prior.ClusterHealth
	}
	outcome, known := objectset.PlanOutcome(o, held, out.Rendered, out.Placed, priorStatus,
		healthEntries(prior.ClusterHealth))
	if !known {
		return unknownStatus, unknownHealth
	}
	s, h := outcomeValues(outcome, diags)
	return types.MapValueMust(clusterStatusType, s), types.MapValueMust(healthType, h)
}
