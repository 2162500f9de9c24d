package fastpath

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A resource with an identity is served here as the framework serves it:
// the call's identity, or a null one when Terraform sends none (a state
// written before the resource had one), goes to ModifyPlan and Read in both
// the request and the response; what the response holds afterwards is the
// planned or new identity. Where the framework would refuse that answer (an
// identity that changed, or none after a read) the call is left to it, so
// that it says so in its own words.

// identity is what a served resource's identity schema says; its zero
// value is a resource without one.
type identity struct {
	schema identityschema.Schema
	typ    tftypes.Type
}

// identityOf returns r's identity schema, which the framework's own answer
// (schemas, or why it has none) must agree with.
func identityOf(ctx context.Context, r resource.Resource, typeName string, schemas *tfprotov6.GetResourceIdentitySchemasResponse,
	schemasErr error) (identity, error) {
	withIdentity, ok := r.(resource.ResourceWithIdentity)
	if !ok {
		return identity{}, nil
	}
	var resp resource.IdentitySchemaResponse
	withIdentity.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &resp)
	switch {
	case resp.Diagnostics.HasError():
		return identity{}, errors.New("the resource's identity schema has errors")
	case schemasErr != nil:
		return identity{}, fmt.Errorf("the framework describes no identity schemas: %w", schemasErr)
	case schemas.IdentitySchemas[typeName] == nil:
		return identity{}, errors.New("the framework serves no identity schema for it")
	}
	id := identity{schema: resp.IdentitySchema, typ: resp.IdentitySchema.Type().TerraformType(ctx)}
	if !id.typ.Equal(schemas.IdentitySchemas[typeName].ValueType()) {
		return identity{}, errors.New("the framework's identity schema of it is not the resource's")
	}
	return id, nil
}

// identitySchemas asks next for its identity schemas; a failure is kept for
// the resources that have one.
func identitySchemas(ctx context.Context, next tfprotov6.ProviderServer) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	schemas, err := next.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err == nil && hasError(schemas.Diagnostics) {
		err = fmt.Errorf("%s: %s", schemas.Diagnostics[0].Summary, schemas.Diagnostics[0].Detail)
	}
	return schemas, err
}

// decode returns the identity a call carries, null when it carries none,
// or nil for a resource without one; false when the framework would answer
// the call otherwise (an identity it cannot decode, or one sent for a
// resource without identity).
func (id identity) decode(data *tfprotov6.ResourceIdentityData) (*tfsdk.ResourceIdentity, bool) {
	sent := data != nil && data.IdentityData != nil
	if id.typ == nil {
		return nil, !sent
	}
	if !sent {
		return &tfsdk.ResourceIdentity{Schema: id.schema, Raw: tftypes.NewValue(id.typ, nil)}, true
	}
	value, err := data.IdentityData.Unmarshal(id.typ)
	if err != nil {
		return nil, false
	}
	return &tfsdk.ResourceIdentity{Schema: id.schema, Raw: value}, true
}

// copied is a copy of v, which the resource may change without changing v.
func copied(v *tfsdk.ResourceIdentity) *tfsdk.ResourceIdentity {
	if v == nil {
		return nil
	}
	return &tfsdk.ResourceIdentity{Schema: v.Schema, Raw: v.Raw.Copy()}
}

// encode encodes an identity for the protocol.
func (id identity) encode(v *tfsdk.ResourceIdentity) (*tfprotov6.ResourceIdentityData, error) {
	if v == nil {
		return nil, nil
	}
	encoded, err := tfprotov6.NewDynamicValue(id.typ, v.Raw)
	if err != nil {
		return nil, errNotAnswered
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &encoded}, nil
}

// kept reports whether answer keeps the identity before, as the framework
// requires of a plan or a refresh of a resource whose identity never
// changes: an identity that was null may be set.
func kept(before, answer *tfsdk.ResourceIdentity) bool {
	return before == nil || answer == nil || before.Raw.IsFullyNull() || before.Raw.Equal(answer.Raw)
}

// readIdentity checks the identity a read answers with: it must keep the
// one before and, after a read without errors, be set.
func (id identity) readIdentity(before, answer *tfsdk.ResourceIdentity, diags diag.Diagnostics) (*tfprotov6.ResourceIdentityData, error) {
	if id.typ != nil && !diags.HasError() && (answer == nil || !kept(before, answer) || answer.Raw.IsFullyNull()) {
		return nil, errNotAnswered
	}
	return id.encode(answer)
}

// plannedIdentity checks the identity a plan answers with: it must keep
// the prior one.
func (id identity) plannedIdentity(prior, answer *tfsdk.ResourceIdentity) (*tfprotov6.ResourceIdentityData, error) {
	if !kept(prior, answer) {
		return nil, errNotAnswered
	}
	return id.encode(answer)
}
