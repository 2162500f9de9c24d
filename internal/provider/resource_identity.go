package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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

// idParts is how a resource's id is made of its identity's attributes: the
// attributes in the id's order, joined by "/"; optional, when set, is the
// one attribute an id may leave out (a cluster-scoped object's namespace).
type idParts struct {
	attributes   []string
	descriptions map[string]string
	optional     string
	// example is an id, for the messages.
	example string
}

var (
	clusterIdentity = idParts{attributes: []string{"name"}, example: "berlin",
		descriptions: map[string]string{"name": "Name of the cluster in the federation, as `name`."}}
	typeIdentity = idParts{attributes: []string{"name"}, example: "deployments.apps",
		descriptions: map[string]string{"name": "Name of the FederatedTypeConfig, `<plural>.<group>` or `<plural>` for the core group, as `name`."}}
	objectIdentity = idParts{attributes: []string{"type", "namespace", "name"}, optional: "namespace", example: "deployments.apps/web/web",
		descriptions: map[string]string{
			"type":      "Name of the federated type, as `type`.",
			"namespace": "Namespace of the object; left out for an object of a cluster-scoped type.",
			"name":      "Name of the object, as in the template's `metadata.name`.",
		}}
	applicationIdentity = idParts{attributes: []string{"name"}, example: "shop",
		descriptions: map[string]string{"name": "Name of the application, as `name`."}}
	preferenceIdentity = idParts{attributes: []string{"namespace", "name"}, example: "shop/web",
		descriptions: map[string]string{"namespace": "Namespace of the preference, as `namespace`.", "name": "Name of the preference, as `name`."}}
)

// schema is the identity schema.
func (p idParts) schema() identityschema.Schema {
	attrs := make(map[string]identityschema.Attribute, len(p.attributes))
	for _, name := range p.attributes {
		attrs[name] = identityschema.StringAttribute{
			RequiredForImport: name != p.optional,
			OptionalForImport: name == p.optional,
			Description:       p.descriptions[name],
		}
	}
	return identityschema.Schema{Attributes: attrs}
}

// split returns the identity's attributes in id, by name; an optional one
// that id leaves out is absent.
func (p idParts) split(id string) (map[string]string, error) {
	parts := strings.Split(id, "/")
	names := p.attributes
	if p.optional != "" && len(parts) == len(names)-1 {
		names = without(names, p.optional)
	}
	if len(parts) != len(names) || id == "" {
		return nil, fmt.Errorf("%q is not an id of the form %s, such as %s", id, p.form(), p.example)
	}
	out := make(map[string]string, len(names))
	for i, name := range names {
		if parts[i] == "" {
			return nil, fmt.Errorf("%q has an empty %s: write %s, such as %s", id, name, p.form(), p.example)
		}
		out[name] = parts[i]
	}
	return out, nil
}

// join returns the id the identity's attributes make; an empty optional
// attribute is left out.
func (p idParts) join(values map[string]string) (string, error) {
	parts := make([]string, 0, len(p.attributes))
	for _, name := range p.attributes {
		v := values[name]
		switch {
		case v == "" && name == p.optional:
			continue
		case v == "":
			return "", fmt.Errorf("the identity has no %s: set %s", name, strings.Join(p.required(), ", "))
		case strings.Contains(v, "/"):
			return "", fmt.Errorf("the identity's %s, %q, holds a \"/\", which no %s does", name, v, name)
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "/"), nil
}

func (p idParts) form() string {
	var alternatives []string
	full := "<" + strings.Join(p.attributes, ">/<") + ">"
	alternatives = append(alternatives, full)
	if p.optional != "" {
		alternatives = append(alternatives, "<"+strings.Join(without(p.attributes, p.optional), ">/<")+">")
	}
	return strings.Join(alternatives, " or ")
}

func (p idParts) required() []string { return without(p.attributes, p.optional) }

func without(names []string, name string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// set sets identity to the attributes of id. An id that does not split
// (an object Terraform holds no id for yet) leaves identity as it is.
func (p idParts) set(ctx context.Context, identity *tfsdk.ResourceIdentity, id types.String, diags *diag.Diagnostics) {
	if identity == nil || id.IsNull() || id.IsUnknown() {
		return
	}
	values, err := p.split(id.ValueString())
	if err != nil {
		return
	}
	// Every attribute is a string: the value is built whole, which a
	// refresh of many objects does far faster than attribute by attribute.
	typ := tftypes.Object{AttributeTypes: make(map[string]tftypes.Type, len(p.attributes))}
	attrs := make(map[string]tftypes.Value, len(p.attributes))
	for _, name := range p.attributes {
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
	for _, name := range p.attributes {
		var v types.String
		if diags.Append(req.Identity.GetAttribute(ctx, path.Root(name), &v)...); diags.HasError() {
			return "", false
		}
		values[name] = v.ValueString()
	}
	id, err := p.join(values)
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
