package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/plain"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

const overridesDescription = "Per-cluster changes, applied in order after the template (and the replica count): a list of " +
	"rules, each with `cluster` (a cluster's name) or `cluster_selector` (the clusters it matches, as in `placement`), and " +
	"`patches`, a list of RFC 6902 operations on the cluster's object, each with `op` (`add`, `replace`, the default, or " +
	"`remove`), `path` (a JSON pointer such as `/spec/replicas`) and `value` (JSON text such as `jsonencode(5)`; none for " +
	"`remove`). Any other attribute is an error, so that a misspelt one is never dropped in silence."

// overridesAttribute is a federated object's overrides, and with object an
// application's, whose rules name the object of the set they patch. It is
// dynamic for the reason cluster_selector is, and checked as a whole.
func overridesAttribute(object bool) schema.DynamicAttribute {
	description := overridesDescription + " The same list works as the `overrides` argument of " +
		"`provider::kubefed::render_object`."
	if object {
		description = overridesDescription + " On an application each rule also has `object`, naming the object of the set it " +
			"patches by `kind` and `name`, and `namespace` or `api_version` when needed to tell objects apart (required when " +
			"the set holds more than one object)."
	}
	return schema.DynamicAttribute{
		Optional:    true,
		Description: description,
		Validators:  []validator.Dynamic{overridesValidator{object: object}},
	}
}

// overridesValidator reads the rules as the engine will (unknown
// attributes are errors) and checks what needs no cluster: targets,
// selectors, cluster names, operations, pointers and JSON values.
type overridesValidator struct{ object bool }

func (overridesValidator) Description(context.Context) string {
	return "override rules, each with cluster or cluster_selector and patches"
}

func (v overridesValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v overridesValidator) ValidateDynamic(_ context.Context, req validator.DynamicRequest, resp *validator.DynamicResponse) {
	if req.ConfigValue.IsNull() || !fullyKnown(req.ConfigValue) {
		return
	}
	rules, err := v.rules(req)
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid overrides", err.Error())
		return
	}
	for i, rule := range rules {
		if rule.Cluster != "" {
			if err := dnsLabelValidator.check(rule.Cluster); err != nil {
				resp.Diagnostics.AddAttributeError(req.Path, dnsLabelValidator.summary, fmt.Sprintf("overrides[%d].cluster: %v", i, err))
			}
		}
		// Each rule alone: an application's rules for different objects
		// may target one cluster by name.
		var overrideErr *federation.OverrideError
		if err := federation.ValidateOverrides([]federation.OverrideRule{rule}); errors.As(err, &overrideErr) {
			at := fmt.Sprintf("overrides[%d]", i)
			if overrideErr.Patch >= 0 {
				at += fmt.Sprintf(".patches[%d]", overrideErr.Patch)
			}
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid override", at+": "+overrideErr.Err.Error())
		}
	}
}

func (v overridesValidator) rules(req validator.DynamicRequest) ([]federation.OverrideRule, error) {
	raw, err := tfvalue.Plain(req.ConfigValue)
	if err != nil {
		return nil, err
	}
	if !v.object {
		return plain.OverrideRules(raw)
	}
	setRules, err := plain.SetOverrideRules(raw)
	rules := make([]federation.OverrideRule, len(setRules))
	for i, rule := range setRules {
		rules[i] = rule.OverrideRule
	}
	return rules, err
}

// The plan keeps the state's spelling of placement, overrides and a
// selector when the configuration's means the same: Terraform accepts the
// prior value of an attribute in place of its configuration in that case.
// An import or a state upgrade writes them in a form of their own (objects
// and tuples, only what is set), so a configuration that writes the same
// otherwise (a map variable, op = "replace", other JSON spacing) plans
// nothing.

// keepPriorSpelling plans the prior placement and overrides of an object
// or an application (setRules read) that mean the configuration's.
func keepPriorSpelling(ctx context.Context, placement *types.Object, priorPlacement types.Object,
	overrides *types.Dynamic, priorOverrides types.Dynamic, set bool) {
	keepPriorIfSame(placement, priorPlacement, func(v types.Object) (federation.Placement, error) {
		p, _, err := placementOf(ctx, v)
		return p, err
	}, federation.SamePlacement)
	if set {
		keepPriorIfSame(overrides, priorOverrides, setRules, federation.SameSetOverrideRules)
	} else {
		keepPriorIfSame(overrides, priorOverrides, overrideRulesOf, federation.SameOverrideRules)
	}
}

func keepPriorSelector(planned *types.Dynamic, prior types.Dynamic) {
	keepPriorIfSame(planned, prior, func(v types.Dynamic) (*metav1.LabelSelector, error) {
		return selectorOf(v, "cluster_selector")
	}, federation.SameSelector)
}

// keepPriorIfSame plans prior in place of *planned when read gives, for
// both, values that same finds alike.
func keepPriorIfSame[V attr.Value, T any](planned *V, prior V, read func(V) (T, error), same func(a, b T) bool) {
	if prior.IsNull() || (*planned).IsNull() || !fullyKnown(*planned) || (*planned).Equal(prior) {
		return
	}
	now, errNow := read(*planned)
	before, errBefore := read(prior)
	if errNow == nil && errBefore == nil && same(now, before) {
		*planned = prior
	}
}
