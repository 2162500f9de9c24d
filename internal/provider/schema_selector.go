package provider

import (
	"context"
	"fmt"

	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rsschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/plain"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

const (
	selectorDescription = "Selects clusters by their labels, as a Kubernetes label selector does: `match_labels`, labels a " +
		"cluster must have with these values, and `match_expressions`, requirements on its labels, each with `key`, " +
		"`operator` (In, NotIn, Exists or DoesNotExist) and `values` (for In and NotIn). An empty selector (`{}`) selects " +
		"every registered cluster. Any other attribute is an error, so that labels written without `match_labels` never " +
		"select every cluster."
	selectorHint = "Write labels under match_labels, as in cluster_selector = { match_labels = { region = \"eu\" } }; " +
		"cluster_selector = {} selects every cluster."
)

// clusterSelectorAttribute is a resource's optional cluster_selector, with
// its description completed by what it selects for. It is dynamic: an
// attribute of a nested object that the configuration misspells would be
// dropped by the CLI before the provider sees it, turning a selector into
// the one that selects every cluster.
func clusterSelectorAttribute(description string) rsschema.DynamicAttribute {
	return rsschema.DynamicAttribute{
		Optional:    true,
		Description: selectorDescription + " " + description,
		Validators:  []validator.Dynamic{selectorValidator{}},
	}
}

// clusterSelectorDataSourceAttribute is the data source's cluster_selector.
func clusterSelectorDataSourceAttribute() dsschema.DynamicAttribute {
	return dsschema.DynamicAttribute{
		Optional:    true,
		Description: selectorDescription,
		Validators:  []validator.Dynamic{selectorValidator{}},
	}
}

// selectorOf is the one conversion of a cluster_selector value into a
// label selector: nil for a null value. what names the attribute in
// errors.
func selectorOf(v types.Dynamic, what string) (*metav1.LabelSelector, error) {
	if v.IsNull() || v.IsUnknown() || v.IsUnderlyingValueNull() {
		return nil, nil
	}
	raw, err := tfvalue.Plain(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return plain.Selector(raw, what)
}

// selectorValue is the cluster_selector value of a label selector read
// back from the host: null for nil.
func selectorValue(s *metav1.LabelSelector) (types.Dynamic, error) {
	if s == nil {
		return types.DynamicNull(), nil
	}
	return tfvalue.Dynamic(plain.SelectorForm(s))
}

// selectorValidator checks a whole selector once it is known, with the
// engine's rules: its attributes, label keys and values, operators, and
// values present for In and NotIn only. terraform validate reports it with
// no cluster needed.
type selectorValidator struct{}

func (selectorValidator) Description(context.Context) string {
	return "a valid Kubernetes label selector"
}

func (v selectorValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (selectorValidator) ValidateDynamic(_ context.Context, req validator.DynamicRequest, resp *validator.DynamicResponse) {
	if req.ConfigValue.IsNull() || !fullyKnown(req.ConfigValue) {
		return
	}
	s, err := selectorOf(req.ConfigValue, req.Path.String())
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid cluster selector", err.Error()+". "+selectorHint)
		return
	}
	if err := federation.ValidateSelector(s); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid cluster selector", req.Path.String()+": "+err.Error())
	}
}
