package tfvalue

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// Dynamic is the dynamic value of a plain form, typed as an HCL literal of
// it would be: a map[string]any is an object, a []any a tuple, a string,
// bool or number (int, int64, *big.Float or json.Number) one of those. A nil form is a null value; a nil inside a
// form is an error, since forms leave out what they do not set. A nil list
// or map is no form either: null, not empty.
func Dynamic(form any) (types.Dynamic, error) {
	switch f := form.(type) {
	case nil:
		return types.DynamicNull(), nil
	case []any:
		if f == nil {
			return types.DynamicNull(), nil
		}
	case map[string]any:
		if f == nil {
			return types.DynamicNull(), nil
		}
	}
	v, err := literal(form)
	if err != nil {
		return types.DynamicNull(), err
	}
	return types.DynamicValue(v), nil
}

func literal(form any) (attr.Value, error) {
	switch f := form.(type) {
	case string:
		return types.StringValue(f), nil
	case bool:
		return types.BoolValue(f), nil
	case int:
		return types.NumberValue(big.NewFloat(float64(f))), nil
	case int64:
		return types.NumberValue(new(big.Float).SetInt64(f)), nil
	case *big.Float:
		return types.NumberValue(f), nil
	case json.Number:
		n, _, err := big.ParseFloat(string(f), 10, 512, big.ToNearestEven)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", f, err)
		}
		return types.NumberValue(n), nil
	case []any:
		elements := make([]attr.Value, len(f))
		elementTypes := make([]attr.Type, len(f))
		for i, e := range f {
			v, err := literal(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			elements[i], elementTypes[i] = v, v.Type(context.Background())
		}
		v, diags := basetypes.NewTupleValue(elementTypes, elements)
		if diags.HasError() {
			return nil, fmt.Errorf("tuple: %v", diags)
		}
		return v, nil
	case map[string]any:
		attributes := make(map[string]attr.Value, len(f))
		attributeTypes := make(map[string]attr.Type, len(f))
		for _, k := range slices.Sorted(maps.Keys(f)) {
			v, err := literal(f[k])
			if err != nil {
				return nil, fmt.Errorf("%q: %w", k, err)
			}
			attributes[k], attributeTypes[k] = v, v.Type(context.Background())
		}
		v, diags := basetypes.NewObjectValue(attributeTypes, attributes)
		if diags.HasError() {
			return nil, fmt.Errorf("object: %v", diags)
		}
		return v, nil
	}
	return nil, fmt.Errorf("no value for %T", form)
}
