package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
)

var (
	_ resource.ResourceWithConfigure      = (*replicaSchedulingPreferenceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*replicaSchedulingPreferenceResource)(nil)
	_ resource.ResourceWithImportState    = (*replicaSchedulingPreferenceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*replicaSchedulingPreferenceResource)(nil)
)

// NewReplicaSchedulingPreferenceResource returns the
// kubefed_replica_scheduling_preference resource.
func NewReplicaSchedulingPreferenceResource() resource.Resource {
	return &replicaSchedulingPreferenceResource{}
}

type replicaSchedulingPreferenceResource struct {
	data *providerData
}

type replicaSchedulingPreferenceModel struct {
	ID               types.String  `tfsdk:"id"`
	Namespace        types.String  `tfsdk:"namespace"`
	Name             types.String  `tfsdk:"name"`
	TargetKind       types.String  `tfsdk:"target_kind"`
	ReplicasPath     types.String  `tfsdk:"replicas_path"`
	TotalReplicas    types.Int64   `tfsdk:"total_replicas"`
	Rebalance        types.Bool    `tfsdk:"rebalance"`
	Strategy         types.String  `tfsdk:"strategy"`
	Clusters         types.Map     `tfsdk:"clusters"`
	ClusterSelector  types.Dynamic `tfsdk:"cluster_selector"`
	Replicas         types.Map     `tfsdk:"replicas"`
	UnplacedReplicas types.Int64   `tfsdk:"unplaced_replicas"`
	ExcludedClusters types.Map     `tfsdk:"excluded_clusters"`

	Capacity           types.String         `tfsdk:"capacity"`
	ReplicaRequests    types.Map            `tfsdk:"replica_requests"`
	Template           templateValue        `tfsdk:"template"`
	UnschedulableAfter timetypes.GoDuration `tfsdk:"unschedulable_after"`
	WeightBy           types.String         `tfsdk:"weight_by"`
	MaxClusters        types.Int64          `tfsdk:"max_clusters"`
	Spread             types.Object         `tfsdk:"spread"`
	EstimatedCapacity  types.Map            `tfsdk:"estimated_capacity"`
}

type clusterPreferenceModel struct {
	MinReplicas types.Int64 `tfsdk:"min_replicas"`
	MaxReplicas types.Int64 `tfsdk:"max_replicas"`
	Weight      types.Int64 `tfsdk:"weight"`
}

var clusterPreferenceType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"min_replicas": types.Int64Type,
	"max_replicas": types.Int64Type,
	"weight":       types.Int64Type,
}}

// everyClusterAlike is the clusters map that an absent or empty one stands
// for: every cluster with weight 1.
var everyClusterAlike = types.MapValueMust(clusterPreferenceType, map[string]attr.Value{
	scheduling.Wildcard: types.ObjectValueMust(clusterPreferenceType.AttrTypes, map[string]attr.Value{
		"min_replicas": types.Int64Value(0),
		"max_replicas": types.Int64Null(),
		"weight":       types.Int64Value(1),
	}),
})

func (r *replicaSchedulingPreferenceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_replica_scheduling_preference"
}

func (r *replicaSchedulingPreferenceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: dynamicSelectorsVersion,
		MarkdownDescription: "Splits a total number of replicas across the federation's clusters by weight, minimum and maximum, " +
			"as KubeFed's ReplicaSchedulingPreference does, but at plan time: the plan shows each cluster's count. Clusters that are " +
			"not ready when planning get nothing, so their share moves to the healthy ones (failover), and the plan says which were " +
			"excluded and why.\n\n" +
			"The preference is stored in the host as a `ReplicaSchedulingPreference` (scheduling.kubefed.io/v1alpha1) with KubeFed's " +
			"field names, named after the federated object it schedules. Nothing is written to member clusters by this resource: " +
			"pass `replicas` to the `cluster_replicas` of the `kubefed_federated_object` of the same namespace and name, whose plan " +
			"then shows each cluster's `spec.replicas`.\n\n" +
			"With `rebalance = false` (KubeFed's default) the replicas that already run stay where they are: the current counts are read " +
			"from the member objects when planning. So after a failover, the replicas stay on the clusters that took them over, even when " +
			"the failed cluster comes back; set `rebalance = true` to spread them again.\n\n" +
			"**Capacity.** With `capacity = \"auto\"` no cluster is planned more replicas than it can hold. Each candidate's Nodes and " +
			"Pods are read (in parallel, through the registration's credentials) and the room is estimated as Karmada's general " +
			"estimator does: on every Ready, uncordoned node whose taints the replica tolerates and whose labels its node selector and " +
			"required node affinity accept, allocatable minus the requests of the pods bound there, divided by one replica's requests " +
			"(cpu, memory, ephemeral storage and the pod count, whichever runs out first), summed, plus the replicas the workload runs " +
			"there already. Pods of the workload Pending as Unschedulable for longer than `unschedulable_after` cap the cluster at what " +
			"it placed, as KubeFed does. What does not fit goes to the other clusters in weight order; what fits nowhere is " +
			"`unplaced_replicas`, with a warning. The figures are shown in `estimated_capacity`, and a plan warning names each cluster " +
			"whose share was cut and why.\n\n" +
			"A replica's requests come from `replica_requests`, or from `template`: the same document the `kubefed_federated_object` " +
			"takes, passed from the same local. The preference cannot refer to the object itself, whose `cluster_replicas` refers to " +
			"the preference; and reading the object's template from the host would give the one of the last apply, not the one " +
			"being planned.\n\n" +
			"Refresh records the estimate in the resource's private state, and both plans of a run (the one shown and the one Terraform " +
			"makes again at apply) split by that record, so the apply does what the plan showed even when the members change in " +
			"between. A new preference, changed requests or `template`, a plan without refresh and a cluster the record lacks are read " +
			"when planning instead; should the members change before that apply, Terraform stops it as inconsistent, and a new plan " +
			"goes through. The estimate is a snapshot, not a reservation, and does not see pod affinity, topology spread, host ports, " +
			"volumes, quotas or autoscaling; KubeFed's feedback catches what it misses. A member that refuses to list its Nodes or " +
			"Pods is left unbounded, with a warning.\n\n" +
			"**Choosing clusters.** `weight_by = \"available_capacity\"` divides by the estimated capacities instead of the weights; " +
			"`max_clusters` and `spread` choose the clusters that take part, and `excluded_clusters` says why the others do not. " +
			"The guide on failover and rebalancing tells more.\n\n" +
			"What KubeFed's type has no field for (`strategy`, `replicas_path`, `cluster_selector`) is kept in annotations that KubeFed " +
			"ignores. The capacity and choice attributes are kept in the state only: an imported preference starts with their defaults.\n\n" +
			"A cluster that someone else registers between plan and apply is left out of that apply's split, with a warning, and " +
			"considered by the next plan: the apply keeps the split the plan showed. (A preference created by that apply has no " +
			"earlier read to go by: Terraform stops the apply as inconsistent, and a new plan takes the cluster in.)",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "`namespace/name`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"namespace": schema.StringAttribute{
				Required:      true,
				Description:   "Namespace of the federated object whose replicas this schedules. Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{dnsLabelValidator},
			},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Name of the federated object whose replicas this schedules (KubeFed's convention). Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{dnsSubdomainValidator{}},
			},
			"target_kind": schema.StringAttribute{
				Optional:    true,
				Computed:    true,
				Default:     stringdefault.StaticString("FederatedDeployment"),
				Description: "Kind of the federated object: `FederatedDeployment` (the default), `FederatedReplicaSet`, or any `Federated<Kind>` whose target has a replica count.",
				Validators:  []validator.String{stringvalidator.RegexMatches(federatedKindPattern, "must be Federated<Kind>, such as FederatedDeployment")},
			},
			"replicas_path": schema.StringAttribute{
				Optional:    true,
				Computed:    true,
				Default:     stringdefault.StaticString(federation.DefaultReplicasPath),
				Description: "JSON pointer to the replica count in the target object, read for the current counts. Defaults to `/spec/replicas`.",
				Validators:  []validator.String{jsonPointerValidator},
			},
			"total_replicas": schema.Int64Attribute{
				Required:    true,
				Description: "How many replicas to spread, at least 0.",
				Validators:  []validator.Int64{int64validator.Between(0, scheduling.MaxTotalReplicas)},
			},
			"rebalance": schema.BoolAttribute{
				Optional:    true,
				Computed:    true,
				Default:     booldefault.StaticBool(false),
				Description: "Whether replicas that already run may move. Defaults to false, as in KubeFed: running replicas stay where they are.",
			},
			"strategy": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(string(scheduling.KubeFed)),
				Description: "`kubefed` (the default) behaves exactly like KubeFed's planner; `balanced` divides what is left after minimums in " +
					"proportion to weight (Webster), so 10 replicas over three equal clusters give 4/3/3 rather than 4/4/2.",
				Validators: []validator.String{stringvalidator.OneOf(string(scheduling.KubeFed), string(scheduling.Balanced))},
			},
			"clusters": schema.MapNestedAttribute{
				Optional: true,
				Computed: true,
				// Absent is spelt out as the host's object records it, so that an
				// import, which reads that spelling, plans nothing either way.
				Default: mapdefault.StaticValue(everyClusterAlike),
				Description: "Preferences by cluster name, or `\"*\"` for every cluster without its own entry. A cluster with neither gets 0. " +
					"Defaults to `{\"*\" = {weight = 1}}`; an empty map means the same.",
				Validators: []validator.Map{clusterKeysValidator{all: true}},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"min_replicas": schema.Int64Attribute{
						Optional: true, Computed: true, Default: int64default.StaticInt64(0),
						Description: "Replicas the cluster gets before any weight is considered. Defaults to 0.",
						Validators:  []validator.Int64{int64validator.Between(0, scheduling.MaxTotalReplicas)},
					},
					"max_replicas": schema.Int64Attribute{
						Optional:    true,
						Description: "Most replicas the cluster gets, at least `min_replicas`. Unbounded when unset.",
						Validators:  []validator.Int64{int64validator.Between(0, scheduling.MaxTotalReplicas)},
					},
					"weight": schema.Int64Attribute{
						Optional: true, Computed: true, Default: int64default.StaticInt64(0),
						Description: "The cluster's share of what is left after minimums. Defaults to 0.",
						Validators:  []validator.Int64{int64validator.AtLeast(0)},
					},
				}},
			},
			"replicas": schema.MapAttribute{
				Computed:    true,
				ElementType: types.Int64Type,
				Description: "Replicas per candidate cluster, zeros included, as computed at plan time.",
			},
			"unplaced_replicas": schema.Int64Attribute{
				Computed: true,
				Description: "Replicas no cluster could take, because every cluster is at its maximum or its estimated capacity, " +
					"or the weights are zero.",
			},
			"excluded_clusters": schema.MapAttribute{
				Computed:    true,
				ElementType: types.StringType,
				Description: "Candidates left out, with the reason: not ready when planning, or not chosen by `max_clusters` or `spread`.",
			},
			"cluster_selector": clusterSelectorAttribute("The candidates are the registered clusters that match. " +
				"Absent means every registered cluster."),
		},
	}
	maps.Copy(resp.Schema.Attributes, capacityAttributes())
}

func (r *replicaSchedulingPreferenceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig runs the planner's own checks of the preferences with no
// cluster, and checks what the capacity estimate reads (requests, template,
// threshold), so terraform validate reports a bad value at its attribute.
func (r *replicaSchedulingPreferenceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config replicaSchedulingPreferenceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if config.Strategy.IsNull() {
		config.Strategy = types.StringValue(string(scheduling.KubeFed))
	}
	validateCapacity(ctx, &config, &resp.Diagnostics)
	in, known, diags := config.plannerInput(ctx)
	if diags.HasError() || !known {
		resp.Diagnostics.Append(diags...)
		return
	}
	if _, err := scheduling.Plan(in); err != nil {
		addPlannerError(&resp.Diagnostics, err)
	}
}

func (r *replicaSchedulingPreferenceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan replicaSchedulingPreferenceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !req.State.Raw.IsNull() {
		var prior replicaSchedulingPreferenceModel
		resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
		keepPriorSelector(&plan.ClusterSelector, prior.ClusterSelector)
	}
	if !plan.Namespace.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = types.StringValue(plan.Namespace.ValueString() + "/" + plan.Name.ValueString())
		key := preferenceKey(plan.ID.ValueString())
		if !req.State.Raw.IsNull() {
			resp.Diagnostics.Append(plannedFromStateNote.Save(ctx, resp.Private, key)...)
		} else if r.data.checkedAtPlan(true) && !noteHolds(ctx, req.Private, plannedFromStateNote, key, &resp.Diagnostics) {
			r.refuseExisting(ctx, plan.Namespace.ValueString(), plan.Name.ValueString(), &resp.Diagnostics)
		}
	}

	split := r.planSplit(ctx, &plan, readNotes(ctx, req.Private, &resp.Diagnostics), true, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if split != nil {
		plan.EstimatedCapacity = r.plannedFigures(ctx, req.State, &plan, *split, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planSplit computes the split into plan and returns it, or plans it as
// unknown and returns nil when an input or the clusters it would go to are
// only known at apply. At apply (planning false) it computes what the plan
// left unknown, over the clusters registered by then.
func (r *replicaSchedulingPreferenceResource) planSplit(ctx context.Context, plan *replicaSchedulingPreferenceModel, notes priorRead,
	planning bool, diags *diag.Diagnostics) *splitResult {
	in, known, d := plan.plannerInput(ctx)
	diags.Append(d...)
	capInputs, capKnown := plan.plannedCapacityInputs(ctx, diags)
	if diags.HasError() {
		return nil
	}
	if !known || !capKnown {
		plan.setUnknownSplit()
		return nil
	}
	// Bad preferences are errors even when no cluster can be asked.
	if _, err := scheduling.Plan(in); err != nil {
		addPlannerError(diags, err)
		return nil
	}
	split, warnings, err := r.split(ctx, plan, in, capInputs, notes, planning)
	var inputErr *scheduling.InputError
	var fresh *registeredInRunError
	switch {
	case errors.As(err, &inputErr):
		addPlannerError(diags, err)
		return nil
	case errors.As(err, &fresh):
		if capInputs != nil || in.WeightBy == scheduling.AvailableCapacity {
			diags.AddAttributeWarning(path.Root("replicas"), "Replica split known at apply",
				fmt.Sprintf("ReplicaSchedulingPreference %s: %v. Their capacity can only be read once they are registered, so "+
					"the split is computed at apply, after them when the preference depends on them.", plan.ID.ValueString(), err))
		}
		plan.setUnknownSplit()
		return nil
	case err != nil:
		diags.AddWarning("Replica split not known until apply",
			fmt.Sprintf("ReplicaSchedulingPreference %s: %v. The split is planned as unknown and computed when the host can be read.",
				plan.ID.ValueString(), err))
		plan.setUnknownSplit()
		return nil
	}
	for _, w := range warnings {
		diags.AddAttributeWarning(pathAt(w.At), w.Summary, w.Detail)
	}
	if split.unplaced > 0 {
		diags.AddAttributeWarning(path.Root("total_replicas"), "Some replicas cannot be placed",
			fmt.Sprintf("%d of %d replicas of %s have no cluster: every candidate is at its max_replicas or its estimated "+
				"capacity, or the weights left are 0.", split.unplaced, in.TotalReplicas, plan.ID.ValueString()))
	}
	plan.Replicas = int64MapValue(ctx, split.replicas, diags)
	plan.UnplacedReplicas = types.Int64Value(split.unplaced)
	plan.ExcludedClusters = stringMap(split.excluded)
	plan.EstimatedCapacity = int64MapValue(ctx, split.estimated, diags)
	return &split
}

func (r *replicaSchedulingPreferenceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var namespace, name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("namespace"), &namespace)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	id := namespace.ValueString() + "/" + name.ValueString()
	r.data.claimCreate(preferenceKey(id), "ReplicaSchedulingPreference "+id, path.Root("name"), &resp.Diagnostics)
	if r.refuseExisting(ctx, namespace.ValueString(), name.ValueString(), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	r.save(ctx, req.Plan, &resp.State, &resp.Diagnostics)
	preferenceIdentity.set(ctx, resp.Identity, idOf(ctx, resp.State, &resp.Diagnostics), &resp.Diagnostics)
	resp.Diagnostics.Append(forgetNotes(ctx, resp.Private, registeredAtReadNote, capacityAtReadNote, plannedFromStateNote)...)
}

func (r *replicaSchedulingPreferenceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.save(ctx, req.Plan, &resp.State, &resp.Diagnostics)
	preferenceIdentity.set(ctx, resp.Identity, idOf(ctx, resp.State, &resp.Diagnostics), &resp.Diagnostics)
	resp.Diagnostics.Append(forgetNotes(ctx, resp.Private, registeredAtReadNote, capacityAtReadNote, plannedFromStateNote)...)
}

// save writes what the plan says, split included, and records it as state:
// apply never recomputes a split the plan showed; one the plan left unknown
// is computed now.
func (r *replicaSchedulingPreferenceResource) save(ctx context.Context, planned tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics) {
	var plan replicaSchedulingPreferenceModel
	diags.Append(planned.Get(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	if plan.Replicas.IsUnknown() {
		if r.planSplit(ctx, &plan, priorRead{}, false, diags); diags.HasError() {
			return
		}
		if plan.Replicas.IsUnknown() {
			diags.AddError("Cannot compute the replica split",
				fmt.Sprintf("ReplicaSchedulingPreference %s: an input of the split is still unknown at apply.", plan.ID.ValueString()))
			return
		}
	}
	r.write(ctx, &plan, diags)
	if diags.HasError() {
		return
	}
	diags.Append(state.Set(ctx, &plan)...)
}

func (r *replicaSchedulingPreferenceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state replicaSchedulingPreferenceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	preferenceIdentity.set(ctx, resp.Identity, state.ID, &resp.Diagnostics)
	reg, err := r.data.registry(ctx)
	if err != nil {
		resp.Diagnostics.AddWarning("Cannot refresh the replica scheduling preference",
			fmt.Sprintf("%s: %v. The last known state is kept.", state.ID.ValueString(), err))
		return
	}
	stored, err := reg.GetSchedulingPreference(ctx, state.Namespace.ValueString(), state.Name.ValueString())
	if errors.Is(err, registry.ErrNotFound) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the replica scheduling preference", err.Error())
		return
	}
	if stored.ClusterSelector == nil && stored.IntersectWithClusterSelector {
		// KubeFed's own preference: its candidates are the target object's
		// selected clusters, which is the same as selecting by that selector.
		stored.ClusterSelector = r.targetSelector(ctx, reg, stored, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(state.fromStored(ctx, stored)...)
	state.defaultCapacityOptions()
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	if snapshot, err := r.data.snapshot(ctx); err == nil {
		resp.Diagnostics.Append(registeredAtReadNote.Save(ctx, resp.Private, snapshot.RegisteredNames())...)
	}
	resp.Diagnostics.Append(r.noteCapacityAtRead(ctx, &state, resp.Private)...)
}

func (r *replicaSchedulingPreferenceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state replicaSchedulingPreferenceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reg, err := r.data.registry(ctx)
	if err == nil {
		if err = reg.DeleteSchedulingPreference(ctx, state.Namespace.ValueString(), state.Name.ValueString()); err == nil {
			addProblems(&resp.Diagnostics, r.data.objects().RemoveCreatedNamespace(ctx, reg, state.Namespace.ValueString()), nil)
		}
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot delete the replica scheduling preference", err.Error())
	}
}

// ImportState takes `<namespace>/<name>`, as the ID or as the identity.
func (r *replicaSchedulingPreferenceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, ok := preferenceIdentity.importID(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	namespace, name, ok := strings.Cut(id, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("Import a replica scheduling preference by namespace/name, such as shop/web; got %q.", id))
		return
	}
	preferenceIdentity.set(ctx, resp.Identity, types.StringValue(id), &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

// write stores the preference, with the split the plan computed, in the host.
func (r *replicaSchedulingPreferenceResource) write(ctx context.Context, plan *replicaSchedulingPreferenceModel, diags *diag.Diagnostics) {
	reg, err := r.data.bootstrappedRegistry(ctx)
	if err != nil {
		diags.AddError("Cannot write the replica scheduling preference", err.Error())
		return
	}
	plan.ID = types.StringValue(plan.Namespace.ValueString() + "/" + plan.Name.ValueString())
	stored, d := plan.toStored(ctx)
	diags.Append(d...)
	if diags.HasError() {
		return
	}
	if err := reg.ApplySchedulingPreference(ctx, stored); err != nil {
		diags.AddError("Cannot write the replica scheduling preference", err.Error())
	}
}

// preferenceKey names a preference among the run's replacements.
func preferenceKey(id string) string { return "ReplicaSchedulingPreference/" + id }

// refuseExisting fails a create of a preference the host holds.
func (r *replicaSchedulingPreferenceResource) refuseExisting(ctx context.Context, namespace, name string, diags *diag.Diagnostics) {
	lookup := func(ctx context.Context) error {
		reg, err := r.data.registry(ctx)
		if err == nil {
			_, err = reg.GetSchedulingPreference(ctx, namespace, name)
		}
		return err
	}
	refuseExisting(ctx, lookup, fmt.Sprintf("ReplicaSchedulingPreference %s/%s", namespace, name), namespace+"/"+name, path.Root("name"), diags)
}

// targetSelector reads the placement selector of the federated object that
// a KubeFed preference with intersectWithClusterSelector refers to.
func (r *replicaSchedulingPreferenceResource) targetSelector(ctx context.Context, reg *registry.Registry,
	stored *registry.SchedulingPreference, diags *diag.Diagnostics) *metav1.LabelSelector {
	t, err := reg.TypeOfFederatedKind(ctx, stored.TargetKind)
	if err == nil {
		var selector *metav1.LabelSelector
		selector, err = reg.FederatedPlacementSelector(ctx, *t, stored.Namespace, stored.Name)
		if err == nil {
			return selector
		}
	}
	diags.AddWarning("Cannot translate intersectWithClusterSelector",
		fmt.Sprintf("ReplicaSchedulingPreference %s/%s asks for the cluster selector of its %s, which cannot be read: %v. "+
			"Set cluster_selector by hand.", stored.Namespace, stored.Name, stored.TargetKind, err))
	return nil
}
