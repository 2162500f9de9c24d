package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/plain"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// Read refreshes each object of the set from the members that hold it, as
// a federated object's refresh does, and compares each object's host
// record with what the set writes (host_records, objectset.Drift), so a
// record edited or deleted by hand shows in the plan. An application whose
// objects are all gone from the host is gone; an imported one is rebuilt
// from the host's records labelled with its name.
func (r *federatedApplicationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state federatedApplicationModel
	resp.Diagnostics.Append(applicationModels.fromState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	applicationIdentity.set(ctx, resp.Identity, state.ID, &resp.Diagnostics)
	importing := state.Manifests.IsNull() && state.SensitiveManifests.IsNull() && state.ManifestObjects.IsNull()
	if importing && !r.fromHost(ctx, &state, &resp.Diagnostics) {
		return
	}
	env := r.data.objects()
	set, diags := r.set(ctx, env, &state)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, set.Secrets())
	recordsRead := env.StartHostRecords(ctx, set.Set, mapStrings(state.HostRecords))
	registered, memberDiags := r.readSetMembers(ctx, env, &state, set, importing)
	records, anyHeld, problems := recordsRead()
	addProblems(&resp.Diagnostics, problems, nil)
	if !importing && !anyHeld {
		tflog.Info(ctx, "the application's objects are gone from the host; removing it from the state", map[string]any{"name": state.Name.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	if resp.Diagnostics.Append(memberDiags...); resp.Diagnostics.HasError() {
		return
	}
	if records != nil {
		state.HostRecords = stringMap(records)
	}
	resp.Diagnostics.Append(registeredAtReadNote.Save(ctx, resp.Private, registered)...)
	resp.Diagnostics.Append(r.data.noteMemberEndpoints(ctx, resp.Private, applicationClusters(&state))...)
	resp.Diagnostics.Append(applicationModels.toState(ctx, &resp.State, &state)...)
}

// readSetMembers reads each object of the set from the members that hold
// it into m (for an import, from where the set places it), and returns
// the clusters registered when it read.
func (r *federatedApplicationResource) readSetMembers(ctx context.Context, env *objectset.Env, m *federatedApplicationModel,
	set *appSet, importing bool) ([]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		diags.AddError("Cannot read the registered clusters", err.Error())
		return nil, diags
	}
	held := heldByObject(m)
	if importing {
		planned := env.DesiredSet(ctx, set.Set, snapshot, nil, nil)
		set.addEach(&diags, planned.Problems)
		held = planned.Rendered()
		m.PlacedClusters = stringSet(planned.Placed())
		order, _ := set.Order(planned.Placed())
		m.RolloutPlan = rolloutPlanValue(order.Stages, &diags)
		m.Objects = stringList(set.Keys())
	}
	// Objects that left the set stay in the state while clusters hold them:
	// their removal is owed, and a refresh must not forget it.
	holding, problems := env.Holding(ctx, set.Set, nil, held)
	addProblems(&diags, problems.AsWarnings(), nil)
	priorHealth := healthByObject(m)
	views, problems := env.ReadSet(ctx, holding, snapshot, held, priorHealth)
	addProblems(&diags, problems, nil)
	for _, key := range objectset.Stuck(holding, held) {
		views[key] = objectset.MemberView{Held: held[key], Health: priorHealth[key]}
	}
	priorStatus := statusByObject(m)
	now := map[string]map[string]string{}
	status, health := map[string]map[string]attr.Value{}, map[string]map[string]attr.Value{}
	for key, view := range views {
		now[key] = view.Held
		health[key] = healthValue(view.Health, &diags).Elements()
		status[key] = statusValue(objectset.ReadStatus(priorStatus[key], view.Held, held[key]), &diags).Elements()
	}
	m.Rendered = tfvalue.RenderedSet(now)
	m.ClusterStatus = nestedValue(status, clusterStatusType)
	m.ClusterHealth = nestedValue(health, healthType)
	return snapshot.RegisteredNames(), diags
}

// fromHost fills an imported application's configuration from the host's
// records labelled with its name: one manifest per object, the placement
// they share, their override rules, each naming its object.
func (r *federatedApplicationResource) fromHost(ctx context.Context, m *federatedApplicationModel, diags *diag.Diagnostics) bool {
	recorded, err := r.data.objects().ApplicationRecords(ctx, m.Name.ValueString())
	if err != nil {
		diags.AddError("Cannot import the application", err.Error())
		return false
	}
	var manifests, sensitive []string
	var rules []federation.SetOverrideRule
	orphan := false
	keys := make([]federation.Key, len(recorded))
	for i, o := range recorded {
		t := o.Type.Target
		keys[i] = federation.Key{Group: t.Group, Version: t.Version, Kind: t.Kind, Namespace: o.Namespace, Name: o.Name}
	}
	for i, o := range recorded {
		if objectset.IsSecretType(o.Type.Target) {
			sensitive = append(sensitive, o.Template)
		} else {
			manifests = append(manifests, o.Template)
		}
		orphan = orphan || o.Record.Orphan
		ref := federation.ShortestRef(keys[i], keys)
		for _, rule := range o.Record.Overrides {
			rules = append(rules, federation.SetOverrideRule{OverrideRule: rule, Object: &ref})
		}
	}
	return fillImported(ctx, m, manifests, sensitive, recorded[0].Record.Placement, rules, orphan, diags)
}

// fillImported sets the configuration read from the host.
func fillImported(ctx context.Context, m *federatedApplicationModel, manifests, sensitive []string, placement federation.Placement,
	rules []federation.SetOverrideRule, orphan bool, diags *diag.Diagnostics) bool {
	m.Manifests, m.SensitiveManifests = types.ListNull(types.StringType), types.ListNull(types.StringType)
	if len(manifests) > 0 {
		m.Manifests = stringList(manifests)
	}
	if len(sensitive) > 0 {
		m.SensitiveManifests = stringList(sensitive)
	}
	var err error
	if m.Placement, err = placementValue(ctx, placement); err != nil {
		diags.AddError("Cannot import the application", err.Error())
		return false
	}
	if m.Overrides, err = tfvalue.Dynamic(plain.SetOverrideRulesForm(rules)); err != nil {
		diags.AddError("Cannot import the application", err.Error())
		return false
	}
	if orphan {
		m.DeletionPolicy = types.StringValue(deletionOrphan)
	}
	m.ClusterReplicas = types.MapNull(types.Int64Type)
	m.ReplicasObject = types.ObjectNull(objectRefType.AttrTypes)
	m.Rendered = types.MapNull(tfvalue.RenderedType)
	m.ClusterStatus = types.MapNull(types.MapType{ElemType: clusterStatusType})
	return true
}

var (
	objectRefType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"kind": types.StringType, "name": types.StringType, "namespace": types.StringType, "api_version": types.StringType,
	}}
)

// Delete removes every object of the set from every cluster that holds it,
// those that left the set but clusters still hold included, then their
// records and the host namespaces the provider created for them
// (objectset.Env.Remove).
func (r *federatedApplicationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state federatedApplicationModel
	resp.Diagnostics.Append(applicationModels.fromState(ctx, req.State, &state)...)
	timeout, diags := state.Timeouts.Delete(ctx, defaultOperationTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.data.dialMembersAhead(ctx, req.Private)...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	env := r.data.objects()
	set, diags := r.set(ctx, env, &state)
	resp.Diagnostics.Append(diags...)
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the registered clusters", err.Error())
	}
	if resp.Diagnostics.HasError() {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, set.Secrets())
	held := heldByObject(&state)
	holding, problems := env.Holding(ctx, set.Set, nil, held)
	addProblems(&resp.Diagnostics, problems.AsWarnings(), nil)
	addProblems(&resp.Diagnostics, env.Remove(ctx, objectset.RemoveInput{Set: holding, Snapshot: snapshot, Held: held,
		Application: state.Name.ValueString()}), nil)
}

// ValidateConfig checks, with no cluster, the manifests (each object's
// identity, duplicates, Secrets in clear), the override rules' objects,
// wait, rollout_strategy and timeouts.
func (r *federatedApplicationResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m federatedApplicationModel
	resp.Diagnostics.Append(applicationModels.fromConfig(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateTimeouts(ctx, m.Timeouts, &resp.Diagnostics)
	strategyValue, _ := objectStrategy(m.RolloutStrategy)
	validateRollout(ctx, m.Wait, strategyValue, &resp.Diagnostics)
	warnPlacementBoth(m.Placement, &resp.Diagnostics)
	warnNoPlacement(m.Placement, m.ClusterReplicas, &resp.Diagnostics)
	if !fullyKnown(m.Manifests) || !fullyKnown(m.SensitiveManifests) || !fullyKnown(m.ManifestObjects) {
		return
	}
	manifests, _, _ := manifestsOf(ctx, &m, federation.BuiltinScope, &resp.Diagnostics)
	if m.Manifests.IsNull() && m.SensitiveManifests.IsNull() && m.ManifestObjects.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("manifests"), "No objects",
			"Set manifests, manifest_objects or sensitive_manifests: an application holds at least one object.")
	}
	if resp.Diagnostics.HasError() || !fullyKnown(m.Overrides) {
		return
	}
	rules, err := setRules(m.Overrides)
	if err != nil {
		addInputError(&resp.Diagnostics, err)
		return
	}
	keys := make([]federation.Key, len(manifests))
	for i, mf := range manifests {
		keys[i] = mf.Key
	}
	if _, err := federation.SelectObjects(rules, keys); err != nil {
		for _, e := range objectset.SplitErrors(err) {
			addRenderError(&resp.Diagnostics, objectset.Root("overrides"), e)
		}
	}
}
