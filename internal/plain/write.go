package plain

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// The forms below are what the provider writes for a value read from the
// host: the shape a configuration writes it in, with only the attributes
// that are set, so that an import of what a configuration wrote means the
// same (and plans nothing, the plan keeping the prior spelling).

// SelectorForm is a label selector as a cluster_selector: {} for the
// empty selector, nil for none.
func SelectorForm(s *metav1.LabelSelector) map[string]any {
	if s == nil {
		return nil
	}
	form := map[string]any{}
	if len(s.MatchLabels) > 0 {
		labels := map[string]any{}
		for k, v := range s.MatchLabels {
			labels[k] = v
		}
		form["match_labels"] = labels
	}
	if len(s.MatchExpressions) > 0 {
		expressions := make([]any, len(s.MatchExpressions))
		for i, e := range s.MatchExpressions {
			expression := map[string]any{"key": e.Key, "operator": string(e.Operator)}
			if len(e.Values) > 0 {
				expression["values"] = anyList(e.Values)
			}
			expressions[i] = expression
		}
		form["match_expressions"] = expressions
	}
	return form
}

// OverrideRulesForm is the overrides attribute of rules: nil for none.
func OverrideRulesForm(rules []federation.OverrideRule) []any {
	if len(rules) == 0 {
		return nil
	}
	out := make([]any, len(rules))
	for i, rule := range rules {
		out[i] = overrideRuleForm(rule)
	}
	return out
}

// SetOverrideRulesForm is an application's overrides attribute: nil for
// none.
func SetOverrideRulesForm(rules []federation.SetOverrideRule) []any {
	if len(rules) == 0 {
		return nil
	}
	out := make([]any, len(rules))
	for i, rule := range rules {
		form := overrideRuleForm(rule.OverrideRule)
		if rule.Object != nil {
			ref := map[string]any{"kind": rule.Object.Kind, "name": rule.Object.Name}
			if rule.Object.Namespace != "" {
				ref["namespace"] = rule.Object.Namespace
			}
			if rule.Object.APIVersion != "" {
				ref["api_version"] = rule.Object.APIVersion
			}
			form["object"] = ref
		}
		out[i] = form
	}
	return out
}

func overrideRuleForm(rule federation.OverrideRule) map[string]any {
	form := map[string]any{}
	if rule.Cluster != "" {
		form["cluster"] = rule.Cluster
	}
	if rule.Selector != nil {
		form["cluster_selector"] = SelectorForm(rule.Selector)
	}
	patches := make([]any, len(rule.Patches))
	for j, p := range rule.Patches {
		patch := map[string]any{"path": p.Path}
		if p.Op != "" {
			patch["op"] = p.Op
		}
		if p.Value != "" {
			patch["value"] = p.Value
		}
		patches[j] = patch
	}
	form["patches"] = patches
	return form
}

func anyList(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
