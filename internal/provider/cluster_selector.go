package provider

import (
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rsschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// clusterSelectorModel is the shape every cluster_selector block shares, as
// in a Kubernetes label selector.
type clusterSelectorModel struct {
	MatchLabels      map[string]string      `tfsdk:"match_labels"`
	MatchExpressions []matchExpressionModel `tfsdk:"match_expressions"`
}

type matchExpressionModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   []string     `tfsdk:"values"`
}

func (m *clusterSelectorModel) metav1() *metav1.LabelSelector {
	selector := &metav1.LabelSelector{MatchLabels: m.MatchLabels}
	for _, e := range m.MatchExpressions {
		selector.MatchExpressions = append(selector.MatchExpressions, metav1.LabelSelectorRequirement{
			Key:      e.Key.ValueString(),
			Operator: metav1.LabelSelectorOperator(e.Operator.ValueString()),
			Values:   e.Values,
		})
	}
	return selector
}

const (
	selectorDescription    = "Selects clusters by their labels, as a Kubernetes label selector does. An empty block selects every registered cluster."
	matchLabelsDescription = "Labels a cluster must have, with these values."
	matchExprDescription   = "Requirements on a cluster's labels: `key`, `operator` (In, NotIn, Exists, DoesNotExist) and `values`."
)

func clusterSelectorDataSourceBlock() dsschema.SingleNestedBlock {
	return dsschema.SingleNestedBlock{
		Description: selectorDescription,
		Attributes: map[string]dsschema.Attribute{
			"match_labels": dsschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: matchLabelsDescription},
			"match_expressions": dsschema.ListNestedAttribute{
				Optional:    true,
				Description: matchExprDescription,
				NestedObject: dsschema.NestedAttributeObject{Attributes: map[string]dsschema.Attribute{
					"key":      dsschema.StringAttribute{Required: true, Description: "Label key."},
					"operator": dsschema.StringAttribute{Required: true, Description: "In, NotIn, Exists or DoesNotExist."},
					"values":   dsschema.ListAttribute{Optional: true, ElementType: types.StringType, Description: "Values for In and NotIn."},
				}},
			},
		},
	}
}

// clusterSelectorResourceBlock is the cluster_selector block of resources
// (placements), the same shape as the data source's.
func clusterSelectorResourceBlock() rsschema.SingleNestedBlock {
	return rsschema.SingleNestedBlock{
		Description: selectorDescription,
		Attributes: map[string]rsschema.Attribute{
			"match_labels": rsschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: matchLabelsDescription},
			"match_expressions": rsschema.ListNestedAttribute{
				Optional:    true,
				Description: matchExprDescription,
				NestedObject: rsschema.NestedAttributeObject{Attributes: map[string]rsschema.Attribute{
					"key":      rsschema.StringAttribute{Required: true, Description: "Label key."},
					"operator": rsschema.StringAttribute{Required: true, Description: "In, NotIn, Exists or DoesNotExist."},
					"values":   rsschema.ListAttribute{Optional: true, ElementType: types.StringType, Description: "Values for In and NotIn."},
				}},
			},
		},
	}
}
