package fastpath

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Check reports whether the framework's work around ModifyPlan in a
// no-change plan of a resource with schema s changes nothing, and whether
// its work around Read is what this package does, so that the package may
// answer them. That holds when s has:
//
//   - no blocks, so no empty block is turned into null;
//   - no write-only attributes, which the framework nulls in a read's state,
//     and no dynamic ones;
//   - defaults on top-level attributes only, static ones of strings,
//     booleans or 64-bit numbers: a plan with such a default that the state
//     does not hold is left to the framework;
//   - no plan modifiers but UseStateForUnknown and RequiresReplace(If),
//     which act only on an unknown planned value or on a change.
func Check(ctx context.Context, s schema.Schema) error {
	_, err := checkSchema(ctx, s)
	return err
}

func checkSchema(ctx context.Context, s schema.Schema) (map[string]tftypes.Value, error) {
	if len(s.Blocks) > 0 {
		return nil, errors.New("the schema has blocks")
	}
	var problems []string
	found := map[string]tftypes.Value{}
	for _, name := range sortedNames(s.Attributes) {
		a := s.Attributes[name]
		problems = append(problems, checkAttribute(path.Root(name), a)...)
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
// it, from being planned here. Defaults are checked by defaultValue.
func checkAttribute(p path.Path, a schema.Attribute) []string {
	var problems []string
	if a.IsWriteOnly() {
		problems = append(problems, p.String()+" is write-only")
	}
	if _, ok := a.(schema.DynamicAttribute); ok {
		problems = append(problems, p.String()+" is dynamic")
	}
	for _, m := range planModifiers(a) {
		if !actsOnChangeOnly(m) {
			problems = append(problems, fmt.Sprintf("%s has plan modifier %T", p, m))
		}
	}
	nested := nestedAttributes(a)
	for _, name := range sortedNames(nested) {
		n := nested[name]
		if hasDefault(n) {
			problems = append(problems, p.AtName(name).String()+" has a default")
		}
		problems = append(problems, checkAttribute(p.AtName(name), n)...)
	}
	return problems
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

// planModifiers returns the attribute's plan modifiers, of whatever kind:
// every attribute type keeps them in a PlanModifiers field.
func planModifiers(a schema.Attribute) []any {
	field := reflect.ValueOf(a).FieldByName("PlanModifiers")
	if !field.IsValid() || field.Kind() != reflect.Slice {
		return nil
	}
	out := make([]any, field.Len())
	for i := range out {
		out[i] = field.Index(i).Interface()
	}
	return out
}

// actsOnChangeOnly reports whether m is one of the framework's
// UseStateForUnknown or RequiresReplace(If) modifiers, of any type.
func actsOnChangeOnly(m any) bool {
	t := reflect.TypeOf(m)
	if t == nil {
		return false
	}
	pkg := t.PkgPath()
	return strings.HasPrefix(pkg, "github.com/hashicorp/terraform-plugin-framework/resource/schema/") &&
		strings.HasSuffix(pkg, "planmodifier") &&
		slices.Contains([]string{"useStateForUnknownModifier", "requiresReplaceIfModifier"}, t.Name())
}

// hasDefault reports whether the attribute has a default, of whatever
// kind: every attribute type that can have one keeps it in a Default
// field.
func hasDefault(a schema.Attribute) bool {
	field := reflect.ValueOf(a).FieldByName("Default")
	return field.IsValid() && field.Kind() == reflect.Interface && !field.IsNil()
}

// defaultValue returns the value of a top-level attribute's default, and
// whether it has one.
func defaultValue(ctx context.Context, p path.Path, a schema.Attribute) (tftypes.Value, bool, error) {
	if !hasDefault(a) {
		return tftypes.Value{}, false, nil
	}
	switch a := a.(type) {
	case schema.StringAttribute:
		resp := defaults.StringResponse{}
		a.Default.DefaultString(ctx, defaults.StringRequest{Path: p}, &resp)
		return toTerraform(ctx, p, resp.PlanValue, resp.Diagnostics.HasError())
	case schema.BoolAttribute:
		resp := defaults.BoolResponse{}
		a.Default.DefaultBool(ctx, defaults.BoolRequest{Path: p}, &resp)
		return toTerraform(ctx, p, resp.PlanValue, resp.Diagnostics.HasError())
	case schema.Int64Attribute:
		resp := defaults.Int64Response{}
		a.Default.DefaultInt64(ctx, defaults.Int64Request{Path: p}, &resp)
		return toTerraform(ctx, p, resp.PlanValue, resp.Diagnostics.HasError())
	case schema.Float64Attribute:
		resp := defaults.Float64Response{}
		a.Default.DefaultFloat64(ctx, defaults.Float64Request{Path: p}, &resp)
		return toTerraform(ctx, p, resp.PlanValue, resp.Diagnostics.HasError())
	}
	return tftypes.Value{}, false, fmt.Errorf("%s has a default of a kind not checked here", p)
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
