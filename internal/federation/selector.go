package federation

import (
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Clusters are chosen by label with a Kubernetes label selector,
// apimachinery's metav1.LabelSelector: every match label and every
// expression must hold, and an empty selector matches every cluster. The
// engine, the registry and the provider all use that one type.

// The label selector operators, spelt as Kubernetes spells them.
const (
	OperatorIn           = string(metav1.LabelSelectorOpIn)
	OperatorNotIn        = string(metav1.LabelSelectorOpNotIn)
	OperatorExists       = string(metav1.LabelSelectorOpExists)
	OperatorDoesNotExist = string(metav1.LabelSelectorOpDoesNotExist)
)

// ValidateSelector reports the first invalid label key, value or operator,
// naming the match label or expression that holds it.
func ValidateSelector(s *metav1.LabelSelector) error {
	_, err := compileSelector(s)
	return err
}

// SelectorMatches reports whether a cluster with the given labels is
// selected. It returns the validation error when the selector is invalid.
func SelectorMatches(s *metav1.LabelSelector, clusterLabels map[string]string) (bool, error) {
	sel, err := compileSelector(s)
	if err != nil {
		return false, err
	}
	return sel.Matches(labels.Set(clusterLabels)), nil
}

// compileSelector converts s with apimachinery, which also validates it.
// Each part is converted on its own first, because apimachinery's errors do
// not say which expression failed and it visits match labels in random
// order.
func compileSelector(s *metav1.LabelSelector) (labels.Selector, error) {
	for _, key := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		one := &metav1.LabelSelector{MatchLabels: map[string]string{key: s.MatchLabels[key]}}
		if _, err := metav1.LabelSelectorAsSelector(one); err != nil {
			return nil, fmt.Errorf("match_labels[%q]: %w", key, err)
		}
	}
	for i, r := range s.MatchExpressions {
		one := &metav1.LabelSelector{MatchExpressions: s.MatchExpressions[i : i+1]}
		if _, err := metav1.LabelSelectorAsSelector(one); err != nil {
			return nil, fmt.Errorf("match_expressions[%d] (key %q, operator %q): %w", i, r.Key, r.Operator, err)
		}
	}
	return metav1.LabelSelectorAsSelector(s)
}
