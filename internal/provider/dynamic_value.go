package provider

import (
	"context"
	"fmt"
	"math/big"
	"sort"

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

// plainObject reads an optional object (or map) argument and rejects
// attributes it does not know, so a typo is an error rather than ignored.
func plainObject(v any, what string, known ...string) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	object, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be an object, not %s", what, describePlain(v))
	}
	allowed := map[string]bool{}
	for _, k := range known {
		allowed[k] = true
	}
	var unknown []string
	for k := range object {
		if !allowed[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s has no attribute %q (it has: %v)", what, unknown[0], known)
	}
	return object, nil
}

// plainInt reads a whole number; nil stays nil.
func plainInt(v any, what string) (*int64, error) {
	if v == nil {
		return nil, nil
	}
	number, ok := v.(*big.Float)
	if !ok {
		return nil, fmt.Errorf("%s must be a number, not %s", what, describePlain(v))
	}
	whole, accuracy := number.Int64()
	if accuracy != big.Exact || !number.IsInt() {
		return nil, fmt.Errorf("%s must be a whole number, not %s", what, number.Text('g', 10))
	}
	return &whole, nil
}

func plainString(v any, what string) (string, error) {
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string, not %s", what, describePlain(v))
	}
	return s, nil
}

func plainStringMap(v any, what string) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	object, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a map of strings, not %s", what, describePlain(v))
	}
	out := make(map[string]string, len(object))
	for k, e := range object {
		s, err := plainString(e, fmt.Sprintf("%s[%q]", what, k))
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

func describePlain(v any) string {
	switch v.(type) {
	case bool:
		return "a bool"
	case *big.Float:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	default:
		return "null"
	}
}
