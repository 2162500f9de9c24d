package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// The attributes that make an apply wait until the object runs and roll it
// out across clusters in stages, and that show how each cluster does.

type waitModel struct {
	Rollout    types.Bool           `tfsdk:"rollout"`
	Conditions []waitConditionModel `tfsdk:"conditions"`
	Fields     map[string]string    `tfsdk:"fields"`
}

type waitConditionModel struct {
	Type   types.String `tfsdk:"type"`
	Status types.String `tfsdk:"status"`
}

type rolloutStrategyModel struct {
	Stages                [][]string           `tfsdk:"stages"`
	MaxConcurrentClusters types.Int64          `tfsdk:"max_concurrent_clusters"`
	MaxFailedClusters     types.Int64          `tfsdk:"max_failed_clusters"`
	Pause                 timetypes.GoDuration `tfsdk:"pause"`
}

var (
	healthType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"ready":              types.BoolType,
		"replicas":           types.Int64Type,
		"ready_replicas":     types.Int64Type,
		"updated_replicas":   types.Int64Type,
		"available_replicas": types.Int64Type,
		"message":            types.StringType,
	}}
	rolloutPlanType = types.ListType{ElemType: types.ListType{ElemType: types.StringType}}
)

func waitAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		Description: "What apply waits for on every cluster it writes to, within the create or update timeout. Without it, apply " +
			"waits for the rollout of Deployments, StatefulSets and DaemonSets (as `kubectl rollout status` does) and for nothing " +
			"else; `wait = { rollout = false }` turns that off.",
		Attributes: map[string]schema.Attribute{
			"rollout": schema.BoolAttribute{Optional: true,
				Description: "Wait until the workload is rolled out. Defaults to true for Deployments, StatefulSets and DaemonSets, false otherwise."},
			"conditions": schema.ListNestedAttribute{Optional: true,
				Description: "Conditions that must hold on the live object's `status.conditions`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"type":   schema.StringAttribute{Required: true, Description: "Condition type, e.g. `Ready`."},
					"status": schema.StringAttribute{Optional: true, Description: "`True` (the default), `False` or `Unknown`."},
				}},
			},
			"fields": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				Description: "Field paths of the live object (`status.phase`, `status.loadBalancer.ingress[0].ip`) and the value each " +
					"must have: a value without any of `\\.+*?()|[]{}^$` must be equal; any other is a regular expression; `*` means set to anything."},
		},
	}
}

func rolloutStrategyAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		Description: "Update clusters in stages: a stage starts once every cluster of the one before has passed its wait, which a " +
			"staged rollout implies. When a stage fails on more than `max_failed_clusters`, apply stops: later stages keep what " +
			"they held. Removals from clusters that leave the placement happen after the last stage.",
		Attributes: map[string]schema.Attribute{
			"stages": schema.ListAttribute{Optional: true, ElementType: types.ListType{ElemType: types.StringType},
				Description: "Lists of cluster names, in order; `\"*\"` stands for every placed cluster no stage names. Placed clusters " +
					"no stage names, without a `\"*\"`, go last."},
			"max_concurrent_clusters": schema.Int64Attribute{Optional: true,
				Description: "At most this many clusters are updated at a time, in name order, within each stage.",
				Validators:  []validator.Int64{int64validator.AtLeast(1)}},
			"max_failed_clusters": schema.Int64Attribute{Optional: true,
				Description: "How many clusters may fail before apply stops. Defaults to 0.",
				Validators:  []validator.Int64{int64validator.AtLeast(0)}},
			"pause": schema.StringAttribute{Optional: true, CustomType: timetypes.GoDurationType{},
				Description: "A soak time between stages, as a Go duration (`\"2m\"`).", Validators: []validator.String{positiveDuration}},
		},
	}
}

// waitConfig is the wait attribute in rollout's terms.
func waitConfig(ctx context.Context, v types.Object) (rollout.Config, error) {
	var c rollout.Config
	if v.IsNull() || v.IsUnknown() {
		return c, nil
	}
	var m waitModel
	if diags := v.As(ctx, &m, basetypes.ObjectAsOptions{}); diags.HasError() {
		return c, attributeErr(path.Root("wait"), diagError(diags))
	}
	c.Rollout = m.Rollout.ValueBoolPointer()
	for _, cond := range m.Conditions {
		c.Conditions = append(c.Conditions, rollout.Condition{Type: cond.Type.ValueString(), Status: cond.Status.ValueString()})
	}
	c.Fields = m.Fields
	return c, nil
}

// strategyOf is the rollout_strategy attribute in the pipeline's terms.
func strategyOf(ctx context.Context, v types.Object) (objectset.Strategy, error) {
	var s objectset.Strategy
	if v.IsNull() || v.IsUnknown() {
		return s, nil
	}
	var m rolloutStrategyModel
	if diags := v.As(ctx, &m, basetypes.ObjectAsOptions{}); diags.HasError() {
		return s, attributeErr(path.Root("rollout_strategy"), diagError(diags))
	}
	s.Stages = m.Stages
	s.MaxConcurrent = int(m.MaxConcurrentClusters.ValueInt64())
	s.MaxFailed = int(m.MaxFailedClusters.ValueInt64())
	if !m.Pause.IsNull() && !m.Pause.IsUnknown() {
		d, diags := m.Pause.ValueGoDuration()
		if diags.HasError() {
			return s, attributeErr(path.Root("rollout_strategy").AtName("pause"), diagError(diags))
		}
		s.Pause = d
	}
	return s, nil
}

// plannedOrder is rollout_plan: the order of the placed clusters.
func plannedOrder(set *objectset.Set, placed []string, diags *diag.Diagnostics) types.List {
	stages, problems := set.PlannedOrder(placed)
	addProblems(diags, problems, nil)
	return rolloutPlanValue(stages, diags)
}

// rolloutPlanValue is the rollout_plan value of an order.
func rolloutPlanValue(stages [][]string, diags *diag.Diagnostics) types.List {
	if stages == nil {
		stages = [][]string{}
	}
	v, d := types.ListValueFrom(context.Background(), rolloutPlanType.ElemType, stages)
	diags.Append(d...)
	return v
}

// healthValue is the cluster_health value of a map of health, built
// directly as statusValue is.
func healthValue(health map[string]rollout.Health, diags *diag.Diagnostics) types.Map {
	entries := make(map[string]attr.Value, len(health))
	for cluster, h := range health {
		entry, d := types.ObjectValue(healthType.AttrTypes, map[string]attr.Value{
			"ready":              types.BoolValue(h.Ready),
			"replicas":           types.Int64Value(h.Replicas),
			"ready_replicas":     types.Int64Value(h.ReadyReplicas),
			"updated_replicas":   types.Int64Value(h.UpdatedReplicas),
			"available_replicas": types.Int64Value(h.AvailableReplicas),
			"message":            types.StringValue(h.Message),
		})
		diags.Append(d...)
		entries[cluster] = entry
	}
	v, d := types.MapValue(healthType, entries)
	diags.Append(d...)
	return v
}

// outcomeValues are a plan's cluster_status and cluster_health entries of
// one object: known where the apply leaves the cluster alone, unknown
// where the apply decides them.
func outcomeValues(out objectset.Outcome, diags *diag.Diagnostics) (status, health map[string]attr.Value) {
	status, health = map[string]attr.Value{}, map[string]attr.Value{}
	for cluster, s := range out.Status {
		status[cluster] = types.ObjectUnknown(clusterStatusType.AttrTypes)
		if s != nil {
			status[cluster] = statusValue(map[string]reconcile.Status{cluster: *s}, diags).Elements()[cluster]
		}
	}
	for cluster, h := range out.Health {
		health[cluster] = types.ObjectUnknown(healthType.AttrTypes)
		if h != nil {
			health[cluster] = healthValue(map[string]rollout.Health{cluster: *h}, diags).Elements()[cluster]
		}
	}
	return status, health
}

// healthEntries reads cluster_health.
func healthEntries(v types.Map) map[string]rollout.Health {
	out := map[string]rollout.Health{}
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	for cluster, e := range v.Elements() {
		attrs := objectAttributes(e)
		out[cluster] = rollout.Health{
			Ready:             boolAttribute(attrs, "ready"),
			Replicas:          int64Attribute(attrs, "replicas"),
			ReadyReplicas:     int64Attribute(attrs, "ready_replicas"),
			UpdatedReplicas:   int64Attribute(attrs, "updated_replicas"),
			AvailableReplicas: int64Attribute(attrs, "available_replicas"),
			Message:           stringAttribute(attrs, "message"),
		}
	}
	return out
}

// validateRollout checks wait and rollout_strategy with no cluster needed.
func validateRollout(ctx context.Context, wait, strategy types.Object, diags *diag.Diagnostics) {
	if fullyKnown(wait) {
		if c, err := waitConfig(ctx, wait); err == nil {
			for _, e := range rollout.Validate(c) {
				at := path.Root("wait").AtName("fields").AtMapKey(e.Field)
				if e.Condition >= 0 {
					at = path.Root("wait").AtName("conditions").AtListIndex(e.Condition)
				}
				diags.AddAttributeError(at, "Invalid wait", fmt.Sprintf("%s: %s", at, e.Message))
			}
		}
	}
	if fullyKnown(strategy) {
		if s, err := strategyOf(ctx, strategy); err == nil {
			for _, e := range rollout.ValidateStages(s.Stages) {
				at := path.Root("rollout_strategy").AtName("stages").AtListIndex(e.Stage)
				if e.Entry >= 0 {
					at = at.AtListIndex(e.Entry)
				}
				diags.AddAttributeError(at, "Invalid rollout stage", fmt.Sprintf("%s: %s", at, e.Message))
			}
		}
	}
}
