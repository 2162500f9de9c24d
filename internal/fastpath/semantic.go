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
		p, n, diags := asLists(ctx, prior, proposed)
		if p == nil {
			return proposed, diags
		}
		elements := n.Elements()
		before := p.Elements()
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

func asLists(ctx context.Context, prior, proposed attr.Value) (*basetypes.ListValue, *basetypes.ListValue, diag.Diagnostics) {
	pv, ok := prior.(basetypes.ListValuable)
	if !ok {
		return nil, nil, nil
	}
	p, diags := pv.ToListValue(ctx)
	if diags.HasError() {
		return nil, nil, diags
	}
	nv, ok := proposed.(basetypes.ListValuable)
	if !ok {
		return nil, nil, diags
	}
	n, ds := nv.ToListValue(ctx)
	if diags.Append(ds...); diags.HasError() {
		return nil, nil, diags
	}
	return &p, &n, diags
}

func keepMap(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.MapValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.MapSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics) {
		pv, ok := prior.(basetypes.MapValuable)
		if !ok {
			return proposed, nil
		}
		p, diags := pv.ToMapValue(ctx)
		if diags.HasError() {
			return proposed, diags
		}
		nv, ok := proposed.(basetypes.MapValuable)
		if !ok {
			return proposed, diags
		}
		n, ds := nv.ToMapValue(ctx)
		if diags.Append(ds...); diags.HasError() {
			return proposed, diags
		}
		before := p.Elements()
		elements := make(map[string]attr.Value, len(n.Elements()))
		changed := false
		for key, element := range n.Elements() {
			elements[key] = element
			old, ok := before[key]
			if !ok {
				continue
			}
			kept, ds := keepEquivalent(ctx, old, element)
			if diags.Append(ds...); diags.HasError() {
				return proposed, diags
			}
			if !kept.Equal(element) {
				elements[key], changed = kept, true
			}
		}
		if !changed {
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
		pv, ok := prior.(basetypes.ObjectValuable)
		if !ok {
			return proposed, nil
		}
		p, diags := pv.ToObjectValue(ctx)
		if diags.HasError() {
			return proposed, diags
		}
		nv, ok := proposed.(basetypes.ObjectValuable)
		if !ok {
			return proposed, diags
		}
		n, ds := nv.ToObjectValue(ctx)
		if diags.Append(ds...); diags.HasError() {
			return proposed, diags
		}
		before := p.Attributes()
		attributes := make(map[string]attr.Value, len(n.Attributes()))
		changed := false
		for name, value := range n.Attributes() {
			attributes[name] = value
			old, ok := before[name]
			if !ok {
				continue
			}
			kept, ds := keepEquivalent(ctx, old, value)
			if diags.Append(ds...); diags.HasError() {
				return proposed, diags
			}
			if !kept.Equal(value) {
				attributes[name], changed = kept, true
			}
		}
		if !changed {
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

func keepSet(ctx context.Context, prior, proposed attr.Value) (attr.Value, diag.Diagnostics) {
	return wholeThenParts(prior, proposed, func(p, n basetypes.SetValuableWithSemanticEquals) (bool, diag.Diagnostics) {
		return n.SetSemanticEquals(ctx, p)
	}, func() (attr.Value, diag.Diagnostics) {
		pv, ok := prior.(basetypes.SetValuable)
		if !ok {
			return proposed, nil
		}
		p, diags := pv.ToSetValue(ctx)
		if diags.HasError() {
			return proposed, diags
		}
		nv, ok := proposed.(basetypes.SetValuable)
		if !ok {
			return proposed, diags
		}
		n, ds := nv.ToSetValue(ctx)
		if diags.Append(ds...); diags.HasError() {
			return proposed, diags
		}
		// Each new element takes the first prior element its type finds
		// equal to it, which no other element may take then.
		unmatched := p.Elements()
		elements := n.Elements()
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
			s, ds := basetypes.NewSetValue(n.ElementType(ctx), elements)
			if ds.HasError() {
				return nil, ds
			}
			typable, ok := proposed.Type(ctx).(basetypes.SetTypable)
			if !ok {
				return nil, notTypable(proposed, "basetypes.SetTypable")
			}
			return typable.ValueFromSet(ctx, s)
		})
	})
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
