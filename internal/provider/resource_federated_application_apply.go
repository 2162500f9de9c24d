package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
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
		resp.Diagnostics.Append(r.data.noteMemberEndpoints(ctx, resp.Private, applicationClusters(&plan))...)
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
	resp.Diagnostics.Append(r.data.dialMembersAhead(ctx, req.Private)...)
	if !r.write(ctx, &plan, &prior, plan.Timeouts.Update, &resp.Diagnostics) {
		plan = prior
	}
	resp.Diagnostics.Append(applicationModels.toState(ctx, &resp.State, &plan)...)
	applicationIdentity.set(ctx, resp.Identity, plan.ID, &resp.Diagnostics)
	resp.Diagnostics.Append(r.data.noteMemberEndpoints(ctx, resp.Private, applicationClusters(&plan))...)
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

// apply carries out the plan as the pipeline's apply of the set: every
// object's operations rolled out as one set, and, with on_failure =
// "rollback", a failed stage's clusters given their prior set back. The
// host records each object; plan becomes the new state. It reports false
// when it stopped before writing anything.
func (r *federatedApplicationResource) apply(ctx context.Context, plan, prior *federatedApplicationModel, diags *diag.Diagnostics) bool {
	env := r.data.objects()
	in, ok := r.applyInputs(ctx, env, plan, prior, diags)
	if !ok {
		return false
	}
	defer redactDiagnostics(diags, append(in.Set.Secrets(), in.Prior.Secrets()...))
	res := env.Apply(ctx, in)
	addProblems(diags, res.Problems, nil)
	toState(plan, prior, in.Set, res, diags)
	return true
}

// applyInputs reads both sets and the registry, fills what the plan left
// to apply, and says what the apply starts from.
func (r *federatedApplicationResource) applyInputs(ctx context.Context, env *objectset.Env, plan, prior *federatedApplicationModel,
	diags *diag.Diagnostics) (objectset.ApplyInput, bool) {
	if _, err := r.data.bootstrappedRegistry(ctx); err != nil {
		diags.AddError("Cannot write the application", err.Error())
		return objectset.ApplyInput{}, false
	}
	set, d := r.set(ctx, env, plan)
	diags.Append(d...)
	in := objectset.ApplyInput{Held: heldByObject(prior), PriorStatus: statusByObject(prior)}
	if prior != nil {
		var before *appSet
		before, d = r.set(ctx, env, prior)
		if diags.Append(d...); before != nil {
			in.Prior = before.Set
		}
	}
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		diags.AddError("Cannot read the registered clusters", err.Error())
	}
	if diags.HasError() {
		return in, false
	}
	in.Set, in.Snapshot = set.Set, snapshot
	if plan.Rendered.IsUnknown() || plan.PlacedClusters.IsUnknown() {
		if prior == nil {
			set.refuseOwned(ctx, env, in.Held, diags)
		}
		planned := env.DesiredSet(ctx, set.Set, snapshot, nil, in.Held)
		if set.addEach(diags, planned.Problems); diags.HasError() {
			return in, false
		}
		plan.Rendered, plan.PlacedClusters = tfvalue.RenderedSet(planned.Rendered()), stringSet(planned.Placed())
		plan.Objects = stringList(set.Keys())
	}
	if plan.RolloutPlan.IsUnknown() {
		plan.RolloutPlan = plannedOrder(set.Set, setStrings(plan.PlacedClusters), diags)
	}
	plan.ID = plan.Name
	in.Want, in.Placed = heldByObject(plan), setStrings(plan.PlacedClusters)
	return in, true
}

// toState writes what the clusters hold, their status and health, and
// whether each object's host record was written.
func toState(plan, prior *federatedApplicationModel, set *objectset.Set, res objectset.ApplyResult, diags *diag.Diagnostics) {
	held := map[string]map[string]string{}
	status, health := map[string]map[string]attr.Value{}, map[string]map[string]attr.Value{}
	priorHealth := healthByObject(prior)
	for _, key := range res.Keys {
		record := res.Records[key]
		if len(record.Held) == 0 {
			continue
		}
		held[key] = record.Held
		status[key] = statusValue(record.Status, diags).Elements()
		health[key] = healthValue(objectset.HealthAfter(priorHealth[key], record, res.Seen[key]), diags).Elements()
	}
	plan.Rendered = tfvalue.RenderedSet(held)
	plan.ClusterStatus = nestedValue(status, clusterStatusType)
	plan.ClusterHealth = nestedValue(health, healthType)
	plan.Objects = stringList(set.Keys())
	records := map[string]string{}
	for _, key := range set.Keys() {
		records[key] = objectset.RecordCurrent
		if res.Unwritten[key] {
			records[key] = objectset.RecordNotWritten
		}
	}
	plan.HostRecords = stringMap(records)
}
