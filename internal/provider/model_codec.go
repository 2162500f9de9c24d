package provider

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// modelCodec reads a resource's model, a struct of attr.Value fields
// tagged `tfsdk`, from Terraform's value of the resource, and writes it
// back. The framework's Get and Set work the struct's layout and the
// schema's types out anew for each value they convert, which costs a large
// plan a tenth of its CPU; the codec learns them once, on first use, and
// converts field by field with the schema's own attribute types, as the
// framework does.
type modelCodec[M any] struct {
	once   sync.Once
	layout modelLayout
	err    error
}

// schemaTyped is what the codec needs of a schema: its type, an object
// type with one attribute per field.
type schemaTyped interface {
	Type() attr.Type
}

type modelLayout struct {
	object tftypes.Object
	fields []modelField
}

type modelField struct {
	index int
	name  string
	typ   attr.Type
}

// learn works the layout out from the schema and M, and fails when they
// do not match: a field without an attribute, an attribute without a field,
// or a field whose type is not the attribute's value type.
func learnLayout(ctx context.Context, schema schemaTyped, model reflect.Type) (modelLayout, error) {
	objectType, ok := schema.Type().(basetypes.ObjectType)
	if !ok {
		return modelLayout{}, fmt.Errorf("the schema's type is %T, not an object", schema.Type())
	}
	object, ok := objectType.TerraformType(ctx).(tftypes.Object)
	if !ok {
		return modelLayout{}, fmt.Errorf("the schema's Terraform type is not an object")
	}
	layout := modelLayout{object: object}
	for i := range model.NumField() {
		field := model.Field(i)
		name := field.Tag.Get("tfsdk")
		typ, ok := objectType.AttrTypes[name]
		if !ok {
			return modelLayout{}, fmt.Errorf("field %s of %s: the schema has no attribute %q", field.Name, model, name)
		}
		if valueType := reflect.TypeOf(typ.ValueType(ctx)); valueType != field.Type {
			return modelLayout{}, fmt.Errorf("field %s of %s is a %s, attribute %q holds a %s", field.Name, model, field.Type, name, valueType)
		}
		layout.fields = append(layout.fields, modelField{index: i, name: name, typ: typ})
	}
	if len(layout.fields) != len(objectType.AttrTypes) {
		return modelLayout{}, fmt.Errorf("%s has %d fields for the schema's %d attributes", model, len(layout.fields), len(objectType.AttrTypes))
	}
	return layout, nil
}

func (c *modelCodec[M]) learned(ctx context.Context, schema schemaTyped) (modelLayout, diag.Diagnostics) {
	c.once.Do(func() {
		c.layout, c.err = learnLayout(ctx, schema, reflect.TypeFor[M]())
	})
	if c.err != nil {
		return modelLayout{}, codecError(c.err)
	}
	return c.layout, nil
}

// get reads raw, a known object of the schema, into model.
func (c *modelCodec[M]) get(ctx context.Context, schema schemaTyped, raw tftypes.Value, model *M) diag.Diagnostics {
	layout, diags := c.learned(ctx, schema)
	if diags.HasError() {
		return diags
	}
	if raw.IsNull() || !raw.IsKnown() {
		return codecError(fmt.Errorf("the resource's value is %s, not an object", raw))
	}
	values := map[string]tftypes.Value{}
	if err := raw.As(&values); err != nil {
		return codecError(err)
	}
	target := reflect.ValueOf(model).Elem()
	for _, f := range layout.fields {
		v, err := f.typ.ValueFromTerraform(ctx, values[f.name])
		if err != nil {
			return codecError(fmt.Errorf("attribute %q: %w", f.name, err))
		}
		target.Field(f.index).Set(reflect.ValueOf(v))
	}
	return nil
}

// value is model as a Terraform value of the schema, to become a State's or
// a Plan's raw value.
func (c *modelCodec[M]) value(ctx context.Context, schema schemaTyped, model *M) (tftypes.Value, diag.Diagnostics) {
	layout, diags := c.learned(ctx, schema)
	if diags.HasError() {
		return tftypes.Value{}, diags
	}
	source := reflect.ValueOf(model).Elem()
	values := make(map[string]tftypes.Value, len(layout.fields))
	for _, f := range layout.fields {
		v, err := source.Field(f.index).Interface().(attr.Value).ToTerraformValue(ctx)
		if err != nil {
			return tftypes.Value{}, codecError(fmt.Errorf("attribute %q: %w", f.name, err))
		}
		values[f.name] = v
	}
	if err := tftypes.ValidateValue(layout.object, values); err != nil {
		return tftypes.Value{}, codecError(err)
	}
	return tftypes.NewValue(layout.object, values), nil
}

func codecError(err error) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddError("Cannot convert the resource's value",
		fmt.Sprintf("%v\n\nThis is a bug in the provider; please report it.", err))
	return diags
}

func (c *modelCodec[M]) fromState(ctx context.Context, s tfsdk.State, model *M) diag.Diagnostics {
	return c.get(ctx, s.Schema, s.Raw, model)
}

func (c *modelCodec[M]) fromPlan(ctx context.Context, p tfsdk.Plan, model *M) diag.Diagnostics {
	return c.get(ctx, p.Schema, p.Raw, model)
}

func (c *modelCodec[M]) toState(ctx context.Context, s *tfsdk.State, model *M) diag.Diagnostics {
	v, diags := c.value(ctx, s.Schema, model)
	if diags.HasError() {
		return diags
	}
	s.Raw = v
	return nil
}

func (c *modelCodec[M]) toPlan(ctx context.Context, p *tfsdk.Plan, model *M) diag.Diagnostics {
	v, diags := c.value(ctx, p.Schema, model)
	if diags.HasError() {
		return diags
	}
	p.Raw = v
	return nil
}

func (c *modelCodec[M]) fromConfig(ctx context.Context, cfg tfsdk.Config, model *M) diag.Diagnostics {
	return c.get(ctx, cfg.Schema, cfg.Raw, model)
}
