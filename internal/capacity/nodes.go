package capacity

import (
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Skip is why a node cannot take a replica. A node is counted under the
// first reason that applies, in the order of the constants.
type Skip string

const (
	// SkipNotReady: the node's Ready condition is not True.
	SkipNotReady Skip = "not ready"
	// SkipCordoned: the node is marked unschedulable and the replica does
	// not tolerate that.
	SkipCordoned Skip = "cordoned"
	// SkipTainted: the node has a NoSchedule or NoExecute taint the replica
	// does not tolerate.
	SkipTainted Skip = "tainted"
	// SkipNodeSelector: the node lacks a label of the replica's node selector.
	SkipNodeSelector Skip = "node selector"
	// SkipNodeAffinity: the node matches none of the replica's required node
	// affinity terms.
	SkipNodeAffinity Skip = "node affinity"
)

// skips lists the reasons in the order they are checked and reported.
var skips = []Skip{SkipNotReady, SkipCordoned, SkipTainted, SkipNodeSelector, SkipNodeAffinity}

var cordonTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// skip returns why the node cannot take the replica, or "" when it can.
func (r *Replica) skip(node *corev1.Node) Skip {
	switch {
	case !ready(node):
		return SkipNotReady
	case node.Spec.Unschedulable && !r.tolerates(&cordonTaint):
		return SkipCordoned
	case !r.toleratesNode(node):
		return SkipTainted
	case !labels.SelectorFromSet(r.NodeSelector).Matches(labels.Set(node.Labels)):
		return SkipNodeSelector
	case !r.affinityMatches(node):
		return SkipNodeAffinity
	}
	return ""
}

func ready(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// toleratesNode reports whether every taint that keeps pods off the node
// (NoSchedule, NoExecute) is tolerated; PreferNoSchedule only discourages.
func (r *Replica) toleratesNode(node *corev1.Node) bool {
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !r.tolerates(t) {
			return false
		}
	}
	return true
}

// tolerates matches with the API's own rules. The numeric operators Lt and
// Gt are honoured: a template can only carry them where the member's API
// server accepts them.
func (r *Replica) tolerates(taint *corev1.Taint) bool {
	for i := range r.Tolerations {
		if r.Tolerations[i].ToleratesTaint(logr.Discard(), taint, true) {
			return true
		}
	}
	return false
}

// affinityMatches applies the required node affinity: the terms are ORed,
// the expressions and fields of one term ANDed. A term that is empty or
// does not parse matches no node, as in the scheduler.
func (r *Replica) affinityMatches(node *corev1.Node) bool {
	if r.Affinity == nil || r.Affinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	nodeLabels := labels.Set(node.Labels)
	nodeFields := labels.Set{"metadata.name": node.Name}
	for _, term := range r.Affinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			continue
		}
		if requirementsMatch(term.MatchExpressions, nodeLabels) && requirementsMatch(term.MatchFields, nodeFields) {
			return true
		}
	}
	return false
}

// requirementsMatch evaluates node selector requirements with apimachinery's
// label requirements, which implement the same operators.
func requirementsMatch(reqs []corev1.NodeSelectorRequirement, set labels.Set) bool {
	for _, req := range reqs {
		op, ok := nodeSelectorOperators[req.Operator]
		if !ok {
			return false
		}
		r, err := labels.NewRequirement(req.Key, op, req.Values)
		if err != nil || !r.Matches(set) {
			return false
		}
	}
	return true
}

var nodeSelectorOperators = map[corev1.NodeSelectorOperator]selection.Operator{
	corev1.NodeSelectorOpIn:           selection.In,
	corev1.NodeSelectorOpNotIn:        selection.NotIn,
	corev1.NodeSelectorOpExists:       selection.Exists,
	corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
	corev1.NodeSelectorOpGt:           selection.GreaterThan,
	corev1.NodeSelectorOpLt:           selection.LessThan,
}
