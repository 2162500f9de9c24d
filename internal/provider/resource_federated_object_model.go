package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/plain"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// federatedObjectModel is kubefed_federated_object. Placement and overrides
// are kept as framework values, so that a plan whose parts are only known at
// apply still decodes; objectConfig turns them into plain Go once known.
type federatedObjectModel struct {
	ID       types.String  `tfsdk:"id"`
	Type     types.String  `tfsdk:"type"`
	Template templateValue `tfsdk:"template"`
	// SensitiveTemplate is the template of a Secret, which the CLI hides.
	SensitiveTemplate templateValue  `tfsdk:"sensitive_template"`
	Placement         types.Object   `tfsdk:"placement"`
	Overrides         types.Dynamic  `tfsdk:"overrides"`
	ClusterReplicas   types.Map      `tfsdk:"cluster_replicas"`
	DeletionPolicy    types.String   `tfsdk:"deletion_policy"`
	ForceConflicts    types.Bool     `tfsdk:"force_conflicts"`
	Adopt             types.Bool     `tfsdk:"adopt"`
	RetainReplicas    types.Bool     `tfsdk:"retain_replicas"`
	IgnoreFields      types.List     `tfsdk:"ignore_fields"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`
	Wait              types.Object   `tfsdk:"wait"`
	RolloutStrategy   types.Object   `tfsdk:"rollout_strategy"`
	PlacedClusters    types.Set      `tfsdk:"placed_clusters"`
	Rendered          types.Object   `tfsdk:"rendered"`
	ClusterStatus     types.Map      `tfsdk:"cluster_status"`
	RolloutPlan       types.List     `tfsdk:"rollout_plan"`
	ClusterHealth     types.Map      `tfsdk:"cluster_health"`
}

// objectModels reads and writes kubefed_federated_object's values.
var objectModels modelCodec[federatedObjectModel]

// templateAt is the attribute that holds the template: sensitive_template
// when it is set, template otherwise.
func (m *federatedObjectModel) templateAt() path.Path {
	if !m.SensitiveTemplate.IsNull() {
		return path.Root("sensitive_template")
	}
	return path.Root("template")
}

// template is the value of the attribute that holds the template.
func (m *federatedObjectModel) template() templateValue {
	if !m.SensitiveTemplate.IsNull() {
		return m.SensitiveTemplate
	}
	return m.Template
}

// setTemplate puts a template read from the host in sensitive_template or
// in template, and clears the other.
func (m *federatedObjectModel) setTemplate(v templateValue, sensitive bool) {
	null := templateValue{StringValue: types.StringNull()}
	m.Template, m.SensitiveTemplate = v, null
	if sensitive {
		m.Template, m.SensitiveTemplate = null, v
	}
}

type placementModel struct {
	Clusters        []string      `tfsdk:"clusters"`
	ClusterSelector types.Dynamic `tfsdk:"cluster_selector"`
}

var (
	placementType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"clusters":         types.ListType{ElemType: types.StringType},
		"cluster_selector": types.DynamicType,
	}}
	// clusterStatusType is one entry of cluster_status.
	clusterStatusType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"status":  types.StringType,
		"message": types.StringType,
	}}
)

// objectConfig is the configuration of a federated object in the engine's
// terms, read once every part of it is known.
type objectConfig struct {
	placement    federation.Placement
	placementSet bool
	overrides    []federation.OverrideRule
	replicas     map[string]int64
	ignoreFields []string
}

// config converts placement, overrides and cluster_replicas. Errors name
// the attribute they are about.
func (m *federatedObjectModel) config(ctx context.Context) (objectConfig, error) {
	var c objectConfig
	var err error
	if c.placement, c.placementSet, err = placementOf(ctx, m.Placement); err != nil {
		return c, err
	}
	if c.overrides, err = overrideRulesOf(m.Overrides); err != nil {
		return c, err
	}
	if c.ignoreFields, err = ignoreFieldsOf(ctx, m.IgnoreFields); err != nil {
		return c, err
	}
	c.replicas, err = replicasOf(ctx, m.ClusterReplicas)
	return c, err
}

// placementOf converts placement, and says whether it is set.
func placementOf(ctx context.Context, v types.Object) (federation.Placement, bool, error) {
	if v.IsNull() {
		return federation.Placement{}, false, nil
	}
	var p placementModel
	if diags := v.As(ctx, &p, basetypes.ObjectAsOptions{}); diags.HasError() {
		return federation.Placement{}, false, attributeErr(path.Root("placement"), diagError(diags))
	}
	at := path.Root("placement").AtName("cluster_selector")
	selector, err := selectorOf(p.ClusterSelector, at.String())
	if err != nil {
		return federation.Placement{}, false, attributeErr(at, err)
	}
	return federation.Placement{Clusters: p.Clusters, Selector: selector}, true, nil
}

// ignoreFieldsOf converts ignore_fields: nil for none.
func ignoreFieldsOf(ctx context.Context, v types.List) ([]string, error) {
	var out []string
	if v.IsNull() {
		return nil, nil
	}
	if diags := v.ElementsAs(ctx, &out, false); diags.HasError() {
		return nil, attributeErr(path.Root("ignore_fields"), diagError(diags))
	}
	return out, nil
}

// replicasOf converts cluster_replicas: nil when it is not set.
func replicasOf(ctx context.Context, v types.Map) (map[string]int64, error) {
	if v.IsNull() {
		return nil, nil
	}
	out := map[string]int64{}
	if diags := v.ElementsAs(ctx, &out, false); diags.HasError() {
		return nil, attributeErr(path.Root("cluster_replicas"), diagError(diags))
	}
	return out, nil
}

// overrideRulesOf is the one conversion of an overrides value into the
// engine's rules: nil for none.
func overrideRulesOf(v types.Dynamic) ([]federation.OverrideRule, error) {
	raw, err := overridesPlain(v)
	if err != nil || raw == nil {
		return nil, err
	}
	rules, err := plain.OverrideRules(raw)
	if err != nil {
		return nil, attributeErr(path.Root("overrides"), err)
	}
	return rules, nil
}

// overridesPlain is an overrides value in plain Go: nil when it is null
// or not known.
func overridesPlain(v types.Dynamic) (any, error) {
	if v.IsNull() || v.IsUnknown() || v.IsUnderlyingValueNull() {
		return nil, nil
	}
	raw, err := tfvalue.Plain(v)
	if err != nil {
		return nil, attributeErr(path.Root("overrides"), err)
	}
	return raw, nil
}

// placementValue is the placement value of what the host records: null
// when the host records no placement.
func placementValue(ctx context.Context, p federation.Placement) (types.Object, error) {
	if p.Clusters == nil && p.Selector == nil {
		return types.ObjectNull(placementType.AttrTypes), nil
	}
	selector, err := selectorValue(p.Selector)
	if err != nil {
		return types.Object{}, err
	}
	v, diags := types.ObjectValueFrom(ctx, placementType.AttrTypes, placementModel{Clusters: p.Clusters, ClusterSelector: selector})
	if diags.HasError() {
		return v, diagError(diags)
	}
	return v, nil
}

// overridesValue is the overrides value of what the host records: null for
// no rules.
func overridesValue(rules []federation.OverrideRule) (types.Dynamic, error) {
	if len(rules) == 0 {
		return types.DynamicNull(), nil
	}
	return tfvalue.Dynamic(plain.OverrideRulesForm(rules))
}

// attributeError is an error about one attribute, reported there.
type attributeError struct {
	path path.Path
	err  error
}

func (e *attributeError) Error() string { return fmt.Sprintf("%s: %v", e.path, e.err) }
func (e *attributeError) Unwrap() error { return e.err }

func attributeErr(p path.Path, err error) error { return &attributeError{path: p, err: err} }
