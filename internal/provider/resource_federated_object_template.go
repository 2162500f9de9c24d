package provider

import (
	"context"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"sigs.k8s.io/yaml"
)

var (
	_ basetypes.StringTypable                    = templateType{}
	_ basetypes.StringValuableWithSemanticEquals = templateValue{}
)

// templateType is the type of a federated object's template: a YAML or JSON
// document whose formatting carries no meaning. Two templates that decode to
// the same object are equal, so reading back a template stored in another
// format (an imported one, say) is no drift. Terraform still plans a new
// text of a configured attribute; the rendered objects, and so the
// clusters, stay untouched.
type templateType struct {
	basetypes.StringType
}

func (t templateType) String() string { return "templateType" }

func (t templateType) Equal(o attr.Type) bool {
	_, ok := o.(templateType)
	return ok
}

func (t templateType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return templateValue{StringValue: in}, nil
}

func (t templateType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return templateValue{StringValue: s}, nil
}

func (t templateType) ValueType(context.Context) attr.Value { return templateValue{} }

type templateValue struct {
	basetypes.StringValue
}

func (v templateValue) Type(context.Context) attr.Type { return templateType{} }

func (v templateValue) Equal(o attr.Value) bool {
	other, ok := o.(templateValue)
	return ok && v.StringValue.Equal(other.StringValue)
}

// StringSemanticEquals decodes both documents; documents that do not decode
// are equal only as text, and the plan reports why they do not decode.
func (v templateValue) StringSemanticEquals(_ context.Context, other basetypes.StringValuable) (bool, diag.Diagnostics) {
	o, ok := other.(templateValue)
	if !ok {
		return false, nil
	}
	a, errA := decodeDocument(v.ValueString())
	b, errB := decodeDocument(o.ValueString())
	if errA != nil || errB != nil {
		return v.ValueString() == o.ValueString(), nil
	}
	return reflect.DeepEqual(a, b), nil
}

func decodeDocument(text string) (any, error) {
	var out any
	err := yaml.Unmarshal([]byte(text), &out)
	return out, err
}
