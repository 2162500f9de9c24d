package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// ModifyPlan plans the set as a federated object is planned (placement,
// rendering per cluster, dry runs), each object at once, and the set's
// rollout order.
func (r *federatedApplicationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.data == nil || req.Plan.Raw.IsNull() {
		return
	}
	if reason := r.data.placementUnknownReason(req.Config.Raw.IsFullyKnown()); reason != "" {
		applicationUnknown(ctx, resp, reason, r.data.hostKnown())
		return
	}
	var plan federatedApplicationModel
	resp.Diagnostics.Append(applicationModels.fromPlan(ctx, req.Plan, &plan)...)
	prior := priorApplication(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if prior != nil && !req.Plan.Raw.Equal(req.State.Raw) {
		keepPriorSpelling(ctx, &plan.Placement, prior.Placement, &plan.Overrides, prior.Overrides, true)
		// As for an object: in an apply's process, this is the first call.
		resp.Diagnostics.Append(r.data.dialMembersAhead(ctx, resp.Private)...)
	}
	env := r.data.objects()
	set, diags := r.set(ctx, env, &plan)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, set.Secrets())
	resp.Diagnostics.Append(set.hooks...)
	keepPriorManifests(ctx, &plan, prior, set.scope)
	seen, diags := registeredAtReadNote.Load(ctx, resp.Private)
	resp.Diagnostics.Append(diags...)
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the registered clusters", err.Error())
		return
	}
	held := heldByObject(prior)
	set.refuseOwned(ctx, env, held, &resp.Diagnostics)
	planned := env.DesiredSet(ctx, set.Set, snapshot, objectset.SeenSet(seen), held)
	if set.addEach(&resp.Diagnostics, planned.Problems); resp.Diagnostics.HasError() {
		return
	}
	set.addEach(&resp.Diagnostics, env.CheckSet(ctx, set.Set, snapshot, planned, held, plan.ForceConflicts.ValueBool()))
	placed := planned.Placed()
	plan.ID = plan.Name
	plan.Objects = stringList(set.Keys())
	plan.PlacedClusters = stringSet(placed)
	plan.Rendered = tfvalue.RenderedSet(planned.Rendered())
	plan.RolloutPlan = plannedOrder(set.Set, placed, &resp.Diagnostics)
	plan.ClusterStatus, plan.ClusterHealth = plannedSetOutcome(set, prior, held, planned, &resp.Diagnostics)
	plan.HostRecords = plannedHostRecords(set, prior == nil)
	resp.Diagnostics.Append(applicationModels.toPlan(ctx, &resp.Plan, &plan)...)
	if len(planned.Fresh) > 0 {
		applicationUnknown(ctx, resp, fmt.Sprintf("the placement picks clusters this run registers (%s)", strings.Join(planned.Fresh, ", ")), true)
	}
}

// refuseOwned fails the plan of an object new to the set whose record the
// host holds for another owner.
func (s *appSet) refuseOwned(ctx context.Context, env *objectset.Env, held map[string]map[string]string, diags *diag.Diagnostics) {
	owned, problems := env.RefuseOwned(ctx, s.Set, held)
	addProblems(diags, problems, nil)
	s.addEach(diags, owned)
}

// addEach reports each object's problems at the application's attributes,
// in the set's order.
func (s *appSet) addEach(diags *diag.Diagnostics, problems map[string]objectset.Problems) {
	for _, key := range s.Keys() {
		addObjectProblems(diags, problems[key], s.where[key])
	}
}

// applicationUnknown plans what follows from placement as known at apply.
func applicationUnknown(ctx context.Context, resp *resource.ModifyPlanResponse, reason string, hostKnown bool) {
	if !hostKnown {
		resp.Diagnostics.AddWarning("Placement and rendered objects known at apply", reason)
	}
	setUnknown(ctx, resp, map[string]attr.Value{
		"placed_clusters": types.SetUnknown(types.StringType),
		"rendered":        types.MapUnknown(tfvalue.RenderedType),
		"cluster_status":  types.MapUnknown(types.MapType{ElemType: clusterStatusType}),
		"cluster_health":  types.MapUnknown(types.MapType{ElemType: healthType}),
		"rollout_plan":    types.ListUnknown(rolloutPlanType.ElemType),
		"objects":         types.ListUnknown(types.StringType),
		"host_records":    types.MapUnknown(types.StringType),
	})
}

// priorApplication is the state a plan starts from, or nil for a create.
func priorApplication(ctx context.Context, state tfsdk.State, diags *diag.Diagnostics) *federatedApplicationModel {
	if state.Raw.IsNull() {
		return nil
	}
	prior := &federatedApplicationModel{}
	diags.Append(applicationModels.fromState(ctx, state, prior)...)
	return prior
}

// plannedSetOutcome keeps the prior status and health when apply has
// nothing to do for any object; otherwise only the entries of the objects
// and clusters apply writes to or waits for are left to it. An object
// leaving the set or a cluster leaves them all to apply.
func plannedSetOutcome(set *appSet, prior *federatedApplicationModel, held map[string]map[string]string, planned objectset.SetPlan,
	diags *diag.Diagnostics) (types.Map, types.Map) {
	unknownStatus := types.MapUnknown(types.MapType{ElemType: clusterStatusType})
	unknownHealth := types.MapUnknown(types.MapType{ElemType: healthType})
	if prior == nil || prior.ClusterStatus.IsUnknown() {
		return unknownStatus, unknownHealth
	}
	rendered, priorStatus := planned.Rendered(), statusByObject(prior)
	if objectset.OutcomeKnown(set.Set, held, rendered, priorStatus) {
		return prior.ClusterStatus, prior.ClusterHealth
	}
	outcomes, known := objectset.PlanSetOutcome(set.Set, held, rendered, planned.Placed(), priorStatus, healthByObject(prior))
	if !known {
		return unknownStatus, unknownHealth
	}
	status, health := map[string]map[string]attr.Value{}, map[string]map[string]attr.Value{}
	for _, key := range set.Keys() {
		status[key], health[key] = outcomeValues(outcomes[key], diags)
	}
	return nestedValue(status, clusterStatusType), nestedValue(health, healthType)
}

// applicationClusters are the clusters that hold an object of the
// application, sorted.
func applicationClusters(m *federatedApplicationModel) []string {
	clusters := map[string]bool{}
	for _, byCluster := range tfvalue.RenderedSetByObject(m.Rendered) {
		for cluster := range byCluster {
			clusters[cluster] = true
		}
	}
	return sortedKeys(clusters)
}

// heldByObject is, by object and cluster, what the state says each
// cluster holds.
func heldByObject(m *federatedApplicationModel) map[string]map[string]string {
	if m == nil {
		return map[string]map[string]string{}
	}
	return tfvalue.RenderedSetByObject(m.Rendered)
}

// statusByObject is, by object and cluster, the last apply's outcome.
func statusByObject(m *federatedApplicationModel) map[string]map[string]reconcile.Status {
	out := map[string]map[string]reconcile.Status{}
	if m == nil || m.ClusterStatus.IsNull() || m.ClusterStatus.IsUnknown() {
		return out
	}
	for cluster, inner := range m.ClusterStatus.Elements() {
		if objects, ok := inner.(types.Map); ok {
			for key, s := range statusEntries(objects) {
				if out[key] == nil {
					out[key] = map[string]reconcile.Status{}
				}
				out[key][cluster] = s
			}
		}
	}
	return out
}

// healthByObject is, by object and cluster, how each object did.
func healthByObject(m *federatedApplicationModel) map[string]map[string]rollout.Health {
	out := map[string]map[string]rollout.Health{}
	if m == nil || m.ClusterHealth.IsNull() || m.ClusterHealth.IsUnknown() {
		return out
	}
	for cluster, inner := range m.ClusterHealth.Elements() {
		if objects, ok := inner.(types.Map); ok {
			for key, h := range healthEntries(objects) {
				if out[key] == nil {
					out[key] = map[string]rollout.Health{}
				}
				out[key][cluster] = h
			}
		}
	}
	return out
}

// nestedValue is an application's map by cluster of maps by object of
// elem, from values by object and cluster.
func nestedValue(perObject map[string]map[string]attr.Value, elem attr.Type) types.Map {
	outer := map[string]attr.Value{}
	for cluster, entries := range objectset.ByObject(perObject) {
		outer[cluster], _ = types.MapValue(elem, entries)
	}
	out, _ := types.MapValue(types.MapType{ElemType: elem}, outer)
	return out
}

// stringList is a list of strings.
func stringList(values []string) types.List {
	elems := make([]attr.Value, len(values))
	for i, v := range values {
		elems[i] = types.StringValue(v)
	}
	out, _ := types.ListValue(types.StringType, elems)
	return out
}

// plannedHostRecords is what a plan says of the set's records: each
// written as the configuration says. A create writes every record, so it
// says so once: known after apply.
func plannedHostRecords(set *appSet, create bool) types.Map {
	if create {
		return types.MapUnknown(types.StringType)
	}
	out := map[string]string{}
	for _, key := range set.Keys() {
		out[key] = objectset.RecordCurrent
	}
	return stringMap(out)
}
