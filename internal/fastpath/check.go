package fastpath

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Check reports whether the framework's work around ModifyPlan in a
// no-change plan of r changes nothing, and whether its work around Read is
// what this package does, so that the package may answer them. It looks at
// what r implements, what its Metadata declares and its schema, and refuses:
//
//   - an identity schema with errors;
//   - any resource behaviour declared in Metadata (deferred planning, a
//     mutable identity), which the package does not carry;
//   - a resource without ModifyPlan, whose plan the package would not run;
//   - blocks, which the framework may turn from empty into null;
//   - write-only attributes, which the framework nulls in a read's state;
//   - defaults other than static strings, booleans and numbers on top-level
//     attributes: a plan with such a default that the state does not hold
//     is left to the framework;
//   - plan modifiers other than stringplanmodifier.UseStateForUnknown and
//     RequiresReplace, which act only on an unknown planned value or on a
//     change. A modifier is taken for one of them when it describes itself
//     as the one those constructors return does, in both forms.
//
// What belongs to the provider rather than the resource (a provider meta
// schema, deferred answers allowed when it is configured) Wrap checks.
func Check(ctx context.Context, r resource.Resource) error {
	_, _, err := checkResource(ctx, r)
	return err
}

// checkResource returns r's schema and the values of its attributes with a
// default, by name, or why Check refuses r.
func checkResource(ctx context.Context, r resource.Resource) (schema.Schema, map[string]tftypes.Value, error) {
	if withIdentity, ok := r.(resource.ResourceWithIdentity); ok {
		var resp resource.IdentitySchemaResponse
		withIdentity.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &resp)
		if resp.Diagnostics.HasError() {
			return schema.Schema{}, nil, errors.New("the resource's identity schema has errors")
		}
	}
	if _, ok := r.(resource.ResourceWithModifyPlan); !ok {
		return schema.Schema{}, nil, errors.New("the resource has no ModifyPlan")
	}
	var metadata resource.MetadataResponse
	r.Metadata(ctx, resource.MetadataRequest{}, &metadata)
	if metadata.ResourceBehavior != (resource.ResourceBehavior{}) {
		return schema.Schema{}, nil, fmt.Errorf("the resource declares a behaviour: %+v", metadata.ResourceBehavior)
	}
	var resp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		return schema.Schema{}, nil, errors.New("the resource's schema has errors")
	}
	defaultValues, err := checkSchema(ctx, resp.Schema)
	return resp.Schema, defaultValues, err
}

func checkSchema(ctx context.Context, s schema.Schema) (map[string]tftypes.Value, error) {
	if len(s.Blocks) > 0 {
		return nil, errors.New("the schema has blocks")
	}
	var problems []string
	found := map[string]tftypes.Value{}
	for _, name := range sortedNames(s.Attributes) {
		a := s.Attributes[name]
		problems = append(problems, checkAttribute(ctx, path.Root(name), a)...)
		value, ok, err := defaultValue(ctx, path.Root(name), a)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case ok:
			found[name] = value
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return found, nil
}

// checkAttribute lists what keeps the attribute at p, and those nested in
// it, from being planned here. Top-level defaults are checked by
// defaultValue.
func checkAttribute(ctx context.Context, p path.Path, a schema.Attribute) []string {
	f, known := featuresOf(a)
	if !known {
		return []string{fmt.Sprintf("%s is a %T, an attribute type not checked here", p, a)}
	}
	var problems []string
	if a.IsWriteOnly() {
		problems = append(problems, p.String()+" is write-only")
	}
	if f.otherModifiers > 0 {
		problems = append(problems, p.String()+" has plan modifiers not checked here")
	}
	for _, m := range f.stringModifiers {
		if !actsOnChangeOnly(ctx, m) {
			problems = append(problems, fmt.Sprintf("%s has plan modifier %q", p, m.Description(ctx)))
		}
	}
	nested := nestedAttributes(a)
	for _, name := range sortedNames(nested) {
		n := nested[name]
		if f, _ := featuresOf(n); f.hasDefault {
			problems = append(problems, p.AtName(name).String()+" has a default")
		}
		problems = append(problems, checkAttribute(ctx, p.AtName(name), n)...)
	}
	return problems
}

// changeOnlyModifiers are the framework's string plan modifiers that leave
// a plan alone when its value is the prior state's, known.
var changeOnlyModifiers = []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()}

// actsOnChangeOnly reports whether m describes itself as one of
// changeOnlyModifiers does.
func actsOnChangeOnly(ctx context.Context, m planmodifier.String) bool {
	for _, known := range changeOnlyModifiers {
		if m.Description(ctx) == known.Description(ctx) && m.MarkdownDescription(ctx) == known.MarkdownDescription(ctx) {
			return true
		}
	}
	return false
}

// attributeFeatures is what Check looks at in an attribute besides its
// nested attributes.
type attributeFeatures struct {
	stringModifiers []planmodifier.String
	// otherModifiers counts the plan modifiers of other kinds.
	otherModifiers int
	hasDefault     bool
}

// featuresOf reads the features of an attribute of the framework's types;
// known is false for any other type.
func featuresOf(a schema.Attribute) (f attributeFeatures, known bool) {
	switch a := a.(type) {
	case schema.StringAttribute:
		return attributeFeatures{stringModifiers: a.PlanModifiers, hasDefault: a.Default != nil}, true
	case schema.BoolAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.Int64Attribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.Int32Attribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.Float64Attribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.Float32Attribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.NumberAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.ListAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.SetAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.MapAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.ObjectAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.DynamicAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.SingleNestedAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.ListNestedAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.SetNestedAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	case schema.MapNestedAttribute:
		return attributeFeatures{otherModifiers: len(a.PlanModifiers), hasDefault: a.Default != nil}, true
	}
	return attributeFeatures{}, false
}

func sortedNames(attrs map[string]schema.Attribute) []string {
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func nestedAttributes(a schema.Attribute) map[string]schema.Attribute {
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		return a.Attributes
	case schema.ListNestedAttribute:
		return a.NestedObject.Attributes
	case schema.SetNestedAttribute:
		return a.NestedObject.Attributes
	case schema.MapNestedAttribute:
		return a.NestedObject.Attributes
	}
	return nil
}

// defaultValue returns the value of a top-level attribute's default, and
// whether it has one.
func defaultValue(ctx context.Context, p path.Path, a schema.Attribute) (tftypes.Value, bool, error) {
	switch a := a.(type) {
	case schema.StringAttribute:
		if a.Default == nil {
			return tftypes.Value{}, false, nil
		}
		resp := defaults.StringResponse{}
		a.Default.DefaultString(ctx, defaults.StringRequest{Path: p}, &resp)
		return toTerraform(ctx, p, resp.PlanValue, resp.Diagnostics.HasError())
	case schema.BoolAttribute:
		if a.Default == nil {
			return tftypes.Value{}, false, nil
		}
		resp := defaults.BoolResponse{}
		a.Default.DefaultBool(ctx, defaults.BoolRequest{Path: p}, &resp)
		return toTerraform(ctx, p, resp.PlanValue, resp.Diagnostics.HasError())
	case schema.Int64Attribute:
		if a.Default == nil {
			return tftypes.Value{}, false, nil
		}
		resp := defaults.Int64Response{}
		a.Default.DefaultInt64(ctx, defaults.Int64Request{Path: p}, &resp)
		return toTerraform(ctx, p, resp.PlanValue, resp.Diagnostics.HasError())
	case schema.Float64Attribute:
		if a.Default == nil {
			return tftypes.Value{}, false, nil
		}
		resp := defaults.Float64Response{}
		a.Default.DefaultFloat64(ctx, defaults.Float64Request{Path: p}, &resp)
		return toTerraform(ctx, p, resp.PlanValue, resp.Diagnostics.HasError())
	}
	if f, _ := featuresOf(a); f.hasDefault {
		return tftypes.Value{}, false, fmt.Errorf("%s has a default of a kind not checked here", p)
	}
	return tftypes.Value{}, false, nil
}

type terraformValuable interface {
	ToTerraformValue(context.Context) (tftypes.Value, error)
}

func toTerraform(ctx context.Context, p path.Path, v terraformValuable, failed bool) (tftypes.Value, bool, error) {
	if failed {
		return tftypes.Value{}, false, fmt.Errorf("%s: its default failed", p)
	}
	value, err := v.ToTerraformValue(ctx)
	if err != nil {
		return tftypes.Value{}, false, fmt.Errorf("%s: %w", p, err)
	}
	return value, true, nil
}
