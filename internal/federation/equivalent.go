package federation

import (
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The functions below compare configurations by what they mean, so that a
// plan can keep the state's spelling of one that means the same as the
// configuration's (an import's, or a state upgrade's).

// SamePlacement reports whether two placements select by the same list, or
// by the same selector.
func SamePlacement(a, b Placement) bool {
	if (a.Clusters == nil) != (b.Clusters == nil) || !slices.Equal(a.Clusters, b.Clusters) {
		return false
	}
	return SameSelector(a.Selector, b.Selector)
}

// SameSelector reports whether two selectors have the same labels and
// requirements, absent and empty alike.
func SameSelector(a, b *metav1.LabelSelector) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.MatchLabels) != len(b.MatchLabels) || len(a.MatchExpressions) != len(b.MatchExpressions) {
		return false
	}
	for k, v := range a.MatchLabels {
		if w, ok := b.MatchLabels[k]; !ok || w != v {
			return false
		}
	}
	for i, e := range a.MatchExpressions {
		f := b.MatchExpressions[i]
		if e.Key != f.Key || e.Operator != f.Operator || !slices.Equal(e.Values, f.Values) {
			return false
		}
	}
	return true
}

// SameOverrideRules reports whether two lists of rules target the same
// clusters with the same patches, in order: an absent operation is
// replace, and values are compared as JSON.
func SameOverrideRules(a, b []OverrideRule) bool {
	return slices.EqualFunc(a, b, sameRule)
}

// SameSetOverrideRules is SameOverrideRules for an application's rules:
// the rules of each object the same, in order, whatever the order between
// objects (an import lists them object by object).
func SameSetOverrideRules(a, b []SetOverrideRule) bool {
	if len(a) != len(b) {
		return false
	}
	byObject := func(rules []SetOverrideRule) map[ObjectRef][]OverrideRule {
		out := map[ObjectRef][]OverrideRule{}
		for _, r := range rules {
			var key ObjectRef
			if r.Object != nil {
				key = *r.Object
			}
			out[key] = append(out[key], r.OverrideRule)
		}
		return out
	}
	x, y := byObject(a), byObject(b)
	if len(x) != len(y) {
		return false
	}
	for key, rules := range x {
		if !SameOverrideRules(rules, y[key]) {
			return false
		}
	}
	return true
}

func sameRule(a, b OverrideRule) bool {
	return a.Cluster == b.Cluster && SameSelector(a.Selector, b.Selector) && slices.EqualFunc(a.Patches, b.Patches, samePatch)
}

func samePatch(a, b Patch) bool {
	if a.Path != b.Path || operation(a.Op) != operation(b.Op) {
		return false
	}
	if a.Value == b.Value {
		return true
	}
	x, errX := decodeJSON([]byte(a.Value))
	y, errY := decodeJSON([]byte(b.Value))
	return errX == nil && errY == nil && reflect.DeepEqual(x, y)
}

func operation(op string) string {
	if op == "" {
		return OpReplace
	}
	return op
}
