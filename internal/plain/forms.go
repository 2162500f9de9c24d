package plain

import (
	"fmt"
	"math/big"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
)

// Cluster reads a cluster: its name and labels.
func Cluster(raw any) (federation.Cluster, error) {
	object, err := Object(raw, "cluster", "name", "labels")
	if err != nil {
		return federation.Cluster{}, err
	}
	name, err := String(object["name"], "cluster.name")
	if err != nil {
		return federation.Cluster{}, err
	}
	if name == "" {
		return federation.Cluster{}, fmt.Errorf("cluster.name is required")
	}
	labels, err := StringMap(object["labels"], "cluster.labels")
	return federation.Cluster{Name: name, Labels: labels}, err
}

// OverrideRules reads a list of override rules, the shape a federated
// object's overrides attribute has.
func OverrideRules(raw any) ([]federation.OverrideRule, error) {
	list, err := ruleList(raw)
	if err != nil {
		return nil, err
	}
	rules := make([]federation.OverrideRule, 0, len(list))
	for i, entry := range list {
		rule, _, err := overrideRule(entry, fmt.Sprintf("overrides[%d]", i))
		if err != nil {
			return nil, err
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

// SetOverrideRules reads an application's override rules: each an override
// rule that may name its object (kind, name, namespace, api_version).
func SetOverrideRules(raw any) ([]federation.SetOverrideRule, error) {
	list, err := ruleList(raw)
	if err != nil {
		return nil, err
	}
	rules := make([]federation.SetOverrideRule, 0, len(list))
	for i, entry := range list {
		what := fmt.Sprintf("overrides[%d]", i)
		rule, object, err := overrideRule(entry, what, "object")
		if err != nil {
			return nil, err
		}
		ref, err := objectRef(object["object"], what+".object")
		if err != nil {
			return nil, err
		}
		rules = append(rules, federation.SetOverrideRule{OverrideRule: rule, Object: ref})
	}
	return rules, nil
}

func ruleList(raw any) ([]any, error) {
	if raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("overrides must be a list, not %s", Describe(raw))
	}
	return list, nil
}

// overrideRule reads one rule, which may have the extra attributes too,
// returned for the caller to read.
func overrideRule(entry any, what string, extra ...string) (federation.OverrideRule, map[string]any, error) {
	var rule federation.OverrideRule
	object, err := Object(entry, what, append([]string{"cluster", "cluster_selector", "patches"}, extra...)...)
	if err != nil {
		return rule, nil, err
	}
	if rule.Cluster, err = String(object["cluster"], what+".cluster"); err != nil {
		return rule, nil, err
	}
	if object["cluster_selector"] != nil {
		if rule.Selector, err = Selector(object["cluster_selector"], what+".cluster_selector"); err != nil {
			return rule, nil, err
		}
	}
	patches, ok := object["patches"].([]any)
	if !ok {
		if object["patches"] == nil {
			return rule, nil, fmt.Errorf("%s.patches is required", what)
		}
		return rule, nil, fmt.Errorf("%s.patches must be a list, not %s", what, Describe(object["patches"]))
	}
	for j, p := range patches {
		patch, err := readPatch(p, fmt.Sprintf("%s.patches[%d]", what, j))
		if err != nil {
			return rule, nil, err
		}
		rule.Patches = append(rule.Patches, patch)
	}
	return rule, object, nil
}

func readPatch(raw any, what string) (federation.Patch, error) {
	var patch federation.Patch
	object, err := Object(raw, what, "op", "path", "value")
	if err != nil {
		return patch, err
	}
	if patch.Op, err = String(object["op"], what+".op"); err != nil {
		return patch, err
	}
	if patch.Path, err = String(object["path"], what+".path"); err != nil {
		return patch, err
	}
	if object["path"] == nil {
		return patch, fmt.Errorf("%s.path is required", what)
	}
	patch.Value, err = String(object["value"], what+".value")
	return patch, err
}

// objectRef reads the object an application's rule names: nil for none.
func objectRef(raw any, what string) (*federation.ObjectRef, error) {
	if raw == nil {
		return nil, nil
	}
	object, err := Object(raw, what, "kind", "name", "namespace", "api_version")
	if err != nil {
		return nil, err
	}
	ref := &federation.ObjectRef{}
	for key, into := range map[string]*string{"kind": &ref.Kind, "name": &ref.Name, "namespace": &ref.Namespace, "api_version": &ref.APIVersion} {
		if *into, err = String(object[key], what+"."+key); err != nil {
			return nil, err
		}
	}
	if ref.Kind == "" || ref.Name == "" {
		return nil, fmt.Errorf("%s needs kind and name", what)
	}
	return ref, nil
}

// Selector reads a label selector: match_labels and match_expressions.
func Selector(raw any, what string) (*metav1.LabelSelector, error) {
	object, err := Object(raw, what, "match_labels", "match_expressions")
	if err != nil {
		return nil, err
	}
	selector := &metav1.LabelSelector{}
	if selector.MatchLabels, err = StringMap(object["match_labels"], what+".match_labels"); err != nil {
		return nil, err
	}
	expressions, ok := object["match_expressions"].([]any)
	if !ok && object["match_expressions"] != nil {
		return nil, fmt.Errorf("%s.match_expressions must be a list, not %s", what, Describe(object["match_expressions"]))
	}
	for i, e := range expressions {
		ewhat := fmt.Sprintf("%s.match_expressions[%d]", what, i)
		expression, err := Object(e, ewhat, "key", "operator", "values")
		if err != nil {
			return nil, err
		}
		var requirement metav1.LabelSelectorRequirement
		if requirement.Key, err = String(expression["key"], ewhat+".key"); err != nil {
			return nil, err
		}
		operator, err := String(expression["operator"], ewhat+".operator")
		if err != nil {
			return nil, err
		}
		requirement.Operator = metav1.LabelSelectorOperator(operator)
		values, ok := expression["values"].([]any)
		if !ok && expression["values"] != nil {
			return nil, fmt.Errorf("%s.values must be a list of strings, not %s", ewhat, Describe(expression["values"]))
		}
		for k, v := range values {
			s, err := String(v, fmt.Sprintf("%s.values[%d]", ewhat, k))
			if err != nil {
				return nil, err
			}
			requirement.Values = append(requirement.Values, s)
		}
		selector.MatchExpressions = append(selector.MatchExpressions, requirement)
	}
	return selector, nil
}

// SplitOptions reads a replica split's options into in, and whether the
// result includes KubeFed's overflow.
func SplitOptions(raw any, in *scheduling.Input) (bool, error) {
	object, err := Object(raw, "options", "strategy", "rebalance", "key", "current", "capacity", "overflow",
		"weight_by", "max_clusters", "spread", "cluster_labels")
	if err != nil {
		return true, err
	}
	strategy, err := String(object["strategy"], "options.strategy")
	if err != nil {
		return true, err
	}
	in.Strategy = scheduling.Strategy(strategy)
	if in.Key, err = String(object["key"], "options.key"); err != nil {
		return true, err
	}
	weightBy, err := String(object["weight_by"], "options.weight_by")
	if err != nil {
		return true, err
	}
	in.WeightBy = scheduling.WeightBy(weightBy)
	if in.Rebalance, err = Bool(object["rebalance"], "options.rebalance", false); err != nil {
		return true, err
	}
	overflow, err := Bool(object["overflow"], "options.overflow", true)
	if err != nil {
		return true, err
	}
	if in.Current, err = CountsByCluster(object["current"], "options.current"); err != nil {
		return true, err
	}
	if in.Capacity, err = CountsByCluster(object["capacity"], "options.capacity"); err != nil {
		return true, err
	}
	if err := choiceOptions(object, in); err != nil {
		return true, err
	}
	return overflow, nil
}

// choiceOptions reads max_clusters, spread and cluster_labels.
func choiceOptions(object map[string]any, in *scheduling.Input) error {
	maxClusters, err := Int(object["max_clusters"], "options.max_clusters")
	if err != nil {
		return err
	}
	if maxClusters != nil {
		in.MaxClusters = int(*maxClusters)
	}
	spread, err := Object(object["spread"], "options.spread", "by_label", "min_groups", "max_groups")
	if err != nil {
		return err
	}
	if in.Spread.ByLabel, err = String(spread["by_label"], "options.spread.by_label"); err != nil {
		return err
	}
	for name, into := range map[string]*int{"min_groups": &in.Spread.MinGroups, "max_groups": &in.Spread.MaxGroups} {
		n, err := Int(spread[name], "options.spread."+name)
		if err != nil {
			return err
		}
		if n != nil {
			*into = int(*n)
		}
	}
	return clusterLabels(object["cluster_labels"], in)
}

// clusterLabels reads the labels of each cluster, by name.
func clusterLabels(raw any, in *scheduling.Input) error {
	if raw == nil {
		return nil
	}
	entries, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("options.cluster_labels must be a map from cluster name to a map of labels, not %s", Describe(raw))
	}
	in.ClusterLabels = make(map[string]map[string]string, len(entries))
	for cluster, entry := range entries {
		labels, err := StringMap(entry, fmt.Sprintf("options.cluster_labels[%q]", cluster))
		if err != nil {
			return err
		}
		in.ClusterLabels[cluster] = labels
	}
	return nil
}

// Preferences reads a map of scheduling preferences: cluster name or "*"
// to optional min, max and weight, the shape of a preference's clusters.
func Preferences(raw any) (map[string]scheduling.Preference, error) {
	if raw == nil {
		return nil, nil
	}
	entries, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("preferences must be a map from cluster name or \"*\" to an object, not %s", Describe(raw))
	}
	out := make(map[string]scheduling.Preference, len(entries))
	for cluster, entry := range entries {
		what := fmt.Sprintf("preferences[%q]", cluster)
		object, err := Object(entry, what, "min_replicas", "max_replicas", "weight")
		if err != nil {
			return nil, err
		}
		var preference scheduling.Preference
		if minimum, err := Int(object["min_replicas"], what+".min_replicas"); err != nil {
			return nil, err
		} else if minimum != nil {
			preference.MinReplicas = *minimum
		}
		if preference.MaxReplicas, err = Int(object["max_replicas"], what+".max_replicas"); err != nil {
			return nil, err
		}
		if weight, err := Int(object["weight"], what+".weight"); err != nil {
			return nil, err
		} else if weight != nil {
			preference.Weight = *weight
		}
		out[cluster] = preference
	}
	return out, nil
}

// CountsByCluster reads a map from cluster name to a whole number.
func CountsByCluster(raw any, what string) (map[string]int64, error) {
	if raw == nil {
		return nil, nil
	}
	entries, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a map from cluster name to a number, not %s", what, Describe(raw))
	}
	out := make(map[string]int64, len(entries))
	for cluster, entry := range entries {
		if _, isNumber := entry.(*big.Float); !isNumber && entry != nil {
			return nil, fmt.Errorf("%s[%q] must be a number, not %s", what, cluster, Describe(entry))
		}
		count, err := Int(entry, fmt.Sprintf("%s[%q]", what, cluster))
		if err != nil {
			return nil, err
		}
		if count != nil {
			out[cluster] = *count
		}
	}
	return out, nil
}
