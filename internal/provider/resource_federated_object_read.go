package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
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
	importing := state.Template.IsNull() && state.SensitiveTemplate.IsNull()
	if importing {
		// An imported object's configuration, and so what its members are
		// read against, comes from the host's record.
		r.readImported(ctx, &state, resp)
		return
	}
	// The host's record and the members are read at once: the members are
	// read against the state, which the record does not change.
	var host *registry.FederatedObject
	var hostDiags diag.Diagnostics
	hostRead := make(chan struct{})
	located := federatedObjectModel{ID: state.ID}
	go func() {
		defer close(hostRead)
		host = r.readHost(ctx, &located, false, &hostDiags)
	}()
	var memberDiags diag.Diagnostics
	in, snapshot, ok := r.readBack(ctx, &state, false, &memberDiags)
	<-hostRead
	if resp.Diagnostics.Append(hostDiags...); resp.Diagnostics.HasError() {
		return
	}
	if host == nil {
		tflog.Info(ctx, "the federated object is gone from the host; removing it from the state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	// A tainted object is planned as a create, which finds this record.
	r.data.run.MarkHeld(objectKey(state.ID.ValueString()))
	if resp.Diagnostics.Append(memberDiags...); !ok {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, in.secrets)
	resp.Diagnostics.Append(registeredAtReadNote.Save(ctx, private, snapshot.RegisteredNames())...)
	resp.Diagnostics.Append(refreshFromHost(ctx, &state, in, host)...)
	resp.Diagnostics.Append(r.data.noteMemberEndpoints(ctx, private, sortedKeys(mapStrings(state.Rendered)))...)
	resp.Diagnostics.Append(objectModels.toState(ctx, &resp.State, &state)...)
}

// readImported refreshes an imported object: its configuration from the
// host's record, then its members against it.
func (r *federatedObjectResource) readImported(ctx context.Context, state *federatedObjectModel, resp *resource.ReadResponse) {
	host := r.readHost(ctx, state, true, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || host == nil {
		return
	}
	in, _, ok := r.readBack(ctx, state, true, &resp.Diagnostics)
	if !ok {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, in.secrets)
	resp.Diagnostics.Append(objectModels.toState(ctx, &resp.State, state)...)
}

// readBack reads each cluster the object is on back into state: what it
// holds there and how it does. It reports false when the inputs or the
// registered clusters could not be read. The caller redacts diags with the
// inputs' secrets.
func (r *federatedObjectResource) readBack(ctx context.Context, state *federatedObjectModel, importing bool,
	diags *diag.Diagnostics) (*objectInputs, *runstate.Snapshot, bool) {
	in, inDiags := r.inputs(ctx, state)
	diags.Append(inDiags...)
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		diags.AddError("Cannot read the registered clusters", err.Error())
	}
	if diags.HasError() {
		return nil, nil, false
	}
	held := r.heldToRead(ctx, in, snapshot, state, importing, diags)
	now, health := r.readMembers(ctx, in, snapshot, held, healthEntries(state.ClusterHealth), diags)
	state.Rendered = stringMap(now)
	state.ClusterHealth = healthValue(health, diags)
	state.ClusterStatus = readStatus(state.ClusterStatus, mapStrings(state.Rendered), held, diags)
	if state.RolloutPlan.IsNull() {
		// An imported object, or one written before the order was kept.
		state.RolloutPlan = r.plannedOrder(in, setStrings(state.PlacedClusters), diags)
	}
	return in, snapshot, true
}

// heldToRead is what each cluster is read back against: what the state
// says it holds or, for an imported object and for a cluster whose write
// was cut off (reconcile.Unknown), what the placement sends it.
func (r *federatedObjectResource) heldToRead(ctx context.Context, in *objectInputs, snapshot *runstate.Snapshot,
	state *federatedObjectModel, importing bool, diags *diag.Diagnostics) map[string]string {
	held := mapStrings(state.Rendered)
	if !importing && !slices.Contains(slices.Collect(maps.Values(held)), reconcile.Unknown) {
		return held
	}
	out := r.desired(ctx, in, snapshot, nil, false, diags)
	if importing {
		state.PlacedClusters = stringSet(out.placed)
		return out.rendered
	}
	for cluster, object := range held {
		if want, ok := out.rendered[cluster]; ok && object == reconcile.Unknown {
			held[cluster] = want
		}
	}
	return held
}

// readStatus is cluster_status after a refresh: a cluster whose write was
// cut off and is read back now is OK; an object without a status yet (an
// imported one) is OK wherever it is.
func readStatus(prior types.Map, now, read map[string]string, diags *diag.Diagnostics) types.Map {
	status := map[string]reconcile.Status{}
	if !prior.IsNull() && !prior.IsUnknown() {
		for cluster, s := range statusEntries(prior) {
			status[cluster] = s
		}
	}
	for cluster, object := range now {
		if s, ok := status[cluster]; !ok || (s.Status == reconcile.StatusUnknown && object != reconcile.Unknown && read[cluster] != reconcile.Unknown) {
			status[cluster] = reconcile.Status{Status: reconcile.StatusOK}
		}
	}
	return statusValue(status, diags)
}

// readHost reads the object's Federated<Kind>, filling the configuration
// from it when importing. It returns nil when the host has no such object.
func (r *federatedObjectResource) readHost(ctx context.Context, m *federatedObjectModel, importing bool, diags *diag.Diagnostics) *registry.FederatedObject {
	reg, err := r.data.registry(ctx)
	if err != nil {
		diags.AddError("Cannot read the federated object from the host", err.Error())
		return nil
	}
	typeName, namespace, name := splitObjectID(m.ID.ValueString())
	ft, err := r.data.federatedType(ctx, reg, typeName)
	if err != nil {
		diags.AddAttributeError(path.Root("type"), "Cannot read the federated object", err.Error())
		return nil
	}
	hostNamespace, hostName := registry.FederatedObjectLocation(*ft, namespace, name)
	fo, err := reg.GetFederatedObject(ctx, *ft, hostNamespace, hostName)
	if errors.Is(err, registry.ErrNotFound) {
		if importing {
			diags.AddError("Cannot import the federated object", err.Error())
		}
		return nil
	}
	if err != nil {
		diags.AddError("Cannot read the federated object from the host", err.Error())
		return nil
	}
	if importing {
		if err := configFromHost(ctx, m, *ft, namespace, name, fo); err != nil {
			diags.AddError("Cannot import the federated object", err.Error())
			return nil
		}
	}
	return fo
}

// splitObjectID splits `<type>/<namespace>/<name>` or `<type>/<name>`.
func splitObjectID(id string) (typeName, namespace, name string) {
	parts := strings.Split(id, "/")
	typeName, name = parts[0], parts[len(parts)-1]
	if len(parts) == 3 {
		namespace = parts[1]
	}
	return typeName, namespace, name
}

// configFromHost fills the configuration of an object from its
// Federated<Kind>, whether the provider or KubeFed wrote it.
func configFromHost(ctx context.Context, m *federatedObjectModel, ft registry.FederatedType, namespace, name string, fo *registry.FederatedObject) error {
	template, err := templateFromHost(ft, namespace, name, fo.Template)
	if err != nil {
		return err
	}
	m.setTemplate(template, isSecretType(ft.Target))
	if m.Placement, err = placementValue(ctx, fo.Placement); err != nil {
		return err
	}
	if m.Overrides, err = overridesValue(ctx, fo.Overrides); err != nil {
		return err
	}
	m.ClusterReplicas = types.MapNull(types.Int64Type)
	if fo.Orphan {
		m.DeletionPolicy = types.StringValue(deletionOrphan)
	}
	m.Rendered = types.MapNull(types.StringType)
	m.ClusterStatus = types.MapNull(clusterStatusType)
	return nil
}

// readMembers fetches the object from each cluster in held, in parallel,
// and returns what each holds, projected onto what was applied there, and
// how it does there. An object deleted out of band drops out, so the plan
// re-creates it; an unreachable cluster keeps its entries, with a warning.
func (r *federatedObjectResource) readMembers(ctx context.Context, in *objectInputs, snapshot *runstate.Snapshot, held map[string]string,
	priorHealth map[string]rollout.Health, diags *diag.Diagnostics) (map[string]string, map[string]rollout.Health) {
	now := map[string]string{}
	health := map[string]rollout.Health{}
	for cluster, h := range priorHealth {
		if _, ok := held[cluster]; ok {
			health[cluster] = h
		}
	}
	applied := map[string]map[string]any{}
	members := map[string]propagation.Member{}
	for _, cluster := range sortedKeys(held) {
		obj, err := decodeObject(held[cluster])
		m, merr := r.member(snapshot, cluster)
		if err != nil || merr != nil {
			now[cluster] = held[cluster]
			if merr != nil && !errors.Is(merr, errNotRegistered) {
				diags.AddWarning(fmt.Sprintf("Cannot read %s on cluster %q", in.object, cluster), merr.Error())
			}
			continue
		}
		if in.retain {
			// The member owns its replicas: they are neither applied again
			// nor read back.
			unstructured.RemoveNestedField(obj, "spec", "replicas")
		}
		applied[cluster] = obj
		members[cluster] = m
	}
	opts := r.options(false, r.data.settings.RequestTimeout)
	results := propagation.FanOut(ctx, sortedKeys(members), opts, func(ctx context.Context, cluster string) (propagation.Answer, error) {
		return propagation.Read(ctx, members[cluster], in.object, applied[cluster], opts)
	})
	for _, result := range results {
		res := result.Value
		switch {
		case result.Err != nil:
			now[result.Cluster] = held[result.Cluster]
			diags.AddWarning(fmt.Sprintf("Cluster %q could not be read", result.Cluster),
				"The state keeps what the cluster last held. "+result.Err.Error())
		case res.Found:
			health[result.Cluster] = rollout.HealthOf(res.Object)
			display, err := in.canonical(res.Live)
			if err != nil {
				now[result.Cluster] = held[result.Cluster]
				diags.AddWarning(fmt.Sprintf("Cannot compare %s on cluster %q", in.object, result.Cluster), err.Error())
				continue
			}
			now[result.Cluster] = display
		default:
			delete(health, result.Cluster)
		}
	}
	return now, health
}

func decodeObject(text string) (map[string]any, error) {
	var obj map[string]any
	err := json.Unmarshal([]byte(text), &obj)
	return obj, err
}
