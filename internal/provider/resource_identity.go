package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/importid"
)

// A resource's identity names the object it manages in the host, as
// `import { identity = {...} }` blocks give it: its id, split into the
// attributes the id is made of. Create, Update, Read and ImportState set
// it from the id, which a change of any of those attributes replaces, so an
// identity never changes for a resource.

var (
	_ resource.ResourceWithIdentity = (*federationClusterResource)(nil)
	_ resource.ResourceWithIdentity = (*federatedTypeResource)(nil)
	_ resource.ResourceWithIdentity = (*federatedObjectResource)(nil)
	_ resource.ResourceWithIdentity = (*replicaSchedulingPreferenceResource)(nil)
	_ resource.ResourceWithIdentity = (*federatedApplicationResource)(nil)
)

// idParts is how a resource's id is made of its identity's attributes
// (importid.Format), with each attribute's description.
type idParts struct {
	importid.Format
	descriptions map[string]string
}

var (
	clusterIdentity = idParts{Format: importid.Format{Attributes: []string{"name"}, Example: "berlin"},
		descriptions: map[string]string{"name": "Name of the cluster in the federation, as `name`."}}
	typeIdentity = idParts{Format: importid.Format{Attributes: []string{"name"}, Example: "deployments.apps"},
		descriptions: map[string]string{"name": "Name of the FederatedTypeConfig, `<plural>.<group>` or `<plural>` for the core group, as `name`."}}
	objectIdentity = idParts{Format: importid.Format{Attributes: []string{"type", "namespace", "name"}, Optional: "namespace", Example: "deployments.apps/web/web"},
		descriptions: map[string]string{
			"type":      "Name of the federated type, as `type`.",
			"namespace": "Namespace of the object; left out for an object of a cluster-scoped type.",
			"name":      "Name of the object, as in the template's `metadata.name`.",
		}}
	applicationIdentity = idParts{Format: importid.Format{Attributes: []string{"name"}, Example: "shop"},
		descriptions: map[string]string{"name": "Name of the application, as `name`."}}
	preferenceIdentity = idParts{Format: importid.Format{Attributes: []string{"namespace", "name"}, Example: "shop/web"},
		descriptions: map[string]string{"namespace": "Namespace of the preference, as `namespace`.", "name": "Name of the preference, as `name`."}}
)

// schema is the identity schema.
func (p idParts) schema() identityschema.Schema {
	attrs := make(map[string]identityschema.Attribute, len(p.Attributes))
	for _, name := range p.Attributes {
		attrs[name] = identityschema.StringAttribute{
			RequiredForImport: name != p.Optional,
			OptionalForImport: name == p.Optional,
			Description:       p.descriptions[name],
		}
	}
	return identityschema.Schema{Attributes: attrs}
}

// set sets identity to the attributes of id. An id that does not split
// (an object Terraform holds no id for yet) leaves identity as it is.
func (p idParts) set(ctx context.Context, identity *tfsdk.ResourceIdentity, id types.String, diags *diag.Diagnostics) {
	if identity == nil || id.IsNull() || id.IsUnknown() {
		return
	}
	values, err := p.Split(id.ValueString())
	if err != nil {
		return
	}
	// Every attribute is a string: the value is built whole, which a
	// refresh of many objects does far faster than attribute by attribute.
	typ := tftypes.Object{AttributeTypes: make(map[string]tftypes.Type, len(p.Attributes))}
	attrs := make(map[string]tftypes.Value, len(p.Attributes))
	for _, name := range p.Attributes {
		typ.AttributeTypes[name] = tftypes.String
		attrs[name] = tftypes.NewValue(tftypes.String, nil)
		if value, ok := values[name]; ok {
			attrs[name] = tftypes.NewValue(tftypes.String, value)
		}
	}
	if !typ.Equal(identity.Schema.Type().TerraformType(ctx)) {
		diags.AddError("Cannot set the resource's identity",
			"The identity's attributes are not its schema's. This is a bug in the provider; please report it.")
		return
	}
	identity.Raw = tftypes.NewValue(typ, attrs)
}

// importID is the id an import names: the import's ID, or the one its
// identity makes; false, with the error in diags, when the identity makes
// none.
func (p idParts) importID(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) (string, bool) {
	if req.ID != "" || req.Identity == nil {
		return req.ID, true
	}
	values := map[string]string{}
	for _, name := range p.Attributes {
		var v types.String
		if diags.Append(req.Identity.GetAttribute(ctx, path.Root(name), &v)...); diags.HasError() {
			return "", false
		}
		values[name] = v.ValueString()
	}
	id, err := p.Join(values)
	if err != nil {
		diags.AddError("Invalid import identity", err.Error())
		return "", false
	}
	return id, true
}

func (r *federationClusterResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = clusterIdentity.schema()
}

func (r *federatedTypeResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = typeIdentity.schema()
}

func (r *federatedObjectResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = objectIdentity.schema()
}

func (r *replicaSchedulingPreferenceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = preferenceIdentity.schema()
}

func (r *federatedApplicationResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = applicationIdentity.schema()
}

// idOf is the id a state holds: null when the state is.
func idOf(ctx context.Context, state tfsdk.State, diags *diag.Diagnostics) types.String {
	var id types.String
	if !state.Raw.IsNull() {
		diags.Append(state.GetAttribute(ctx, path.Root("id"), &id)...)
	}
	return id
}
