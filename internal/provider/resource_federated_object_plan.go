package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// planned is what the plan computes for an object.
type planned struct {
	placed   []string
	rendered map[string]string
	// objects are the real objects of the clusters rendered in this call,
	// kept in memory only: a Secret's values never reach the plan.
	objects map[string][]byte
	// fresh are the placed clusters that this run registers and that a
	// selector picked for an object not read before: whether Terraform
	// applies the object before or after them is not known at plan.
	fresh []string
}

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
	if reason := r.unknownReason(req.Config.Raw.IsFullyKnown()); reason != "" {
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
		// A change is checked on its members now and written at apply: in
		// an apply's process, this plan is the object's first call.
		resp.Diagnostics.Append(r.data.dialMembersAhead(ctx, private)...)
	}
	in, diags := r.inputs(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, in.secrets)
	if refuseSecretInClear(&resp.Diagnostics, &plan, in.ft.Name(), in.identity, in.overrides); resp.Diagnostics.HasError() {
		return
	}
	seen, diags := registeredAtReadNote.Load(ctx, private)
	resp.Diagnostics.Append(diags...)
	in.seen = seenSet(seen)
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the registered clusters", err.Error())
		return
	}
	priorRendered := map[string]string{}
	replacing := prior == nil && (noteHolds(ctx, private, plannedFromStateNote, objectKey(in.id), &resp.Diagnostics) ||
		r.data.run.Replacing(objectKey(in.id)))
	// A create asks the host whether the object is recorded there while
	// the members are asked whether they accept it: neither waits for the
	// other, and the plan fails if either says no.
	var refused diag.Diagnostics
	var hostChecked sync.WaitGroup
	defer func() { hostChecked.Wait(); resp.Diagnostics.Append(refused...) }()
	if prior != nil {
		priorRendered = mapStrings(prior.Rendered)
		resp.Diagnostics.Append(plannedFromStateNote.Save(ctx, private, objectKey(prior.ID.ValueString()))...)
	} else if !replacing {
		hostChecked.Go(func() { r.refuseExisting(ctx, in, &refused) })
	}
	out := r.desired(ctx, in, snapshot, priorRendered, true, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if in.placementSet {
		r.data.run.PlannedPlacement(in.id, in.placement, in.seen != nil)
	}
	if prior != nil && !prior.ID.IsNull() && prior.ID.ValueString() != in.id {
		// Another object: the old one must go from every cluster.
		resp.RequiresReplace = append(resp.RequiresReplace, in.templateAt)
	}
	plan.ID = types.StringValue(in.id)
	plan.PlacedClusters = stringSet(out.placed)
	plan.Rendered = stringMap(out.rendered)
	plan.RolloutPlan = r.plannedOrder(in, out.placed, &resp.Diagnostics)
	plan.ClusterStatus, plan.ClusterHealth = plannedOutcome(in, prior, out)
	r.checkMembers(ctx, in, snapshot, out, priorRendered, plan.ForceConflicts.ValueBool(), prior == nil && !replacing, &resp.Diagnostics)
	if prior == nil {
		resp.Diagnostics.Append(replacementNote.Save(ctx, private, replacement{ID: in.id, Placed: out.placed})...)
	}
	resp.Diagnostics.Append(objectModels.toPlan(ctx, &resp.Plan, &plan)...)
	if len(out.fresh) > 0 {
		placementAtApply(ctx, resp, in, out.fresh)
	}
}

// objectKey names a federated object among the run's replacements.
func objectKey(id string) string { return "FederatedObject/" + id }

// unknownReason says why placement and rendering wait for apply, or is
// empty when they can be planned now.
func (r *federatedObjectResource) unknownReason(configKnown bool) string {
	switch {
	case !configKnown:
		return "An input of the federated object (template, placement, overrides or cluster_replicas) is not known until apply, " +
			"so the clusters it lands on and the objects they receive are computed then."
	case !r.data.hostKnown():
		return "The host cluster cannot be contacted before apply (" + r.data.hostUnknownReason + "), so the registered clusters are not known yet."
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
	for name, value := range placementUnknown() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), value)...)
	}
}

// placementUnknown is, by attribute, what a plan that leaves placement to
// apply gives each attribute that follows from it.
func placementUnknown() map[string]attr.Value {
	return map[string]attr.Value{
		"placed_clusters": types.SetUnknown(types.StringType),
		"rendered":        types.MapUnknown(types.StringType),
		"cluster_status":  types.MapUnknown(clusterStatusType),
		"cluster_health":  types.MapUnknown(healthType),
		"rollout_plan":    types.ListUnknown(rolloutPlanType.ElemType),
	}
}

// placementAtApply leaves to apply where an object goes and what each
// cluster receives, when its selector picks clusters this run registers:
// Terraform plans the object once more right before applying it, and that
// plan sees the clusters only if they were registered first. Known values
// here would make either order but one an inconsistent plan.
func placementAtApply(ctx context.Context, resp *resource.ModifyPlanResponse, in *objectInputs, fresh []string) {
	tflog.Info(ctx, "placement left to apply: the selector picks clusters this run registers",
		map[string]any{"object": in.object.String(), "clusters": fresh})
	for name, value := range placementUnknown() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), value)...)
	}
}

// plannedOutcome keeps the prior status and health when apply has nothing
// to do, and leaves them to apply otherwise. A cluster whose last rollout
// did not finish is work: apply waits for it again.
func plannedOutcome(in *objectInputs, prior *federatedObjectModel, out planned) (status, health types.Map) {
	if prior != nil && maps.Equal(mapStrings(prior.Rendered), out.rendered) &&
		slices.Equal(setStrings(prior.PlacedClusters), out.placed) && !prior.ClusterStatus.IsUnknown() &&
		len(pendingRollouts(in, prior)) == 0 {
		return prior.ClusterStatus, prior.ClusterHealth
	}
	return types.MapUnknown(clusterStatusType), types.MapUnknown(healthType)
}

// pendingRollouts are the clusters whose last rollout did not finish, when
// apply waits for rollouts.
func pendingRollouts(in *objectInputs, prior *federatedObjectModel) map[string]bool {
	pending := map[string]bool{}
	if prior == nil || !in.waiter.Needed() {
		return pending
	}
	for cluster, s := range statusEntries(prior.ClusterStatus) {
		if s.RolloutUnfinished() {
			pending[cluster] = true
		}
	}
	return pending
}

// plannedOrder is rollout_plan: the order of the placed clusters.
func (r *federatedObjectResource) plannedOrder(in *objectInputs, placed []string, diags *diag.Diagnostics) types.List {
	order, err := in.order(placed)
	if err != nil {
		diags.AddAttributeError(path.Root("rollout_strategy").AtName("stages"), "Invalid rollout stages", err.Error())
	}
	if len(order.Unknown) > 0 {
		diags.AddAttributeWarning(path.Root("rollout_strategy").AtName("stages"), "Stages name clusters that are not placed",
			fmt.Sprintf("rollout_strategy.stages names %s, which %s is not placed on: they are left out.", strings.Join(order.Unknown, ", "), in.object))
	}
	return rolloutPlanValue(order.Stages, diags)
}

// candidates are the clusters an object may be placed on, as the plan sees
// them.
type candidates struct {
	registered []federation.Cluster
	// upcoming are clusters that listed names may use but selectors do
	// not see yet: planned in this run with labels known at apply only, or
	// registered by this run after the object was last read.
	upcoming []string
	// late are clusters registered after the object was last read, by
	// someone else or by this run: selectors take them in at the next plan,
	// so that the plan Terraform makes again at apply comes out the same in
	// whatever order it applies the object and the registrations.
	late   []federation.Cluster
	byName map[string]runstate.Cluster
}

func candidatesOf(snapshot *runstate.Snapshot, seen map[string]bool) candidates {
	c := candidates{byName: map[string]runstate.Cluster{}}
	for _, cluster := range snapshot.Clusters() {
		if registeredLater(seen, cluster) {
			c.late = append(c.late, federation.Cluster{Name: cluster.Name, Labels: cluster.Labels})
			if cluster.InRun {
				c.byName[cluster.Name] = cluster
				c.upcoming = append(c.upcoming, cluster.Name)
			}
			continue
		}
		c.byName[cluster.Name] = cluster
		if cluster.LabelsKnown {
			c.registered = append(c.registered, federation.Cluster{Name: cluster.Name, Labels: cluster.Labels})
		} else {
			c.upcoming = append(c.upcoming, cluster.Name)
		}
	}
	return c
}

// desired places the object and renders it for each placed cluster. While
// planning, a placed cluster that is not ready is frozen: it keeps its entry
// of prior, or gets none.
func (r *federatedObjectResource) desired(ctx context.Context, in *objectInputs, snapshot *runstate.Snapshot, prior map[string]string, planning bool, diags *diag.Diagnostics) planned {
	view := candidatesOf(snapshot, in.seen)
	placed, ok := r.place(in, view, diags)
	if !ok {
		return planned{}
	}
	if planning {
		warnIdleRules(in, view, placed, diags)
	}
	if in.ft.Propagation == registry.Disabled {
		// The type's propagation is off: the object stays in the host and
		// no member is touched, neither to push nor to remove.
		diags.AddAttributeWarning(path.Root("type"), "Propagation of the type is disabled",
			fmt.Sprintf("Type %q has propagation = \"Disabled\": %s is kept in the host, and nothing is pushed to or removed from "+
				"member clusters until propagation is enabled again.", in.ft.Name(), in.object))
		return planned{placed: sortedKeys(prior), rendered: maps.Clone(prior), objects: map[string][]byte{}}
	}
	if refuseUngranted(in, view, placed, diags); diags.HasError() {
		return planned{}
	}
	out := r.renderPlaced(ctx, in, view, placed, prior, planning, diags)
	if planning && in.seen == nil && in.placementSet && in.placement.Clusters == nil {
		out.fresh = registeredInRun(view, placed)
	}
	return out
}

// place selects the clusters the object goes to, from the placement and
// cluster_replicas.
func (r *federatedObjectResource) place(in *objectInputs, view candidates, diags *diag.Diagnostics) ([]string, bool) {
	var placed []string
	if in.placementSet {
		var err error
		if placed, err = in.placement.Select(view.registered, view.upcoming); err != nil {
			at := path.Root("placement").AtName("clusters")
			var unknown *federation.UnknownClusterError
			if !errors.As(err, &unknown) {
				at = path.Root("placement").AtName("cluster_selector")
			}
			diags.AddAttributeError(at, "Invalid placement", at.String()+": "+err.Error())
			return nil, false
		}
		if len(view.late) > 0 && in.placement.Clusters == nil {
			warnLate(in, view, diags)
		}
		if in.placement.Clusters == nil && in.placement.Selector != nil && len(placed) == 0 {
			warnPlacedNowhere(diags, path.Root("placement").AtName("cluster_selector"), "The cluster selector matches no cluster",
				in.object.String(), "no registered cluster has the labels the selector asks for.")
		}
	}
	if in.replicas != nil {
		keys, err := federation.Placement{Clusters: sortedKeys(in.replicas)}.Select(view.registered, view.upcoming)
		if err != nil {
			diags.AddAttributeError(path.Root("cluster_replicas"), "Invalid cluster_replicas", "cluster_replicas: "+err.Error())
			return nil, false
		}
		if in.placementSet {
			keys = slices.DeleteFunc(keys, func(c string) bool { return !slices.Contains(placed, c) })
		}
		placed = keys
	}
	if placed == nil {
		placed = []string{}
	}
	return placed, true
}

// ungranted names, sorted, the placed clusters registered with join whose
// federated types do not include typeName: their members refuse to write
// the object. A cluster whose join's types are known at apply only is not
// named.
func ungranted(typeName string, placed []string, clusters map[string]runstate.Cluster) []string {
	var out []string
	for _, name := range placed {
		c, ok := clusters[name]
		if ok && !c.GrantsUnknown && !c.Grants.Allows(typeName) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// refuseUngranted fails the plan of an object placed on a joined cluster
// that does not grant its type, before anything is written: the member
// would refuse the write with a 403 at apply.
func refuseUngranted(in *objectInputs, view candidates, placed []string, diags *diag.Diagnostics) {
	typeName := in.ft.Name()
	for _, name := range ungranted(typeName, placed, view.byName) {
		granted := view.byName[name].Grants.Types
		diags.AddAttributeError(path.Root("type"), fmt.Sprintf("Cluster %q does not grant type %q", name, typeName),
			fmt.Sprintf("%s is placed on cluster %q, which is registered with join and grants the federation only the types of its "+
				"join.federated_types (%s): its member would refuse to write the object. Add %q (kubefed_federated_type.<name>.name) "+
				"to join.federated_types of the kubefed_federation_cluster named %q, or leave the cluster out of the placement.",
				in.object, name, grantedList(granted), typeName, name))
	}
}

// grantedList is a join's federated types in a message.
func grantedList(types []string) string {
	if len(types) == 0 {
		return "none"
	}
	return strings.Join(types, ", ")
}

// renderPlaced renders the object for each placed cluster, freezing the
// ones not ready while planning.
func (r *federatedObjectResource) renderPlaced(ctx context.Context, in *objectInputs, view candidates, placed []string,
	prior map[string]string, planning bool, diags *diag.Diagnostics) planned {
	out := planned{placed: placed, rendered: map[string]string{}, objects: map[string][]byte{}}
	warned := false
	for _, name := range placed {
		c := view.byName[name]
		if planning && !c.Planned {
			if health, ok := r.data.run.Health(ctx, name); ok && !health.Ready {
				if was, ok := prior[name]; ok {
					out.rendered[name] = was
				}
				diags.AddWarning(fmt.Sprintf("Cluster %q is not ready: nothing is planned for it", name),
					fmt.Sprintf("%s keeps what cluster %q holds (%s: %s). When the cluster is back, the next plan shows the pending change.",
						in.object, name, health.Reason, health.Message))
				continue
			}
		}
		_, holds := prior[name]
		rendered, err := in.render(federation.Cluster{Name: name, Labels: c.Labels}, holds)
		if err != nil {
			addRenderError(diags, in.templateAt, err)
			return out
		}
		if !warned {
			for _, w := range rendered.Warnings {
				diags.AddAttributeWarning(in.templateAt, "Template field dropped", w)
			}
			warned = true
		}
		addNotes(diags, rendered.Notes)
		out.rendered[name] = rendered.Display
		out.objects[name] = rendered.Object
	}
	return out
}

// addNotes shows the engine's remarks on how an override applied, each at
// its patch.
func addNotes(diags *diag.Diagnostics, notes []federation.Note) {
	for _, n := range notes {
		diags.AddAttributeWarning(path.Root("overrides").AtListIndex(n.Rule).AtName("patches").AtListIndex(n.Patch),
			fmt.Sprintf("Override applied as KubeFed did on cluster %q", n.Cluster), n.String())
	}
}

// warnIdleRules names the override rules that target by name a cluster
// that is not registered or not placed: they change nothing.
func warnIdleRules(in *objectInputs, view candidates, placed []string, diags *diag.Diagnostics) {
	for i, rule := range in.overrides {
		if rule.Cluster == "" {
			continue
		}
		at := path.Root("overrides").AtListIndex(i).AtName("cluster")
		switch _, registered := view.byName[rule.Cluster]; {
		case !registered:
			diags.AddAttributeWarning(at, "Override for a cluster that is not registered",
				fmt.Sprintf("overrides[%d] targets cluster %q, which is not registered, so it changes nothing. Registered clusters: %s.",
					i, rule.Cluster, strings.Join(sortedKeys(view.byName), ", ")))
		case !slices.Contains(placed, rule.Cluster):
			diags.AddAttributeWarning(at, "Override for a cluster the object is not placed on",
				fmt.Sprintf("overrides[%d] targets cluster %q, which %s is not placed on, so it changes nothing.", i, rule.Cluster, in.object))
		}
	}
}

// registeredInRun names the placed clusters that this run registers and
// the host does not hold yet.
func registeredInRun(view candidates, placed []string) []string {
	var fresh []string
	for _, name := range placed {
		if view.byName[name].NotInHostYet() {
			fresh = append(fresh, name)
		}
	}
	return fresh
}

// warnLate names the clusters the placement would select that were
// registered after the object was read, and so are left to the next plan.
func warnLate(in *objectInputs, view candidates, diags *diag.Diagnostics) {
	all, err := in.placement.Select(append(slices.Clone(view.registered), view.late...), nil)
	if err != nil {
		return
	}
	for _, c := range view.late {
		if !slices.Contains(all, c.Name) {
			continue
		}
		if _, inRun := view.byName[c.Name]; inRun {
			diags.AddWarning("Clusters this run registers are taken in by the next plan",
				fmt.Sprintf("%s matches cluster %q, which this run registers: this apply leaves the object where it is, and the "+
					"next plan places it on %q too.", in.object, c.Name, c.Name))
			continue
		}
		diags.AddWarning(fmt.Sprintf("Cluster %q was registered after the object was last read", c.Name),
			fmt.Sprintf("%s matches cluster %q, which was registered after the object was last read (refreshed): the plan "+
				"leaves it out, so that the apply does what the plan showed. The next plan that refreshes the object places it "+
				"there.", in.object, c.Name))
	}
}

// checkMembers asks each member that gets a changed object whether it
// already holds one, for a create (it is adopted, as KubeFed adopts it),
// and whether it accepts it, with a server-side dry run.
func (r *federatedObjectResource) checkMembers(ctx context.Context, in *objectInputs, snapshot *runstate.Snapshot, out planned,
	prior map[string]string, force, creating bool, diags *diag.Diagnostics) {
	dryRun := r.data.settings.PlanValidation == PlanValidationServer
	members := map[string]propagation.Member{}
	for _, name := range sortedKeys(out.objects) {
		if prior[name] == out.rendered[name] {
			continue
		}
		if m, err := r.member(snapshot, name); err == nil {
			members[name] = m
		}
	}
	if !dryRun && !creating {
		return
	}
	opts := r.options(force, r.data.settings.RequestTimeout)
	results := propagation.FanOut(ctx, sortedKeys(members), opts, func(ctx context.Context, cluster string) (propagation.Answer, error) {
		return checkMember(ctx, members[cluster], in.object, out.objects[cluster], opts, creating, dryRun)
	})
	for _, res := range results {
		addServerWarnings(diags, in.object, res.Cluster, res.Value)
		addReclaimWarning(diags, in.object, res.Cluster, res.Value, "The apply sets")
		if creating && res.Value.Found {
			diags.AddWarning(fmt.Sprintf("Cluster %q already holds %s", res.Cluster, in.object),
				fmt.Sprintf("%s exists on cluster %q without a record in the host. The apply adopts it, as KubeFed does: it takes over "+
					"the fields the template sets and leaves the others alone, and destroying this resource deletes it there.",
					in.object, res.Cluster))
		}
		if res.Err != nil {
			addDryRunError(diags, in, res)
		}
	}
}

// checkMember asks one member whether it accepts the object (a dry run)
// and, for a create, whether it holds the object already: the dry run's
// answer says so, and only a member that refuses the dry run, or a plan
// without dry runs, is asked by name.
func checkMember(ctx context.Context, m propagation.Member, o propagation.Object, rendered []byte, opts propagation.Options,
	creating, dryRun bool) (propagation.Answer, error) {
	if !dryRun {
		return existing(ctx, m, o)
	}
	res, err := propagation.DryRun(ctx, m, o, rendered, opts)
	if creating && err != nil {
		found, ferr := existing(ctx, m, o)
		if ferr != nil {
			return found, ferr
		}
		res.Found = found.Found
	}
	return res, err
}

// existing reads whether the member holds the object.
func existing(ctx context.Context, m propagation.Member, o propagation.Object) (propagation.Answer, error) {
	_, found, err := propagation.Get(ctx, m, o)
	return propagation.Answer{Found: found}, err
}

// addDryRunError reports a dry run's failure: an error when the member
// objects to the object, a warning when it could not check it. Fields
// another tool holds are a warning: only the write fails on them, and a
// plan that Terraform makes before a destroy must not stop it.
func addDryRunError(diags *diag.Diagnostics, in *objectInputs, res propagation.Result[propagation.Answer]) {
	var conflict *propagation.ConflictError
	if errors.As(res.Err, &conflict) {
		diags.AddAttributeWarning(path.Root("force_conflicts"), fmt.Sprintf("Another tool manages fields of the object on cluster %q", res.Cluster),
			res.Err.Error()+"\n\nAn apply that writes the object there fails on them unless force_conflicts = true; removing the "+
				"object does not.")
		return
	}
	if propagation.Rejects(res.Err) {
		diags.AddAttributeError(in.templateAt, fmt.Sprintf("Cluster %q rejects the object", res.Cluster),
			fmt.Sprintf("A server-side dry run of %s on cluster %q failed: %v", in.object, res.Cluster, res.Err))
		return
	}
	diags.AddWarning(fmt.Sprintf("Cluster %q could not validate the object", res.Cluster),
		fmt.Sprintf("The server-side dry run was not possible, so the object is only checked at apply: %v", res.Err))
}
