package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/capacity"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
)

// The values of the capacity attribute.
const (
	capacityNone = "none"
	capacityAuto = "auto"
)

type spreadModel struct {
	ByLabel   types.String `tfsdk:"by_label"`
	MinGroups types.Int64  `tfsdk:"min_groups"`
	MaxGroups types.Int64  `tfsdk:"max_groups"`
}

// capacityAttributes are the attributes that bound the split by what each
// member can hold and choose the clusters it places on.
func capacityAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"capacity": schema.StringAttribute{
			Optional: true, Computed: true, Default: stringdefault.StaticString(capacityNone),
			Description: "`none` (the default) splits by the preferences alone. `auto` reads each candidate member's Nodes and Pods " +
				"when refreshing and planning, estimates how many replicas it can hold (`estimated_capacity`) and never plans more " +
				"there; what does not fit goes to the other clusters.",
			Validators: []validator.String{stringvalidator.OneOf(capacityNone, capacityAuto)},
		},
		"replica_requests": schema.MapAttribute{
			Optional: true, ElementType: types.StringType,
			Description: "What one replica requests, such as `{ cpu = \"500m\", memory = \"256Mi\" }` (cpu, memory, " +
				"ephemeral-storage, hugepages-<size>, extended resources). Takes the place of the requests of `template`.",
		},
		"template": schema.StringAttribute{
			Optional: true, CustomType: templateType{},
			Description: "The workload's template, the same document the `kubefed_federated_object` takes (pass the same local): " +
				"its pod template gives the requests, tolerations, node selector and node affinity the estimate honours. " +
				"Nothing of it is written anywhere.",
		},
		"unschedulable_after": schema.StringAttribute{
			Optional: true, Computed: true, CustomType: timetypes.GoDurationType{},
			Default: stringdefault.StaticString(capacity.DefaultUnschedulableAfter.String()),
			Description: "How long pods of the workload must have been Pending as Unschedulable before a member's capacity is " +
				"capped at the pods it placed, as KubeFed does. A Go duration, `1m0s` by default.",
		},
		"weight_by": schema.StringAttribute{
			Optional: true, Computed: true, Default: stringdefault.StaticString(string(scheduling.StaticWeights)),
			Description: "`static` (the default) divides by the configured weights; `available_capacity` replaces every positive " +
				"weight by the cluster's estimated capacity (needs `capacity = \"auto\"`).",
			Validators: []validator.String{stringvalidator.OneOf(string(scheduling.StaticWeights), string(scheduling.AvailableCapacity))},
		},
		"max_clusters": schema.Int64Attribute{
			Optional:    true,
			Description: "Place on at most this many clusters, chosen by weight, then room, then name hash; the others get 0 and are listed in `excluded_clusters`.",
			Validators:  []validator.Int64{int64validator.AtLeast(1)},
		},
		"spread": schema.SingleNestedAttribute{
			Optional: true,
			Description: "Spread the replicas over distinct values of a cluster label, such as `{ by_label = \"region\", min_groups = 2 }`. " +
				"Clusters without the label get 0.",
			Attributes: map[string]schema.Attribute{
				"by_label": schema.StringAttribute{Required: true, Description: "The cluster label whose values are the groups."},
				"min_groups": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(0)},
					Description: "At least this many groups get replicas where the clusters, the total and the capacities allow; a plan warning says when they do not."},
				"max_groups": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)},
					Description: "At most this many groups get replicas. Unbounded when unset."},
			},
		},
		"estimated_capacity": schema.MapAttribute{
			Computed: true, ElementType: types.Int64Type,
			Description: "With `capacity = \"auto\"`: how many replicas each candidate could hold when the split in `replicas` " +
				"was made, counting those it runs. A cluster that could not be read is missing (unbounded). Empty with `capacity = \"none\"`.",
		},
	}
}

// choiceInput adds what chooses clusters (weight_by, max_clusters, spread)
// to the planner's input. known is false when some of it is only known at
// apply.
func (m *replicaSchedulingPreferenceModel) choiceInput(ctx context.Context, in *scheduling.Input) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	if m.WeightBy.IsUnknown() || m.MaxClusters.IsUnknown() || m.Spread.IsUnknown() {
		return false, diags
	}
	in.WeightBy = scheduling.WeightBy(m.WeightBy.ValueString())
	in.MaxClusters = int(m.MaxClusters.ValueInt64())
	if m.Spread.IsNull() {
		return true, diags
	}
	var spread spreadModel
	diags.Append(m.Spread.As(ctx, &spread, basetypes.ObjectAsOptions{})...)
	if diags.HasError() || spread.ByLabel.IsUnknown() || spread.MinGroups.IsUnknown() || spread.MaxGroups.IsUnknown() {
		return false, diags
	}
	in.Spread = scheduling.Spread{ByLabel: spread.ByLabel.ValueString(), MinGroups: int(spread.MinGroups.ValueInt64()),
		MaxGroups: int(spread.MaxGroups.ValueInt64())}
	return true, diags
}

// capacityInputs reads the estimate's inputs from the model. known is false
// when one is only known at apply; errors point at their attribute.
func (m *replicaSchedulingPreferenceModel) capacityInputs(ctx context.Context) (capacity.Inputs, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	in := capacity.Inputs{
		After:  capacity.DefaultUnschedulableAfter,
		Target: m.TargetKind.ValueString() + " " + m.Namespace.ValueString() + "/" + m.Name.ValueString(),
	}
	if m.Template.IsUnknown() || !fullyKnown(m.ReplicaRequests) || m.UnschedulableAfter.IsUnknown() {
		return in, false, diags
	}
	if !m.UnschedulableAfter.IsNull() {
		after, d := m.UnschedulableAfter.ValueGoDuration()
		if diags.Append(d...); diags.HasError() {
			return in, false, diags
		}
		if after < 0 {
			diags.AddAttributeError(path.Root("unschedulable_after"), "Invalid unschedulable_after",
				fmt.Sprintf("%q is negative; give how long pods may stay unschedulable, such as \"60s\", or \"0s\" to count them at once.",
					m.UnschedulableAfter.ValueString()))
			return in, false, diags
		}
		in.After = after
	}
	var requests map[string]string
	if !m.ReplicaRequests.IsNull() {
		diags.Append(m.ReplicaRequests.ElementsAs(ctx, &requests, false)...)
	}
	replica, at, err := capacity.ReplicaOf(m.Template.ValueString(), !m.Template.IsNull(), requests, !m.ReplicaRequests.IsNull())
	if err != nil {
		diags.AddAttributeError(pathAt(at), "Cannot tell what a replica requests", err.Error())
		return in, false, diags
	}
	in.Replica = replica
	return in, !diags.HasError(), diags
}

// Refresh records, in the resource's private data, the capacity it
// estimated for each candidate, and both plans of the run (the one shown
// and the one Terraform makes again at apply) split by that record: the
// members' Nodes and Pods change all the time, and an apply whose split
// differs from the plan's is refused as inconsistent. The record says which
// inputs it was made for; a plan whose inputs differ (a new preference,
// other requests), or a candidate the record lacks, reads the members when
// planning. Create and update drop the record, as they drop the
// registered-at-read note (capacityAtReadNote).

// estimates returns the capacity of each cluster: from the record where it
// answers, else read from the members now, in parallel.
func (r *replicaSchedulingPreferenceResource) estimates(ctx context.Context, m *replicaSchedulingPreferenceModel,
	in capacity.Inputs, clusters []runstate.Cluster, note *capacity.Note) map[string]capacity.ClusterEstimate {
	byName := make(map[string]runstate.Cluster, len(clusters))
	for _, c := range clusters {
		byName[c.Name] = c
	}
	fingerprint := in.Fingerprint()
	out, toRead := capacity.RecordedFor(note, fingerprint, slices.Sorted(maps.Keys(byName)))
	var members []propagation.Member
	for _, name := range toRead {
		c := byName[name]
		if c.NotInHostYet() {
			out[name] = capacity.ClusterEstimate{Unread: "it is registered in this run, and its capacity is read from the next plan on"}
			continue
		}
		clients, err := r.data.members.Clients(c.Name, c.Connection)
		if err != nil {
			out[name] = capacity.ClusterEstimate{Unread: err.Error()}
			continue
		}
		members = append(members, propagation.Member{Name: name, Clients: clients})
	}
	if len(members) == 0 {
		return out
	}
	workload := r.workloadObject(ctx, m)
	now := time.Now()
	opts := propagation.Options{MaxParallel: r.data.settings.MaxParallelClusters, Timeout: r.data.settings.RequestTimeout}
	for _, src := range propagation.ReadCapacity(ctx, members, workload, opts) {
		out[src.Cluster] = capacity.EstimateOf(in, src.Nodes, src.Pods, src.WorkloadPods, src.Err, now)
	}
	return out
}

// workloadObject names the workload on the members, or nil when its type
// is not enabled yet, so that no member can run it.
func (r *replicaSchedulingPreferenceResource) workloadObject(ctx context.Context, m *replicaSchedulingPreferenceModel) *propagation.Object {
	reg, err := r.data.registry(ctx)
	if err != nil {
		return nil
	}
	t, err := reg.TypeOfFederatedKind(ctx, m.TargetKind.ValueString())
	if err != nil {
		return nil
	}
	o := &propagation.Object{Resource: t.Target.Resource(), Name: m.Name.ValueString()}
	if t.Target.Namespaced {
		o.Namespace = m.Namespace.ValueString()
	}
	return o
}

// noteCapacityAtRead records, at refresh, the capacity of the clusters the
// stored preference would split over; without capacity = "auto" it drops
// any record.
func (r *replicaSchedulingPreferenceResource) noteCapacityAtRead(ctx context.Context, state *replicaSchedulingPreferenceModel,
	private privateData) diag.Diagnostics {
	if state.Capacity.ValueString() != capacityAuto {
		return capacityAtReadNote.Forget(ctx, private)
	}
	in, known, diags := state.capacityInputs(ctx)
	if !known || diags.HasError() {
		return capacityAtReadNote.Forget(ctx, private)
	}
	candidates, _, _, err := r.candidates(ctx, state, nil)
	if err != nil {
		return capacityAtReadNote.Forget(ctx, private)
	}
	ready := r.data.run.Ready(ctx, candidates, map[string]string{})
	return capacityAtReadNote.Save(ctx, private, capacity.Note{Inputs: in.Fingerprint(), Clusters: r.estimates(ctx, state, in, ready, nil)})
}

// validateCapacity checks what the estimate reads, and the options that
// need it, at validate time.
func validateCapacity(ctx context.Context, config *replicaSchedulingPreferenceModel, diags *diag.Diagnostics) {
	_, _, d := config.capacityInputs(ctx)
	diags.Append(d...)
	if config.Capacity.IsUnknown() || config.WeightBy.IsUnknown() {
		return
	}
	auto := config.Capacity.ValueString() == capacityAuto
	if config.WeightBy.ValueString() == string(scheduling.AvailableCapacity) && !auto {
		diags.AddAttributeError(path.Root("weight_by"), "Weights from capacity need an estimate",
			`weight_by = "available_capacity" divides by the clusters' estimated capacity; set capacity = "auto" as well.`)
	}
	if auto && config.Template.IsNull() && config.ReplicaRequests.IsNull() {
		diags.AddAttributeWarning(path.Root("capacity"), "Capacity counts pod slots only",
			"Without replica_requests or template, a replica requests nothing, and the estimate counts only the pods each "+
				"node may still run. Give the requests, or the workload's template, for an estimate by cpu and memory.")
	}
	if !auto {
		for _, unused := range []struct {
			name string
			set  bool
		}{{"template", !config.Template.IsNull()}, {"replica_requests", !config.ReplicaRequests.IsNull()},
			{"unschedulable_after", !config.UnschedulableAfter.IsNull()}} {
			if unused.set {
				diags.AddAttributeWarning(path.Root(unused.name), "Attribute has no effect",
					unused.name+` is read for the capacity estimate, which only capacity = "auto" makes.`)
			}
		}
	}
}

// plannedCapacityInputs are the estimate's inputs when the plan asks for
// capacity = "auto", else nil. known is false when they are only known at
// apply.
func (m *replicaSchedulingPreferenceModel) plannedCapacityInputs(ctx context.Context, diags *diag.Diagnostics) (*capacity.Inputs, bool) {
	if m.Capacity.ValueString() != capacityAuto {
		return nil, true
	}
	in, known, d := m.capacityInputs(ctx)
	diags.Append(d...)
	return &in, known
}

// plannedFigures is the estimated_capacity to plan: the figures the split
// was made with, unless the split and what the estimate depends on are
// those of the state, in which case the state's figures stay. Otherwise the
// comings and goings of other workloads on the members would show as a
// change of the preference in every plan, while nothing moves.
func (r *replicaSchedulingPreferenceResource) plannedFigures(ctx context.Context, state tfsdk.State,
	plan *replicaSchedulingPreferenceModel, split splitResult, diags *diag.Diagnostics) types.Map {
	figures := int64MapValue(ctx, split.estimated, diags)
	if state.Raw.IsNull() {
		return figures
	}
	var prior replicaSchedulingPreferenceModel
	if d := state.Get(ctx, &prior); d.HasError() || prior.EstimatedCapacity.IsNull() || prior.EstimatedCapacity.IsUnknown() {
		return figures
	}
	if prior.Capacity.ValueString() != plan.Capacity.ValueString() || !sameSplit(prior.splitOf(ctx), split) {
		return figures
	}
	if plan.Capacity.ValueString() == capacityAuto {
		before, _, d1 := prior.capacityInputs(ctx)
		after, _, d2 := plan.capacityInputs(ctx)
		if d1.HasError() || d2.HasError() || before.Fingerprint() != after.Fingerprint() {
			return figures
		}
	}
	return prior.EstimatedCapacity
}

// splitOf reads the split the model holds.
func (m *replicaSchedulingPreferenceModel) splitOf(ctx context.Context) splitResult {
	var s splitResult
	_ = m.Replicas.ElementsAs(ctx, &s.replicas, false)
	_ = m.ExcludedClusters.ElementsAs(ctx, &s.excluded, false)
	s.unplaced = m.UnplacedReplicas.ValueInt64()
	return s
}

// sameSplit compares the replicas, unplaced count and exclusions of two
// splits; an empty map and a missing one are the same.
func sameSplit(a, b splitResult) bool {
	return maps.Equal(a.replicas, b.replicas) && a.unplaced == b.unplaced && maps.Equal(a.excluded, b.excluded)
}

// defaultCapacityOptions fills what the host does not store with its
// defaults, for an imported preference; a refreshed one keeps its state.
func (m *replicaSchedulingPreferenceModel) defaultCapacityOptions() {
	if m.Capacity.IsNull() {
		m.Capacity = types.StringValue(capacityNone)
	}
	if m.WeightBy.IsNull() {
		m.WeightBy = types.StringValue(string(scheduling.StaticWeights))
	}
	if m.UnschedulableAfter.IsNull() {
		m.UnschedulableAfter = timetypes.NewGoDurationValueFromStringMust(capacity.DefaultUnschedulableAfter.String())
	}
	if m.EstimatedCapacity.IsNull() || m.EstimatedCapacity.IsUnknown() {
		m.EstimatedCapacity = types.MapValueMust(types.Int64Type, map[string]attr.Value{})
	}
}
