package provider

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func listElements(v validator.String) validator.List {
	return listvalidator.ValueStringsAre(v)
}

// fullyKnown reports whether v and everything inside it is known.
func fullyKnown(v attr.Value) bool {
	tv, err := v.ToTerraformValue(context.Background())
	return err == nil && tv.IsFullyKnown()
}

// diagError turns the errors among diags into one error, for conversions
// whose caller reports them at an attribute of its own.
func diagError(diags diag.Diagnostics) error {
	var msgs []string
	for _, d := range diags.Errors() {
		msgs = append(msgs, d.Summary()+": "+d.Detail())
	}
	return errors.New(strings.Join(msgs, "; "))
}

// optionalString is value read from the host for an optional attribute:
// an empty value stays as the prior state had it (null or ""), so reading
// back what was written never shows a diff.
func optionalString(prior types.String, value string) types.String {
	if value == "" && (prior.IsNull() || prior.ValueString() == "") {
		return prior
	}
	return types.StringValue(value)
}

// optionalStringMap is optionalString for maps: empty stays null or empty,
// as it was.
func optionalStringMap(ctx context.Context, prior types.Map, value map[string]string, diags *diag.Diagnostics) types.Map {
	if len(value) == 0 && (prior.IsNull() || len(prior.Elements()) == 0) {
		if prior.IsUnknown() {
			return types.MapNull(types.StringType)
		}
		return prior
	}
	out, d := types.MapValueFrom(ctx, types.StringType, value)
	diags.Append(d...)
	return out
}

// optionalStringList is optionalString for lists.
func optionalStringList(ctx context.Context, prior types.List, value []string, diags *diag.Diagnostics) types.List {
	if len(value) == 0 && (prior.IsNull() || len(prior.Elements()) == 0) {
		if prior.IsUnknown() {
			return types.ListNull(types.StringType)
		}
		return prior
	}
	out, d := types.ListValueFrom(ctx, types.StringType, value)
	diags.Append(d...)
	return out
}

func stringSet(values []string) types.Set {
	elems := make([]attr.Value, 0, len(values))
	for _, v := range values {
		elems = append(elems, types.StringValue(v))
	}
	return types.SetValueMust(types.StringType, elems)
}

func stringMap(values map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(values))
	for k, v := range values {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

func setStrings(v types.Set) []string {
	var out []string
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	_ = v.ElementsAs(context.Background(), &out, false)
	slices.Sort(out)
	return out
}

func mapStrings(v types.Map) map[string]string {
	out := map[string]string{}
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	_ = v.ElementsAs(context.Background(), &out, false)
	return out
}

func nullIfEmpty(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// objectAttributes is the attributes of an object value, none when it is
// not a known object.
func objectAttributes(v attr.Value) map[string]attr.Value {
	o, ok := v.(types.Object)
	if !ok || o.IsNull() || o.IsUnknown() {
		return nil
	}
	return o.Attributes()
}

// stringAttribute, boolAttribute and int64Attribute read one attribute of
// an object's attributes: the zero value when it is missing, null or of
// another type.
func stringAttribute(attrs map[string]attr.Value, name string) string {
	v, _ := attrs[name].(types.String)
	return v.ValueString()
}

func boolAttribute(attrs map[string]attr.Value, name string) bool {
	v, _ := attrs[name].(types.Bool)
	return v.ValueBool()
}

func int64Attribute(attrs map[string]attr.Value, name string) int64 {
	v, _ := attrs[name].(types.Int64)
	return v.ValueInt64()
}
