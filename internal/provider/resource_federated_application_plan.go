package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// ModifyPlan plans each object of the set as a federated object is
// planned (placement, rendering per cluster, dry runs), and the set's
// rollout order.
func (r *federatedApplicationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.objects.data == nil || req.Plan.Raw.IsNull() {
		return
	}
	if reason := r.objects.unknownReason(req.Config.Raw.IsFullyKnown()); reason != "" {
		applicationUnknown(ctx, resp, reason, r.objects.data.hostKnown())
		return
	}
	var plan federatedApplicationModel
	resp.Diagnostics.Append(applicationModels.fromPlan(ctx, req.Plan, &plan)...)
	prior := priorApplication(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if prior != nil && !req.Plan.Raw.Equal(req.State.Raw) {
		// As for an object: in an apply's process, this is the first call.
		resp.Diagnostics.Append(r.objects.data.dialMembersAhead(ctx, resp.Private)...)
	}
	set, diags := r.set(ctx, &plan)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, set.secrets())
	seen, diags := registeredAtReadNote.Load(ctx, resp.Private)
	resp.Diagnostics.Append(diags...)
	snapshot, err := r.objects.data.snapshot(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the registered clusters", err.Error())
		return
	}
	held := heldByObject(prior)
	r.refuseOwned(ctx, set, held, &resp.Diagnostics)
	outs, fresh := r.desired(ctx, set, snapshot, seenSet(seen), held, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.checkSet(ctx, set, snapshot, outs, held, plan.ForceConflicts.ValueBool(), &resp.Diagnostics)
	placed := placedOf(outs)
	plan.ID = plan.Name
	plan.Objects = stringList(set.keys())
	plan.PlacedClusters = stringSet(placed)
	plan.Rendered = nestedStrings(renderedOf(outs))
	if len(set.objects) > 0 {
		plan.RolloutPlan = r.objects.plannedOrder(set.objects[0].in, placed, &resp.Diagnostics)
	} else {
		plan.RolloutPlan = rolloutPlanValue(nil, &resp.Diagnostics)
	}
	plan.ClusterStatus, plan.ClusterHealth = plannedSetOutcome(set, prior, outs)
	plan.HostRecords = plannedHostRecords(set)
	resp.Diagnostics.Append(applicationModels.toPlan(ctx, &resp.Plan, &plan)...)
	if len(fresh) > 0 {
		applicationUnknown(ctx, resp, fmt.Sprintf("the placement picks clusters this run registers (%s)", strings.Join(fresh, ", ")), true)
	}
}

// applicationUnknown plans what follows from placement as known at apply.
func applicationUnknown(ctx context.Context, resp *resource.ModifyPlanResponse, reason string, hostKnown bool) {
	if !hostKnown {
		resp.Diagnostics.AddWarning("Placement and rendered objects known at apply", reason)
	}
	for name, value := range map[string]attr.Value{
		"placed_clusters": types.SetUnknown(types.StringType),
		"rendered":        types.MapUnknown(types.MapType{ElemType: types.StringType}),
		"cluster_status":  types.MapUnknown(types.MapType{ElemType: clusterStatusType}),
		"cluster_health":  types.MapUnknown(types.MapType{ElemType: healthType}),
		"rollout_plan":    types.ListUnknown(rolloutPlanType.ElemType),
		"objects":         types.ListUnknown(types.StringType),
		"host_records":    types.MapUnknown(types.StringType),
	} {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), value)...)
	}
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

// secrets are the values of the set's Secrets, kept out of every message.
func (s *appSet) secrets() []string {
	var out []string
	for _, o := range s.objects {
		out = append(out, o.in.secrets...)
	}
	return out
}

// desired places and renders each object, reporting the placement's
// remarks once, for the first object. fresh are the clusters this run
// registers that the placement picks for a set not read before.
func (r *federatedApplicationResource) desired(ctx context.Context, set *appSet, snapshot *runstate.Snapshot, seen map[string]bool,
	held map[string]map[string]string, diags *diag.Diagnostics) (map[string]planned, []string) {
	outs := map[string]planned{}
	var fresh []string
	for i, o := range set.objects {
		o.in.seen = seen
		var d diag.Diagnostics
		out := r.objects.desired(ctx, o.in, snapshot, held[o.key.String()], true, &d)
		for _, each := range retarget(d, o) {
			if i == 0 || each.Severity() == diag.SeverityError || aboutObject(each) {
				diags.Append(each)
			}
		}
		outs[o.key.String()] = out
		for _, c := range out.fresh {
			if !slices.Contains(fresh, c) {
				fresh = append(fresh, c)
			}
		}
	}
	return outs, fresh
}

// aboutObject reports whether a diagnostic is about one object of the set
// (its manifest or an override), not the placement all objects share.
func aboutObject(d diag.Diagnostic) bool {
	withPath, ok := d.(diag.DiagnosticWithPath)
	if !ok {
		return false
	}
	p := withPath.Path().String()
	return strings.HasPrefix(p, "manifests") || strings.HasPrefix(p, "sensitive_manifests") || strings.HasPrefix(p, "overrides")
}

// refuseOwned fails the plan of an object new to the set whose
// Federated<Kind> the host holds for another owner: a federated object or
// another application.
func (r *federatedApplicationResource) refuseOwned(ctx context.Context, set *appSet, held map[string]map[string]string, diags *diag.Diagnostics) {
	if !r.objects.data.hostKnown() {
		return
	}
	reg, err := r.objects.data.registry(ctx)
	if err != nil {
		diags.AddError("Cannot check the host", err.Error())
		return
	}
	for _, o := range set.objects {
		if _, known := held[o.key.String()]; known {
			continue
		}
		namespace, name := registry.FederatedObjectLocation(o.in.ft, o.in.identity.Namespace, o.in.identity.Name)
		fo, err := reg.FindFederatedObject(ctx, o.in.ft, namespace, name)
		if err != nil || fo.Application == o.in.application {
			continue
		}
		owner := "a kubefed_federated_object (import it there, or remove it from that configuration first)"
		if fo.Application != "" {
			owner = fmt.Sprintf("application %q", fo.Application)
		}
		diags.AddAttributeError(o.at, "Object owned by another resource",
			fmt.Sprintf("The host records %s as %s %s, owned by %s: a set takes over no object another resource manages.",
				o.key.Object(), o.in.ft.Federated.Kind, objectLocation(namespace, name), owner))
	}
}

func objectLocation(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// checkSet dry-runs each changed object on its members, several objects
// at once (a dry run writes nothing, so their order does not matter). An object in a namespace the set creates on a cluster is checked
// at apply there: a dry run cannot see a namespace that does not exist yet.
func (r *federatedApplicationResource) checkSet(ctx context.Context, set *appSet, snapshot *runstate.Snapshot,
	outs map[string]planned, held map[string]map[string]string, force bool, diags *diag.Diagnostics) {
	created := namespacesCreated(set, outs, held)
	eachObject(set.objects, diags, func(o *appObject, diags *diag.Diagnostics) {
		out := outs[o.key.String()]
		checked := out
		checked.objects = maps.Clone(out.objects)
		for cluster := range checked.objects {
			if created[cluster][o.key.Namespace] {
				delete(checked.objects, cluster)
			}
		}
		var d diag.Diagnostics
		_, known := held[o.key.String()]
		r.objects.checkMembers(ctx, o.in, snapshot, checked, held[o.key.String()], force, !known, &d)
		diags.Append(retarget(d, o)...)
	})
}

// namespacesCreated are, by cluster, the namespaces the set's Namespace
// objects bring to a cluster that did not hold them.
func namespacesCreated(set *appSet, outs map[string]planned, held map[string]map[string]string) map[string]map[string]bool {
	created := map[string]map[string]bool{}
	for _, o := range set.objects {
		if o.key.Group != "" || o.key.Kind != "Namespace" {
			continue
		}
		for cluster := range outs[o.key.String()].rendered {
			if _, had := held[o.key.String()][cluster]; had {
				continue
			}
			if created[cluster] == nil {
				created[cluster] = map[string]bool{}
			}
			created[cluster][o.key.Name] = true
		}
	}
	return created
}

// placedOf is every cluster some object is placed on.
func placedOf(outs map[string]planned) []string {
	var placed []string
	for _, out := range outs {
		for _, c := range out.placed {
			if !slices.Contains(placed, c) {
				placed = append(placed, c)
			}
		}
	}
	slices.Sort(placed)
	if placed == nil {
		placed = []string{}
	}
	return placed
}

// renderedOf is, by object, what each cluster receives.
func renderedOf(outs map[string]planned) map[string]map[string]string {
	out := map[string]map[string]string{}
	for key, p := range outs {
		out[key] = p.rendered
	}
	return out
}

// plannedSetOutcome keeps the prior status and health when apply has
// nothing to do for any object, and leaves them to apply otherwise.
func plannedSetOutcome(set *appSet, prior *federatedApplicationModel, outs map[string]planned) (types.Map, types.Map) {
	unknown := func() (types.Map, types.Map) {
		return types.MapUnknown(types.MapType{ElemType: clusterStatusType}), types.MapUnknown(types.MapType{ElemType: healthType})
	}
	if prior == nil || prior.ClusterStatus.IsUnknown() || !maps.EqualFunc(heldByObject(prior), renderedOf(outs), maps.Equal) {
		return unknown()
	}
	for _, o := range set.objects {
		if len(pendingRollouts(o.in, appObjectState(prior, o.key.String()))) > 0 {
			return unknown()
		}
	}
	return prior.ClusterStatus, prior.ClusterHealth
}

// applicationClusters are the clusters that hold an object of the
// application, sorted.
func applicationClusters(m *federatedApplicationModel) []string {
	return sortedKeys(nestedStringsOf(m.Rendered))
}

// heldByObject is, by object and cluster, what the state says each
// cluster holds.
func heldByObject(m *federatedApplicationModel) map[string]map[string]string {
	out := map[string]map[string]string{}
	if m == nil {
		return out
	}
	for cluster, objects := range nestedStringsOf(m.Rendered) {
		for key, text := range objects {
			if out[key] == nil {
				out[key] = map[string]string{}
			}
			out[key][cluster] = text
		}
	}
	return out
}

// objectState is one object's part of the application's state, as a
// federated object's state: rendered, status and health by cluster.
func appObjectState(m *federatedApplicationModel, key string) *federatedObjectModel {
	if m == nil {
		return nil
	}
	return &federatedObjectModel{
		Rendered:      stringMap(heldByObject(m)[key]),
		ClusterStatus: objectEntries(m.ClusterStatus, key, clusterStatusType),
		ClusterHealth: objectEntries(m.ClusterHealth, key, healthType),
	}
}

// objectEntries is, from a map of cluster to map of object key, the
// entries of one object by cluster.
func objectEntries(v types.Map, key string, elem attr.Type) types.Map {
	entries := map[string]attr.Value{}
	if !v.IsNull() && !v.IsUnknown() {
		for cluster, inner := range v.Elements() {
			if m, ok := inner.(types.Map); ok {
				if e, ok := m.Elements()[key]; ok {
					entries[cluster] = e
				}
			}
		}
	}
	out, _ := types.MapValue(elem, entries)
	return out
}

// byCluster turns per-object maps of cluster to value (one types.Map of
// elem per object) into the application's map of cluster to object.
func byCluster(perObject map[string]types.Map, elem attr.Type) types.Map {
	inner := map[string]map[string]attr.Value{}
	for key, m := range perObject {
		if m.IsNull() || m.IsUnknown() {
			continue
		}
		for cluster, e := range m.Elements() {
			if inner[cluster] == nil {
				inner[cluster] = map[string]attr.Value{}
			}
			inner[cluster][key] = e
		}
	}
	outer := map[string]attr.Value{}
	for cluster, entries := range inner {
		outer[cluster], _ = types.MapValue(elem, entries)
	}
	out, _ := types.MapValue(types.MapType{ElemType: elem}, outer)
	return out
}

// nestedStrings is rendered of the application: by cluster, by object.
func nestedStrings(perObject map[string]map[string]string) types.Map {
	values := map[string]types.Map{}
	for key, m := range perObject {
		values[key] = stringMap(m)
	}
	return byCluster(values, types.StringType)
}

// nestedStringsOf reads rendered: by cluster, by object.
func nestedStringsOf(v types.Map) map[string]map[string]string {
	out := map[string]map[string]string{}
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	for cluster, inner := range v.Elements() {
		if m, ok := inner.(types.Map); ok {
			out[cluster] = mapStrings(m)
		}
	}
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

// keysOf are the object keys the state records, in the order a cluster
// receives them.
func keysOf(m *federatedApplicationModel) []federation.Key {
	var keys []federation.Key
	for key := range heldByObject(m) {
		if k, err := federation.ParseKey(key); err == nil {
			keys = append(keys, k)
		}
	}
	return slices.Concat(federation.ApplyOrder(keys)...)
}
