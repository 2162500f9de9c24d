package federation

import (
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Selector chooses clusters by their labels, with the semantics of a
// Kubernetes label selector: every match label and every expression must
// hold. An empty Selector matches every cluster.
type Selector struct {
	// MatchLabels requires each key to be present with exactly that value.
	MatchLabels map[string]string
	// MatchExpressions are further requirements, all of which must hold.
	MatchExpressions []Requirement
}

// Requirement is one label selector expression.
type Requirement struct {
	// Key is the label key, such as "topology.kubernetes.io/region".
	Key string
	// Operator is In, NotIn, Exists or DoesNotExist, spelt as in Kubernetes.
	Operator string
	// Values must be non-empty for In and NotIn and empty otherwise.
	Values []string
}

// The label selector operators, spelt as Kubernetes spells them.
const (
	OperatorIn           = string(metav1.LabelSelectorOpIn)
	OperatorNotIn        = string(metav1.LabelSelectorOpNotIn)
	OperatorExists       = string(metav1.LabelSelectorOpExists)
	OperatorDoesNotExist = string(metav1.LabelSelectorOpDoesNotExist)
)

// Validate reports the first invalid label key, value or operator, naming
// the match label or expression that holds it.
func (s *Selector) Validate() error {
	_, err := s.compile()
	return err
}

// Matches reports whether a cluster with the given labels is selected. It
// returns the validation error when the selector is invalid.
func (s *Selector) Matches(clusterLabels map[string]string) (bool, error) {
	sel, err := s.compile()
	if err != nil {
		return false, err
	}
	return sel.Matches(labels.Set(clusterLabels)), nil
}

// compile converts s with apimachinery, which also validates it. Each part
// is converted on its own first, because apimachinery's errors do not say
// which expression failed and it visits match labels in random order.
func (s *Selector) compile() (labels.Selector, error) {
	for _, key := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		one := &metav1.LabelSelector{MatchLabels: map[string]string{key: s.MatchLabels[key]}}
		if _, err := metav1.LabelSelectorAsSelector(one); err != nil {
			return nil, fmt.Errorf("match_labels[%q]: %w", key, err)
		}
	}
	exprs := make([]metav1.LabelSelectorRequirement, len(s.MatchExpressions))
	for i, r := range s.MatchExpressions {
		exprs[i] = metav1.LabelSelectorRequirement{
			Key:      r.Key,
			Operator: metav1.LabelSelectorOperator(r.Operator),
			Values:   r.Values,
		}
		one := &metav1.LabelSelector{MatchExpressions: exprs[i : i+1]}
		if _, err := metav1.LabelSelectorAsSelector(one); err != nil {
			return nil, fmt.Errorf("match_expressions[%d] (key %q, operator %q): %w", i, r.Key, r.Operator, err)
		}
	}
	return metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchLabels: s.MatchLabels, MatchExpressions: exprs})
}
