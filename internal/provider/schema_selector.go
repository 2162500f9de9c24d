package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rsschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// clusterSelectorModel is the shape every cluster_selector shares, as in a
// Kubernetes label selector.
type clusterSelectorModel struct {
	MatchLabels      map[string]string      `tfsdk:"match_labels"`
	MatchExpressions []matchExpressionModel `tfsdk:"match_expressions"`
}

type matchExpressionModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   []string     `tfsdk:"values"`
}

var matchExpressionType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"key":      types.StringType,
	"operator": types.StringType,
	"values":   types.ListType{ElemType: types.StringType},
}}

// clusterSelectorType is the type of a cluster_selector value.
var clusterSelectorType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"match_labels":      types.MapType{ElemType: types.StringType},
	"match_expressions": types.ListType{ElemType: matchExpressionType},
}}

const (
	selectorDescription    = "Selects clusters by their labels, as a Kubernetes label selector does. An empty selector (`{}`) selects every registered cluster."
	matchLabelsDescription = "Labels a cluster must have, with these values."
	matchExprDescription   = "Requirements on a cluster's labels: `key`, `operator` (In, NotIn, Exists, DoesNotExist) and `values`."
)

var selectorOperators = []string{federation.OperatorIn, federation.OperatorNotIn, federation.OperatorExists, federation.OperatorDoesNotExist}

// clusterSelectorAttribute is a resource's optional cluster_selector, with
// its description completed by what it selects for.
func clusterSelectorAttribute(description string) rsschema.SingleNestedAttribute {
	return rsschema.SingleNestedAttribute{
		Optional:    true,
		Description: selectorDescription + " " + description,
		Validators:  []validator.Object{selectorValidator{}},
		Attributes: map[string]rsschema.Attribute{
			"match_labels": rsschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: matchLabelsDescription},
			"match_expressions": rsschema.ListNestedAttribute{
				Optional:    true,
				Description: matchExprDescription,
				NestedObject: rsschema.NestedAttributeObject{Attributes: map[string]rsschema.Attribute{
					"key": rsschema.StringAttribute{Required: true, Description: "Label key."},
					"operator": rsschema.StringAttribute{Required: true, Description: "In, NotIn, Exists or DoesNotExist.",
						Validators: []validator.String{stringvalidator.OneOf(selectorOperators...)}},
					"values": rsschema.ListAttribute{Optional: true, ElementType: types.StringType, Description: "Values for In and NotIn."},
				}},
			},
		},
	}
}

// clusterSelectorDataSourceAttribute is the data source's cluster_selector.
func clusterSelectorDataSourceAttribute() dsschema.SingleNestedAttribute {
	return dsschema.SingleNestedAttribute{
		Optional:    true,
		Description: selectorDescription,
		Validators:  []validator.Object{selectorValidator{}},
		Attributes: map[string]dsschema.Attribute{
			"match_labels": dsschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: matchLabelsDescription},
			"match_expressions": dsschema.ListNestedAttribute{
				Optional:    true,
				Description: matchExprDescription,
				NestedObject: dsschema.NestedAttributeObject{Attributes: map[string]dsschema.Attribute{
					"key": dsschema.StringAttribute{Required: true, Description: "Label key."},
					"operator": dsschema.StringAttribute{Required: true, Description: "In, NotIn, Exists or DoesNotExist.",
						Validators: []validator.String{stringvalidator.OneOf(selectorOperators...)}},
					"values": dsschema.ListAttribute{Optional: true, ElementType: types.StringType, Description: "Values for In and NotIn."},
				}},
			},
		},
	}
}

// selectorOf is the one conversion of a cluster_selector value into a
// label selector: nil for a null value.
func selectorOf(ctx context.Context, v types.Object) (*metav1.LabelSelector, error) {
	if v.IsNull() || v.IsUnknown() {
		return nil, nil
	}
	var m clusterSelectorModel
	if diags := v.As(ctx, &m, basetypes.ObjectAsOptions{}); diags.HasError() {
		return nil, diagError(diags)
	}
	s := &metav1.LabelSelector{MatchLabels: m.MatchLabels}
	for _, e := range m.MatchExpressions {
		s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key.ValueString(), Operator: metav1.LabelSelectorOperator(e.Operator.ValueString()), Values: e.Values,
		})
	}
	return s, nil
}

// selectorValue is the cluster_selector value of a label selector read
// back from the host: null for nil.
func selectorValue(ctx context.Context, s *metav1.LabelSelector) (types.Object, error) {
	if s == nil {
		return types.ObjectNull(clusterSelectorType.AttrTypes), nil
	}
	m := clusterSelectorModel{}
	if len(s.MatchLabels) > 0 {
		m.MatchLabels = s.MatchLabels
	}
	for _, e := range s.MatchExpressions {
		m.MatchExpressions = append(m.MatchExpressions, matchExpressionModel{
			Key: types.StringValue(e.Key), Operator: types.StringValue(string(e.Operator)), Values: e.Values,
		})
	}
	v, diags := types.ObjectValueFrom(ctx, clusterSelectorType.AttrTypes, m)
	if diags.HasError() {
		return v, diagError(diags)
	}
	return v, nil
}

// selectorValidator checks a whole selector once it is known, with the
// engine's rules: label keys and values, operators, and values present for
// In and NotIn only. terraform validate reports it with no cluster needed.
type selectorValidator struct{}

func (selectorValidator) Description(context.Context) string {
	return "a valid Kubernetes label selector"
}

func (v selectorValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (selectorValidator) ValidateObject(ctx context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || !fullyKnown(req.ConfigValue) {
		return
	}
	s, err := selectorOf(ctx, req.ConfigValue)
	if err == nil {
		err = federation.ValidateSelector(s)
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid cluster selector", req.Path.String()+": "+err.Error())
	}
}
