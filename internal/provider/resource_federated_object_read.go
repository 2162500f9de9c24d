package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// Read refreshes the object from the host's Federated<Kind> and from each
// member that holds it, projected onto what was applied there. An imported
// object takes its configuration from the host; an object whose host record
// differs from what the state says was written takes the host's parts, so
// the plan shows them as a change.
func (r *federatedObjectResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.read(ctx, req, resp, resp.Private)
}

// read is Read with the private state, which the framework passes in both
// the request and the response, given apart, as modifyPlan is.
func (r *federatedObjectResource) read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse, private privateData) {
	var state federatedObjectModel
	resp.Diagnostics.Append(objectModels.fromState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	objectIdentity.set(ctx, resp.Identity, state.ID, &resp.Diagnostics)
	env := r.data.objects()
	if state.Template.IsNull() && state.SensitiveTemplate.IsNull() {
		// An imported object's configuration, and so what its members are
		// read against, comes from the host's record.
		r.readImported(ctx, env, &state, resp)
		return
	}
	hostRead := env.StartReadRecord(ctx, state.ID.ValueString())
	var memberDiags diag.Diagnostics
	o, snapshot, ok := r.readBack(ctx, env, &state, false, &memberDiags)
	host, problems := hostRead()
	if addProblems(&resp.Diagnostics, problems, nil); resp.Diagnostics.HasError() {
		return
	}
	if host.Object == nil {
		tflog.Info(ctx, "the federated object is gone from the host; removing it from the state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	// A tainted object is planned as a create, which finds this record.
	r.data.run.MarkHeld(objectset.RunKey(state.ID.ValueString()))
	if resp.Diagnostics.Append(memberDiags...); !ok {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, o.Secrets)
	resp.Diagnostics.Append(registeredAtReadNote.Save(ctx, private, snapshot.RegisteredNames())...)
	resp.Diagnostics.Append(refreshFromHost(ctx, &state, o, host.Object)...)
	resp.Diagnostics.Append(r.data.noteMemberEndpoints(ctx, private, sortedKeys(tfvalue.RenderedByCluster(state.Rendered)))...)
	resp.Diagnostics.Append(objectModels.toState(ctx, &resp.State, &state)...)
}

// readImported refreshes an imported object: its configuration from the
// host's record, then its members against it.
func (r *federatedObjectResource) readImported(ctx context.Context, env *objectset.Env, state *federatedObjectModel, resp *resource.ReadResponse) {
	host, problems := env.ReadRecord(ctx, state.ID.ValueString(), true)
	if addProblems(&resp.Diagnostics, problems, nil); resp.Diagnostics.HasError() || host.Object == nil {
		return
	}
	_, namespace, name := objectset.SplitID(state.ID.ValueString())
	if err := configFromHost(ctx, state, *host.Type, namespace, name, host.Object); err != nil {
		resp.Diagnostics.AddError("Cannot import the federated object", err.Error())
		return
	}
	o, _, ok := r.readBack(ctx, env, state, true, &resp.Diagnostics)
	if !ok {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, o.Secrets)
	resp.Diagnostics.Append(objectModels.toState(ctx, &resp.State, state)...)
}

// readBack reads each cluster the object is on back into state: what it
// holds there and how it does. It reports false when the inputs or the
// registered clusters could not be read. The caller redacts diags with the
// object's secrets.
func (r *federatedObjectResource) readBack(ctx context.Context, env *objectset.Env, state *federatedObjectModel, importing bool,
	diags *diag.Diagnostics) (*objectset.Object, *runstate.Snapshot, bool) {
	o, set := r.object(ctx, env, state, diags)
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		diags.AddError("Cannot read the registered clusters", err.Error())
	}
	if diags.HasError() {
		return nil, nil, false
	}
	held, out, problems := env.HeldToRead(ctx, o, snapshot, tfvalue.RenderedByCluster(state.Rendered), importing)
	addProblems(diags, problems, nil)
	if importing {
		state.PlacedClusters = stringSet(out.Placed)
	}
	var readProblems objectset.Problems
	view := env.ReadMembers(ctx, o, snapshot, held, healthEntries(state.ClusterHealth), &readProblems)
	addProblems(diags, readProblems, nil)
	state.Rendered = tfvalue.Rendered(view.Held)
	state.ClusterHealth = healthValue(view.Health, diags)
	state.ClusterStatus = statusValue(objectset.ReadStatus(statusEntries(state.ClusterStatus), view.Held, held), diags)
	if state.RolloutPlan.IsNull() {
		// An imported object, or one written before the order was kept.
		state.RolloutPlan = plannedOrder(set, setStrings(state.PlacedClusters), diags)
	}
	return o, snapshot, true
}

// configFromHost fills the configuration of an object from its
// Federated<Kind>, whether the provider or KubeFed wrote it.
func configFromHost(ctx context.Context, m *federatedObjectModel, ft registry.FederatedType, namespace, name string, fo *registry.FederatedObject) error {
	template, err := objectset.TemplateFromHost(ft, namespace, name, *fo)
	if err != nil {
		return err
	}
	m.setTemplate(templateValue{StringValue: types.StringValue(template)}, objectset.IsSecretType(ft.Target))
	if m.Placement, err = placementValue(ctx, fo.Placement); err != nil {
		return err
	}
	if m.Overrides, err = overridesValue(fo.Overrides); err != nil {
		return err
	}
	m.ClusterReplicas = types.MapNull(types.Int64Type)
	if fo.Orphan {
		m.DeletionPolicy = types.StringValue(deletionOrphan)
	}
	m.Rendered = types.ObjectNull(tfvalue.RenderedType.AttrTypes)
	m.ClusterStatus = types.MapNull(clusterStatusType)
	return nil
}
