package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type diagnostics = diag.Diagnostics

func listElements(v validator.String) validator.List {
	return listvalidator.ValueStringsAre(v)
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

// planGetter and stateSetter let Create and Update share one body.
type planGetter interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

type stateSetter interface {
	Set(ctx context.Context, val any) diag.Diagnostics
}
