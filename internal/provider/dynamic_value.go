package provider

import (
	"context"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// plainValue turns a value of any Terraform type, as a dynamic function
// argument carries it, into plain Go: nil, bool, *big.Float, string,
// []any (lists, sets and tuples) or map[string]any (maps and objects).
// Functions validate such values by hand, because HCL object literals with
// optional attributes do not convert to a fixed object type.
func plainValue(v attr.Value) (any, error) {
	if v == nil || v.IsNull() {
		return nil, nil
	}
	if v.IsUnknown() {
		return nil, fmt.Errorf("the value is not known yet")
	}
	switch value := v.(type) {
	case basetypes.DynamicValue:
		return plainValue(value.UnderlyingValue())
	case basetypes.BoolValue:
		return value.ValueBool(), nil
	case basetypes.NumberValue:
		return value.ValueBigFloat(), nil
	case basetypes.Int64Value:
		return new(big.Float).SetInt64(value.ValueInt64()), nil
	case basetypes.Float64Value:
		return big.NewFloat(value.ValueFloat64()), nil
	case basetypes.StringValue:
		return value.ValueString(), nil
	case basetypes.ListValue:
		return plainElements(value.Elements())
	case basetypes.SetValue:
		return plainElements(value.Elements())
	case basetypes.TupleValue:
		return plainElements(value.Elements())
	case basetypes.MapValue:
		return plainAttributes(value.Elements())
	case basetypes.ObjectValue:
		return plainAttributes(value.Attributes())
	default:
		return nil, fmt.Errorf("unsupported value of type %s", v.Type(context.Background()))
	}
}

func plainElements(elements []attr.Value) ([]any, error) {
	out := make([]any, len(elements))
	for i, e := range elements {
		v, err := plainValue(e)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

func plainAttributes(attributes map[string]attr.Value) (map[string]any, error) {
	out := make(map[string]any, len(attributes))
	for k, e := range attributes {
		v, err := plainValue(e)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}
