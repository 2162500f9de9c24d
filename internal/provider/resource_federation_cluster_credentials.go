package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A cluster's credentials may be given write-only (token_wo,
// client_key_wo, and join's token_wo and client_key_wo): only the
// configuration holds them, so apply reads them from there, and notes in
// private state that they were given so, for the refreshes that must keep
// them out of the state and the destroy that cannot have them.

// memberCredentials are the credentials the federation reaches a member
// with, as the configuration gives them or a join makes them.
type memberCredentials struct {
	token, clientKey                   string
	tokenWriteOnly, clientKeyWriteOnly bool
}

// givenCredentials are the credentials the configuration gives: token or
// token_wo, and client_key or client_key_wo.
func givenCredentials(ctx context.Context, plan *federationClusterModel, config tfsdk.Config, diags *diag.Diagnostics) memberCredentials {
	c := memberCredentials{token: plan.Token.ValueString(), clientKey: plan.ClientKey.ValueString()}
	if plan.Token.IsNull() {
		c.token, c.tokenWriteOnly = writeOnlyValue(ctx, config, path.Root("token_wo"), diags)
	}
	if plan.ClientKey.IsNull() {
		c.clientKey, c.clientKeyWriteOnly = writeOnlyValue(ctx, config, path.Root("client_key_wo"), diags)
	}
	return c
}

// unknown reports whether a write-only credential is given but not known
// yet, as in a plan whose configuration takes it from a resource created
// in the same run.
func (c memberCredentials) unknown() bool {
	return (c.tokenWriteOnly && c.token == "") || (c.clientKeyWriteOnly && c.clientKey == "")
}

// saveNotes notes which credentials are write-only, for the refreshes.
func (c memberCredentials) saveNotes(ctx context.Context, private privateData) diag.Diagnostics {
	diags := tokenWriteOnlyNote.Save(ctx, private, c.tokenWriteOnly)
	diags.Append(clientKeyWriteOnlyNote.Save(ctx, private, c.clientKeyWriteOnly)...)
	return diags
}

// writeOnlyValue is the value of the write-only attribute at p in config,
// and whether it is set.
func writeOnlyValue(ctx context.Context, config tfsdk.Config, p path.Path, diags *diag.Diagnostics) (string, bool) {
	var v types.String
	diags.Append(config.GetAttribute(ctx, p, &v)...)
	return v.ValueString(), !v.IsNull()
}

// joinWriteOnly are join's write-only credentials.
type joinWriteOnly struct {
	token, clientKey string
}

// joinWriteOnlyOf reads join's write-only credentials from config; none
// without join.
func joinWriteOnlyOf(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) joinWriteOnly {
	var join types.Object
	if diags.Append(config.GetAttribute(ctx, path.Root("join"), &join)...); join.IsNull() || join.IsUnknown() {
		return joinWriteOnly{}
	}
	token, _ := writeOnlyValue(ctx, config, path.Root("join").AtName("token_wo"), diags)
	clientKey, _ := writeOnlyValue(ctx, config, path.Root("join").AtName("client_key_wo"), diags)
	return joinWriteOnly{token: token, clientKey: clientKey}
}

// given reports whether join has a write-only credential.
func (wo joinWriteOnly) given() bool { return wo.token != "" || wo.clientKey != "" }

// useWriteOnly puts wo's credentials where the join connection reads them.
func (j *joinModel) useWriteOnly(wo joinWriteOnly) {
	if wo.token != "" {
		j.Token = types.StringValue(wo.token)
	}
	if wo.clientKey != "" {
		j.ClientKey = types.StringValue(wo.clientKey)
	}
}
