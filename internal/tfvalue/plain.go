// Package tfvalue converts the framework's values to plain Go and back:
// what a dynamic attribute or function argument holds, read by the plain
// package, and the canonical value the provider writes for what it reads
// from the host. It also rewrites a stored state's attributes into dynamic
// ones, for the resources' state upgrades.
package tfvalue

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// Plain turns a value of any Terraform type, as a dynamic attribute or
// function argument carries it, into plain Go: nil, bool, *big.Float,
// string, []any (lists, sets and tuples) or map[string]any (maps and
// objects). Values that are not known yet are an error.
func Plain(v attr.Value) (any, error) {
	if v == nil || v.IsNull() {
		return nil, nil
	}
	if v.IsUnknown() {
		return nil, fmt.Errorf("the value is not known yet")
	}
	switch value := v.(type) {
	case basetypes.DynamicValue:
		return Plain(value.UnderlyingValue())
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
		v, err := Plain(e)
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
		v, err := Plain(e)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// PlainJSON is a plain form (as Plain gives it) as JSON: numbers as
// written in full, not as strings.
func PlainJSON(form any) ([]byte, error) {
	return json.Marshal(jsonNumbers(form))
}

func jsonNumbers(form any) any {
	switch f := form.(type) {
	case *big.Float:
		if f == nil {
			return nil
		}
		if f.IsInt() {
			return json.Number(f.Text('f', 0))
		}
		return json.Number(f.Text('g', -1))
	case []any:
		out := make([]any, len(f))
		for i, e := range f {
			out[i] = jsonNumbers(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(f))
		for k, e := range f {
			out[k] = jsonNumbers(e)
		}
		return out
	}
	return form
}
