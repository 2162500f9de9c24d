package fastpath

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// After a read, the framework keeps the prior value of every value whose
// type says the new one means the same (a JSON document written
// differently, say), so that a refresh does not show a change that is none.
// keepEquivalent does the same with a refreshed attribute: it returns the
// new value with each part that its type's semantic equality finds equal to
// the prior part replaced by the prior part, walking into lists and maps by
// position and key, objects by attribute and sets by trying each prior
// element.
func keepEquivalent(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics, error) {
	if prior.IsNull() || prior.IsUnknown() || proposed.IsNull() || proposed.IsUnknown() {
		return proposed, nil, nil
	}
	switch proposed.(type) {
	case basetypes.BoolValuable:
		return keepScalar(prior, proposed, func(p, n basetypes.BoolValuableWithSemanticEquals) (bool, diag.Diagnostics) {
			return n.BoolSemanticEquals(ctx, p)
		})
	case basetypes.Float32Valuable:
		return keepScalar(prior, proposed, func(p, n basetypes.Float32ValuableWithSemanticEquals) (bool, diag.Diagnostics) {
			return n.Float32SemanticEquals(ctx, p)
		})
	case basetypes.Float64Valuable:
		return keepScalar(prior, proposed, func(p, n basetypes.Float64ValuableWithSemanticEquals) (bool, diag.Diagnostics) {
			return n.Float64SemanticEquals(ctx, p)
		})
	case basetypes.Int32Valuable:
		return keepScalar(prior, proposed, func(p, n basetypes.Int32ValuableWithSemanticEquals) (bool, diag.Diagnostics) {
			return n.Int32SemanticEquals(ctx, p)
		})
	case basetypes.Int64Valuable:
		return keepScalar(prior, proposed, func(p, n basetypes.Int64ValuableWithSemanticEquals) (bool, diag.Diagnostics) {
			return n.Int64SemanticEquals(ctx, p)
		})
	case basetypes.ListValuable:
		return keepList(ctx, prior, proposed)
	case basetypes.MapValuable:
		return keepMap(ctx, prior, proposed)
	case basetypes.NumberValuable:
		return keepScalar(prior, proposed, func(p, n basetypes.NumberValuableWithSemanticEquals) (bool, diag.Diagnostics) {
			return n.NumberSemanticEquals(ctx, p)
		})
	case basetypes.ObjectValuable:
		return keepObject(ctx, prior, proposed)
	case basetypes.SetValuable:
		return keepSet(ctx, prior, proposed)
	case basetypes.StringValuable:
		return keepScalar(prior, proposed, func(p, n basetypes.StringValuableWithSemanticEquals) (bool, diag.Diagnostics) {
			return n.StringSemanticEquals(ctx, p)
		})
	case basetypes.DynamicValuable:
		return keepDynamic(ctx, prior, proposed)
	}
	return proposed, nil, nil
}

// keepScalar returns prior when both values have semantic equality of kind
// V and it says they are equal.
func keepScalar[V attr.Value](prior, proposed attr.Value, equal func(prior, proposed V) (bool, diag.Diagnostics)) (attr.Value, diag.Diagnostics, error) {
	p, ok := prior.(V)
	if !ok {
		return proposed, nil, nil
	}
	n, ok := proposed.(V)
	if !ok {
		return proposed, nil, nil
	}
	same, diags := equal(p, n)
	if same {
		return p, diags, nil
	}
	return proposed, diags, nil
}

func keepDynamic(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics, error) {
	p, ok := prior.(basetypes.DynamicValuableWithSemanticEquals)
	if !ok {
		return proposed, nil, nil
	}
	n, ok := proposed.(basetypes.DynamicValuableWithSemanticEquals)
	if !ok {
		return proposed, nil, nil
	}
	for _, v := range []basetypes.DynamicValuableWithSemanticEquals{p, n} {
		d, diags := v.ToDynamicValue(ctx)
		if diags.HasError() {
			return proposed, nil, errNotAnswered
		}
		if d.IsUnderlyingValueNull() || d.IsUnderlyingValueUnknown() {
			return proposed, nil, nil
		}
	}
	return keepScalar(prior, proposed, func(p, n basetypes.DynamicValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.DynamicSemanticEquals(ctx, p)
	})
}

// wholeThenParts asks a collection's own semantic equality first, when both
// values have it, and goes into the parts when it does not say equal.
func wholeThenParts[V attr.Value](prior, proposed attr.Value, whole func(p, n V) (bool, diag.Diagnostics),
	parts func() (attr.Value, diag.Diagnostics, error)) (attr.Value, diag.Diagnostics, error) {
	p, pok := prior.(V)
	n, nok := proposed.(V)
	if !pok || !nok {
		return parts()
	}
	same, diags := whole(p, n)
	if diags.HasError() {
		return proposed, diags, nil
	}
	if same {
		return p, diags, nil
	}
	kept, more, err := parts()
	diags.Append(more...)
	return kept, diags, err
}

func keepList(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics, error) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.ListValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.ListSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics, error) {
		p, n, ok, err := asValues(prior, proposed, func(v basetypes.ListValuable) (basetypes.ListValue, diag.Diagnostics) {
			return v.ToListValue(ctx)
		})
		if !ok {
			return proposed, nil, err
		}
		before, elements := p.Elements(), n.Elements()
		var diags diag.Diagnostics
		changed := false
		for i, element := range elements {
			if i >= len(before) {
				continue
			}
			kept, more, err := keepEquivalent(ctx, before[i], element)
			if diags.Append(more...); err != nil || diags.HasError() {
				return proposed, diags, err
			}
			if !kept.Equal(element) {
				elements[i], changed = kept, true
			}
		}
		if !changed {
			return proposed, diags, nil
		}
		list, more := basetypes.NewListValue(n.ElementType(ctx), elements)
		if more.HasError() {
			return proposed, diags, errNotAnswered
		}
		typable, typed := proposed.Type(ctx).(basetypes.ListTypable)
		if !typed {
			return proposed, diags, errNotAnswered
		}
		return rebuilt(proposed, diags)(typable.ValueFromList(ctx, list))
	})
}

func keepMap(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics, error) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.MapValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.MapSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics, error) {
		p, n, ok, err := asValues(prior, proposed, func(v basetypes.MapValuable) (basetypes.MapValue, diag.Diagnostics) {
			return v.ToMapValue(ctx)
		})
		if !ok {
			return proposed, nil, err
		}
		elements, changed, diags, err := keepByName(ctx, p.Elements(), n.Elements())
		if err != nil || diags.HasError() || !changed {
			return proposed, diags, err
		}
		m, more := basetypes.NewMapValue(n.ElementType(ctx), elements)
		if more.HasError() {
			return proposed, diags, errNotAnswered
		}
		typable, typed := proposed.Type(ctx).(basetypes.MapTypable)
		if !typed {
			return proposed, diags, errNotAnswered
		}
		return rebuilt(proposed, diags)(typable.ValueFromMap(ctx, m))
	})
}

func keepObject(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics, error) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.ObjectValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.ObjectSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics, error) {
		p, n, ok, err := asValues(prior, proposed, func(v basetypes.ObjectValuable) (basetypes.ObjectValue, diag.Diagnostics) {
			return v.ToObjectValue(ctx)
		})
		if !ok {
			return proposed, nil, err
		}
		attributes, changed, diags, err := keepByName(ctx, p.Attributes(), n.Attributes())
		if err != nil || diags.HasError() || !changed {
			return proposed, diags, err
		}
		o, more := basetypes.NewObjectValue(n.AttributeTypes(ctx), attributes)
		if more.HasError() {
			return proposed, diags, errNotAnswered
		}
		typable, typed := proposed.Type(ctx).(basetypes.ObjectTypable)
		if !typed {
			return proposed, diags, errNotAnswered
		}
		return rebuilt(proposed, diags)(typable.ValueFromObject(ctx, o))
	})
}

// keepByName returns the parts of a map or an object with each one that has
// a prior part of the same name, which keepEquivalent finds equal to it,
// replaced by that prior part, and whether any was.
func keepByName(ctx context.Context, before, after map[string]attr.Value) (map[string]attr.Value, bool, diag.Diagnostics, error) {
	var diags diag.Diagnostics
	parts := make(map[string]attr.Value, len(after))
	changed := false
	for name, value := range after {
		parts[name] = value
		old, ok := before[name]
		if !ok {
			continue
		}
		kept, more, err := keepEquivalent(ctx, old, value)
		if diags.Append(more...); err != nil || diags.HasError() {
			return after, false, diags, err
		}
		if !kept.Equal(value) {
			parts[name], changed = kept, true
		}
	}
	return parts, changed, diags, nil
}

func keepSet(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics, error) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.SetValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.SetSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics, error) {
		p, n, ok, err := asValues(prior, proposed, func(v basetypes.SetValuable) (basetypes.SetValue, diag.Diagnostics) {
			return v.ToSetValue(ctx)
		})
		if !ok {
			return proposed, nil, err
		}
		elements, changed, diags, err := keepSetElements(ctx, p.Elements(), n.Elements())
		if err != nil || diags.HasError() || !changed {
			return proposed, diags, err
		}
		set, more := basetypes.NewSetValue(n.ElementType(ctx), elements)
		if more.HasError() {
			return proposed, diags, errNotAnswered
		}
		typable, typed := proposed.Type(ctx).(basetypes.SetTypable)
		if !typed {
			return proposed, diags, errNotAnswered
		}
		return rebuilt(proposed, diags)(typable.ValueFromSet(ctx, set))
	})
}

// keepSetElements gives each new element the first prior element its type
// finds equal to it, which no other element may take then.
func keepSetElements(ctx context.Context, unmatched, elements []attr.Value) ([]attr.Value, bool, diag.Diagnostics, error) {
	var diags diag.Diagnostics
	changed := false
	for i, element := range elements {
		for j, old := range unmatched {
			kept, more, err := keepEquivalent(ctx, old, element)
			if diags.Append(more...); err != nil || diags.HasError() {
				return elements, false, diags, err
			}
			if kept.Equal(element) {
				continue
			}
			elements[i], changed = kept, true
			unmatched = append(unmatched[:j], unmatched[j+1:]...)
			break
		}
	}
	return elements, changed, diags, nil
}

// asValues converts both values of a collection to the framework's own
// type of it, C, through the interface V their kind has; ok is false when
// either is not of that kind (the new value is kept), and err is set when
// either does not convert.
func asValues[V any, C any](prior, proposed attr.Value, convert func(V) (C, diag.Diagnostics)) (p, n C, ok bool, err error) {
	pv, pok := prior.(V)
	nv, nok := proposed.(V)
	if !pok || !nok {
		return p, n, false, nil
	}
	p, diags := convert(pv)
	if diags.HasError() {
		return p, n, false, errNotAnswered
	}
	n, diags = convert(nv)
	if diags.HasError() {
		return p, n, false, errNotAnswered
	}
	return p, n, true, nil
}

// rebuilt returns what makes the collection with the prior parts kept, or
// an error when the collection's type cannot make it.
func rebuilt(proposed attr.Value, diags diag.Diagnostics) func(attr.Value, diag.Diagnostics) (attr.Value, diag.Diagnostics, error) {
	return func(built attr.Value, more diag.Diagnostics) (attr.Value, diag.Diagnostics, error) {
		if more.HasError() || built == nil {
			return proposed, diags, errNotAnswered
		}
		return built, diags, nil
	}
}

// mayKeepEquivalent reports whether values of type t may hold a part with
// semantic equality: false only for the framework's own types, and
// collections and objects of them, whose parts keepEquivalent never changes.
func mayKeepEquivalent(t attr.Type) bool {
	switch t := t.(type) {
	case basetypes.StringType, basetypes.BoolType, basetypes.Int64Type, basetypes.Int32Type,
		basetypes.Float64Type, basetypes.Float32Type, basetypes.NumberType:
		return false
	case basetypes.ListType:
		return mayKeepEquivalent(t.ElemType)
	case basetypes.SetType:
		return mayKeepEquivalent(t.ElemType)
	case basetypes.MapType:
		return mayKeepEquivalent(t.ElemType)
	case basetypes.ObjectType:
		for _, a := range t.AttrTypes {
			if mayKeepEquivalent(a) {
				return true
			}
		}
		return false
	}
	return true
}
