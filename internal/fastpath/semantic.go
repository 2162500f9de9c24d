package fastpath

import (
	"context"
	"fmt"

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
func keepEquivalent(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics) {
	if prior.IsNull() || prior.IsUnknown() || proposed.IsNull() || proposed.IsUnknown() {
		return proposed, nil
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
	return proposed, nil
}

// keepScalar returns prior when both values have semantic equality of kind
// V and it says they are equal.
func keepScalar[V attr.Value](prior, proposed attr.Value, equal func(prior, proposed V) (bool, diag.Diagnostics)) (attr.Value, diag.Diagnostics) {
	p, ok := prior.(V)
	if !ok {
		return proposed, nil
	}
	n, ok := proposed.(V)
	if !ok {
		return proposed, nil
	}
	same, diags := equal(p, n)
	if same {
		return p, diags
	}
	return proposed, diags
}

func keepDynamic(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics) {
	p, ok := prior.(basetypes.DynamicValuableWithSemanticEquals)
	if !ok {
		return proposed, nil
	}
	n, ok := proposed.(basetypes.DynamicValuableWithSemanticEquals)
	if !ok {
		return proposed, nil
	}
	var diags diag.Diagnostics
	for _, v := range []basetypes.DynamicValuableWithSemanticEquals{p, n} {
		d, ds := v.ToDynamicValue(ctx)
		if diags.Append(ds...); diags.HasError() {
			return proposed, diags
		}
		if d.IsUnderlyingValueNull() || d.IsUnderlyingValueUnknown() {
			return proposed, diags
		}
	}
	same, ds := n.DynamicSemanticEquals(ctx, p)
	diags.Append(ds...)
	if same {
		return p, diags
	}
	return proposed, diags
}

// wholeThenParts asks a collection's own semantic equality first, when both
// values have it, and goes into the parts when it does not say equal.
func wholeThenParts[V attr.Value](prior, proposed attr.Value, whole func(p, n V) (bool, diag.Diagnostics),
	parts func() (attr.Value, diag.Diagnostics)) (attr.Value, diag.Diagnostics) {
	p, pok := prior.(V)
	n, nok := proposed.(V)
	if !pok || !nok {
		return parts()
	}
	same, diags := whole(p, n)
	if diags.HasError() {
		return proposed, diags
	}
	if same {
		return p, diags
	}
	kept, more := parts()
	diags.Append(more...)
	return kept, diags
}

func keepList(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.ListValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.ListSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics) {
		p, n, ok, diags := asValues(prior, proposed, func(v basetypes.ListValuable) (basetypes.ListValue, diag.Diagnostics) {
			return v.ToListValue(ctx)
		})
		if !ok {
			return proposed, diags
		}
		before, elements := p.Elements(), n.Elements()
		changed := false
		for i, element := range elements {
			if i >= len(before) {
				continue
			}
			kept, ds := keepEquivalent(ctx, before[i], element)
			if diags.Append(ds...); diags.HasError() {
				return proposed, diags
			}
			if !kept.Equal(element) {
				elements[i], changed = kept, true
			}
		}
		if !changed {
			return proposed, diags
		}
		return rebuild(proposed, diags, func() (attr.Value, diag.Diagnostics) {
			list, ds := basetypes.NewListValue(n.ElementType(ctx), elements)
			if ds.HasError() {
				return nil, ds
			}
			typable, ok := proposed.Type(ctx).(basetypes.ListTypable)
			if !ok {
				return nil, notTypable(proposed, "basetypes.ListTypable")
			}
			return typable.ValueFromList(ctx, list)
		})
	})
}

func keepMap(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.MapValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.MapSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics) {
		p, n, ok, diags := asValues(prior, proposed, func(v basetypes.MapValuable) (basetypes.MapValue, diag.Diagnostics) {
			return v.ToMapValue(ctx)
		})
		if !ok {
			return proposed, diags
		}
		elements, changed, ds := keepByName(ctx, p.Elements(), n.Elements())
		if diags.Append(ds...); diags.HasError() || !changed {
			return proposed, diags
		}
		return rebuild(proposed, diags, func() (attr.Value, diag.Diagnostics) {
			m, ds := basetypes.NewMapValue(n.ElementType(ctx), elements)
			if ds.HasError() {
				return nil, ds
			}
			typable, ok := proposed.Type(ctx).(basetypes.MapTypable)
			if !ok {
				return nil, notTypable(proposed, "basetypes.MapTypable")
			}
			return typable.ValueFromMap(ctx, m)
		})
	})
}

func keepObject(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.ObjectValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.ObjectSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics) {
		p, n, ok, diags := asValues(prior, proposed, func(v basetypes.ObjectValuable) (basetypes.ObjectValue, diag.Diagnostics) {
			return v.ToObjectValue(ctx)
		})
		if !ok {
			return proposed, diags
		}
		attributes, changed, ds := keepByName(ctx, p.Attributes(), n.Attributes())
		if diags.Append(ds...); diags.HasError() || !changed {
			return proposed, diags
		}
		return rebuild(proposed, diags, func() (attr.Value, diag.Diagnostics) {
			o, ds := basetypes.NewObjectValue(n.AttributeTypes(ctx), attributes)
			if ds.HasError() {
				return nil, ds
			}
			typable, ok := proposed.Type(ctx).(basetypes.ObjectTypable)
			if !ok {
				return nil, notTypable(proposed, "basetypes.ObjectTypable")
			}
			return typable.ValueFromObject(ctx, o)
		})
	})
}

// keepByName returns the parts of a map or an object with each one that has
// a prior part of the same name, which keepEquivalent finds equal to it,
// replaced by that prior part, and whether any was.
func keepByName(ctx context.Context, before, after map[string]attr.Value) (map[string]attr.Value, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	parts := make(map[string]attr.Value, len(after))
	changed := false
	for name, value := range after {
		parts[name] = value
		old, ok := before[name]
		if !ok {
			continue
		}
		kept, ds := keepEquivalent(ctx, old, value)
		if diags.Append(ds...); diags.HasError() {
			return after, false, diags
		}
		if !kept.Equal(value) {
			parts[name], changed = kept, true
		}
	}
	return parts, changed, diags
}

func keepSet(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.SetValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.SetSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics) {
		p, n, ok, diags := asValues(prior, proposed, func(v basetypes.SetValuable) (basetypes.SetValue, diag.Diagnostics) {
			return v.ToSetValue(ctx)
		})
		if !ok {
			return proposed, diags
		}
		// Each new element takes the first prior element its type finds
		// equal to it, which no other element may take then.
		unmatched, elements := p.Elements(), n.Elements()
		changed := false
		for i, element := range elements {
			for j, old := range unmatched {
				kept, ds := keepEquivalent(ctx, old, element)
				if diags.Append(ds...); diags.HasError() {
					return proposed, diags
				}
				if kept.Equal(element) {
					continue
				}
				elements[i], changed = kept, true
				unmatched = append(unmatched[:j], unmatched[j+1:]...)
				break
			}
		}
		if !changed {
			return proposed, diags
		}
		return rebuild(proposed, diags, func() (attr.Value, diag.Diagnostics) {
			set, ds := basetypes.NewSetValue(n.ElementType(ctx), elements)
			if ds.HasError() {
				return nil, ds
			}
			typable, ok := proposed.Type(ctx).(basetypes.SetTypable)
			if !ok {
				return nil, notTypable(proposed, "basetypes.SetTypable")
			}
			return typable.ValueFromSet(ctx, set)
		})
	})
}

// asValues converts both values of a collection to the framework's own
// type of it, C, through the interface V their kind has; ok is false when
// either is not of that kind or does not convert (the new value is kept).
func asValues[V any, C any](prior, proposed attr.Value, convert func(V) (C, diag.Diagnostics)) (p, n C, ok bool, diags diag.Diagnostics) {
	pv, isV := prior.(V)
	if !isV {
		return p, n, false, nil
	}
	if p, diags = convert(pv); diags.HasError() {
		return p, n, false, diags
	}
	nv, isV := proposed.(V)
	if !isV {
		return p, n, false, diags
	}
	n, ds := convert(nv)
	if diags.Append(ds...); diags.HasError() {
		return p, n, false, diags
	}
	return p, n, true, diags
}

// rebuild makes the collection with the prior parts kept, or leaves
// proposed as it was if that fails or the type cannot make one.
func rebuild(proposed attr.Value, diags diag.Diagnostics, build func() (attr.Value, diag.Diagnostics)) (attr.Value, diag.Diagnostics) {
	built, ds := build()
	diags.Append(ds...)
	if diags.HasError() || built == nil {
		return proposed, diags
	}
	return built, diags
}

func notTypable(v attr.Value, want string) diag.Diagnostics {
	return diag.Diagnostics{diag.NewErrorDiagnostic("Value Semantic Equality Type Error",
		fmt.Sprintf("Expected %s type for value type: %T", want, v))}
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
