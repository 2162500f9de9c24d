package federation

import (
	"errors"
	"fmt"
)

// SetOverrideRule is an override rule of a set of objects: an OverrideRule
// and the object of the set it patches.
type SetOverrideRule struct {
	OverrideRule
	// Object names the object the rule patches. It may be nil only when
	// the set holds one object.
	Object *ObjectRef
}

// ObjectOverrides are the override rules of a set that patch one of its
// objects.
type ObjectOverrides struct {
	// Rules are the rules, in the set's order: the object's
	// RenderSpec.Overrides.
	Rules []OverrideRule
	// Index is the position of each of Rules among the set's rules.
	Index []int
}

// SetError returns err, from rendering the object with Rules, with the
// rule of an *OverrideError counted among the set's rules, so that it
// points at the rule as written. Other errors are returned as they are.
func (o ObjectOverrides) SetError(err error) error {
	var oe *OverrideError
	if !errors.As(err, &oe) || oe.Rule < 0 || oe.Rule >= len(o.Index) {
		return err
	}
	inSet := *oe
	inSet.Rule = o.Index[oe.Rule]
	return &inSet
}

// SelectObjects returns, for each object, the rules that patch it. A rule
// must name an object of the set, and exactly one, unless the set holds
// one object; every rule that does not is an *OverrideError for the rule
// as a whole (Patch -1), and several are joined with errors.Join. The
// rules' targets and patches are ValidateOverrides' to check, over the
// set's rules, so that its errors count rules as written too.
func SelectObjects(rules []SetOverrideRule, objects []Key) ([]ObjectOverrides, error) {
	selected := make([]ObjectOverrides, len(objects))
	index, named := indexObjects(objects)
	var problems []error
	for i, rule := range rules {
		target, err := ruleObject(rule, objects, named)
		if err != nil {
			problems = append(problems, &OverrideError{Rule: i, Patch: -1, Err: err})
			continue
		}
		o := &selected[index[target]]
		o.Rules = append(o.Rules, rule.OverrideRule)
		o.Index = append(o.Index, i)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return selected, nil
}

// kindName is what a rule's object must match at least.
type kindName struct{ kind, name string }

// indexObjects gives each object's position in objects, and the objects
// by kind and name, which an ObjectRef resolves among.
func indexObjects(objects []Key) (map[Key]int, map[kindName][]Key) {
	index := make(map[Key]int, len(objects))
	named := map[kindName][]Key{}
	for i, k := range objects {
		index[k] = i
		named[kindName{k.Kind, k.Name}] = append(named[kindName{k.Kind, k.Name}], k)
	}
	return index, named
}

// ruleObject is the object of the set a rule patches; named are the set's
// objects by kind and name.
func ruleObject(rule SetOverrideRule, objects []Key, named map[kindName][]Key) (Key, error) {
	if rule.Object != nil {
		k, err := rule.Object.resolveAmong(named[kindName{rule.Object.Kind, rule.Object.Name}], objects)
		if err != nil {
			return Key{}, fmt.Errorf("object: %w", err)
		}
		return k, nil
	}
	switch len(objects) {
	case 1:
		return objects[0], nil
	case 0:
		return Key{}, errors.New("the set holds no object to patch")
	}
	return Key{}, fmt.Errorf("the set holds %d objects; name the one this rule patches with object (kind and name)", len(objects))
}
