package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// readCredentialAttributes are a registration's read credentials: an
// identity on the member that may only read what the federation manages
// there, kept in a Secret of their own for a read-only provider's plans.
func readCredentialAttributes() map[string]schema.Attribute {
	root := path.MatchRoot
	secret := "stored in the Secret `<name>-read-credentials` of the provider's `read_credentials_namespace`."
	wo := " Write-only: never in the plan or the state (Terraform 1.11 or OpenTofu 1.11, or later); change its version to write it again."
	return map[string]schema.Attribute{
		"read_token": schema.StringAttribute{Optional: true, Sensitive: true,
			Description: "Bearer token of a read-only identity on the member, which a provider with `read_only = true` plans with; " + secret,
			Validators:  []validator.String{nonEmptyCredential, stringvalidator.ConflictsWith(root("read_client_certificate"))}},
		"read_token_wo": schema.StringAttribute{Optional: true, Sensitive: true, WriteOnly: true,
			Description: "The same as `read_token`." + wo,
			Validators: []validator.String{nonEmptyCredential, stringvalidator.AlsoRequires(root("read_token_wo_version")),
				stringvalidator.ConflictsWith(root("read_token"), root("read_client_certificate"))}},
		"read_token_wo_version": schema.Int64Attribute{Optional: true,
			Description: "Any number, required with `read_token_wo`: changing it writes `read_token_wo` again.",
			Validators:  []validator.Int64{int64validator.AlsoRequires(root("read_token_wo"))}},
		"read_client_certificate": schema.StringAttribute{Optional: true, Sensitive: true,
			Description: "PEM client certificate of a read-only identity on the member, with `read_client_key`; " + secret,
			Validators:  []validator.String{pemCertificateValidator}},
		"read_client_key": schema.StringAttribute{Optional: true, Sensitive: true,
			Description: "PEM private key of `read_client_certificate`.",
			Validators:  []validator.String{nonEmptyCredential, stringvalidator.AlsoRequires(root("read_client_certificate"))}},
		"read_client_key_wo": schema.StringAttribute{Optional: true, Sensitive: true, WriteOnly: true,
			Description: "The same as `read_client_key`." + wo,
			Validators: []validator.String{nonEmptyCredential, stringvalidator.ConflictsWith(root("read_client_key")),
				stringvalidator.AlsoRequires(root("read_client_certificate"))}},
		"read_client_key_wo_version": schema.Int64Attribute{Optional: true,
			Description: "Any number: changing it writes `read_client_key_wo` again.",
			Validators:  []validator.Int64{int64validator.AlsoRequires(root("read_client_key_wo"))}},
	}
}

// hasReadCredentials: whether read credentials were given (read_token_wo
// comes with its version for this), or made by a join.
func (m *federationClusterModel) hasReadCredentials() bool {
	return !m.ReadToken.IsNull() || !m.ReadTokenWOVersion.IsNull() || !m.ReadClientCertificate.IsNull() || !m.Join.IsNull()
}

// readOrJoined are the read credentials given, else the token of the
// join's read-only account.
func readOrJoined(given registry.Credentials, tokens member.Tokens) registry.Credentials {
	if given.Token != "" || len(given.ClientCertificate) > 0 {
		return given
	}
	return registry.Credentials{Token: tokens.Read}
}

// readCredentialsOf are the read credentials plan and config give.
func readCredentialsOf(ctx context.Context, plan *federationClusterModel, config tfsdk.Config, diags *diag.Diagnostics) registry.Credentials {
	c := registry.Credentials{Token: plan.ReadToken.ValueString(), ClientCertificate: []byte(plan.ReadClientCertificate.ValueString()),
		ClientKey: []byte(plan.ReadClientKey.ValueString())}
	if plan.ReadToken.IsNull() {
		c.Token, _ = writeOnlyValue(ctx, config, path.Root("read_token_wo"), diags)
	}
	if plan.ReadClientKey.IsNull() {
		key, _ := writeOnlyValue(ctx, config, path.Root("read_client_key_wo"), diags)
		c.ClientKey = []byte(key)
	}
	return c
}

// readKeyValidator checks that a read client certificate comes with its key.
type readKeyValidator struct{}

func (readKeyValidator) Description(context.Context) string {
	return "read_client_certificate with its key"
}

func (v readKeyValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (readKeyValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cert, key, keyWO types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("read_client_certificate"), &cert)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("read_client_key"), &key)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("read_client_key_wo"), &keyWO)...)
	if !cert.IsNull() && key.IsNull() && keyWO.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("read_client_certificate"), "Invalid read credentials",
			"read_client_certificate needs its private key: set read_client_key or read_client_key_wo.")
	}
}
