// Package fastpath answers three of Terraform's calls for chosen resource
// types without the framework's generic work, where that work provably
// changes nothing or is done here alike, and passes every other call to the
// framework:
//
//   - A plan whose proposed state is the prior state, as in a plan after a
//     refresh of a resource whose configuration did not change. Around the
//     resource's ModifyPlan the framework then only applies defaults the
//     state already holds and runs plan modifiers that act on a change
//     alone, walking the whole value once per attribute to do so. In a
//     large configuration such plans are most of the plan's CPU.
//   - A state upgrade at the schema's current version, which decodes the
//     stored JSON and encodes it again.
//   - A refresh of a resource with state and no private state of the
//     framework's own (an import's first read has some). Around the
//     resource's Read the framework keeps prior values that the new ones
//     mean the same as; this package does that only for the attributes
//     whose types can say so (keepEquivalent), not by walking every value.
//
// Check says which schemas this holds for. The answers are the framework's:
// the tests serve the same resource both ways and compare the values,
// private state and diagnostics they answer.
package fastpath

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Private is a resource's private state, as ModifyPlan reads and writes it.
type Private interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// PlanFunc is a resource's ModifyPlan with its private state passed apart:
// the request's and the response's Private fields are nil, and private is
// what the framework would have passed in both. It must not use the
// request's ProviderMeta.
type PlanFunc func(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, private Private)

// ReadFunc is a resource's Read with its private state passed apart, as
// PlanFunc is its ModifyPlan.
type ReadFunc func(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse, private Private)

// Resource is a resource type served here: one without a resource
// identity, of a provider that does not defer its resources.
type Resource struct {
	TypeName string
	Schema   schema.Schema
	// ModifyPlan and Read return the configured resource's plan and read,
	// or nil while the provider is not configured (the framework then
	// answers). Either may be left nil.
	ModifyPlan func() PlanFunc
	Read       func() ReadFunc
}

// served is a Resource with what its schema says, worked out once.
type served struct {
	Resource
	objectType tftypes.Type
	// defaults are the values of the attributes with a default, by name.
	defaults map[string]tftypes.Value
	// equivalence are the attributes whose types may keep a prior value
	// after a read, with their types.
	equivalence map[string]attr.Type
}

type server struct {
	tfprotov6.ProviderServer
	types map[string]*served
}

// Wrap returns next with the refreshes, no-change plans and
// current-version state upgrades of resources answered here. It fails if a
// resource's schema is one Check refuses.
func Wrap(ctx context.Context, next tfprotov6.ProviderServer, resources ...Resource) (tfprotov6.ProviderServer, error) {
	s := &server{ProviderServer: next, types: make(map[string]*served, len(resources))}
	for _, r := range resources {
		defaults, err := checkSchema(ctx, r.Schema)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.TypeName, err)
		}
		t := &served{Resource: r, objectType: r.Schema.Type().TerraformType(ctx), defaults: defaults, equivalence: map[string]attr.Type{}}
		for name, a := range r.Schema.Attributes {
			if mayKeepEquivalent(a.GetType()) {
				t.equivalence[name] = a.GetType()
			}
		}
		s.types[r.TypeName] = t
	}
	return s, nil
}

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	t := s.types[req.TypeName]
	if t == nil || req.RawState == nil || req.RawState.JSON == nil || req.Version != t.Schema.Version {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	value, err := req.RawState.UnmarshalWithOpts(t.objectType, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		// The framework says what is wrong with it.
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	state, err := tfprotov6.NewDynamicValue(t.objectType, value)
	if err != nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &state}, nil
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	t := s.types[req.TypeName]
	if t == nil {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	call, ok := t.noChangePlan(req)
	if !ok {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	return t.plan(ctx, call), nil
}

// planCall is a no-change plan, decoded.
type planCall struct {
	plan       PlanFunc
	config     tftypes.Value
	prior      tftypes.Value
	private    *privateState
	deferrable bool
}

// noChangePlan decodes req if it is a plan whose proposed state is its
// prior state, with every default the configuration leaves to the schema
// already in that state, and no private state of the framework's own.
func (t *served) noChangePlan(req *tfprotov6.PlanResourceChangeRequest) (planCall, bool) {
	var call planCall
	if t.ModifyPlan == nil || req.PriorState == nil || req.ProposedNewState == nil || req.Config == nil {
		return call, false
	}
	if call.plan = t.ModifyPlan(); call.plan == nil {
		return call, false
	}
	prior, err := req.PriorState.Unmarshal(t.objectType)
	if err != nil || prior.IsNull() || !prior.IsFullyKnown() {
		return call, false
	}
	proposed, err := req.ProposedNewState.Unmarshal(t.objectType)
	if err != nil || !proposed.Equal(prior) {
		return call, false
	}
	config, err := req.Config.Unmarshal(t.objectType)
	if err != nil || config.IsNull() || !t.defaultsHeld(config, prior) {
		return call, false
	}
	private, ok := parsePrivate(req.PriorPrivate)
	if !ok {
		return call, false
	}
	call.config, call.prior, call.private = config, prior, private
	call.deferrable = req.ClientCapabilities != nil && req.ClientCapabilities.DeferralAllowed
	return call, true
}

// defaultsHeld reports whether every attribute with a default that config
// leaves null holds that default in state already.
func (t *served) defaultsHeld(config, state tftypes.Value) bool {
	if len(t.defaults) == 0 {
		return true
	}
	var configAttrs, stateAttrs map[string]tftypes.Value
	if config.As(&configAttrs) != nil || state.As(&stateAttrs) != nil {
		return false
	}
	for name, value := range t.defaults {
		if configAttrs[name].IsNull() && !stateAttrs[name].Equal(value) {
			return false
		}
	}
	return true
}

// plan runs the resource's ModifyPlan on a no-change plan and encodes its
// answer as the framework does.
func (t *served) plan(ctx context.Context, call planCall) *tfprotov6.PlanResourceChangeResponse {
	req := resource.ModifyPlanRequest{
		ClientCapabilities: resource.ModifyPlanClientCapabilities{DeferralAllowed: call.deferrable},
		Config:             tfsdk.Config{Schema: t.Schema, Raw: call.config},
		Plan:               tfsdk.Plan{Schema: t.Schema, Raw: call.prior},
		State:              tfsdk.State{Schema: t.Schema, Raw: call.prior},
	}
	resp := resource.ModifyPlanResponse{Plan: req.Plan, RequiresReplace: path.Paths{}}
	call.plan(ctx, req, &resp, call.private)

	out := &tfprotov6.PlanResourceChangeResponse{Diagnostics: diagnostics(ctx, resp.Diagnostics), Deferred: deferred(resp.Deferred)}
	out.PlannedState = t.encode(resp.Plan.Raw, &out.Diagnostics)
	var diags diag.Diagnostics
	out.RequiresReplace, diags = attributePaths(ctx, normalisedPaths(resp.RequiresReplace))
	out.Diagnostics = append(out.Diagnostics, diagnostics(ctx, diags)...)
	out.PlannedPrivate, diags = call.private.bytes()
	out.Diagnostics = append(out.Diagnostics, diagnostics(ctx, diags)...)
	return out
}

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	t := s.types[req.TypeName]
	if t == nil || t.Read == nil || req.CurrentState == nil {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	read := t.Read()
	if read == nil {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	state, err := req.CurrentState.Unmarshal(t.objectType)
	if err != nil || state.IsNull() {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	private, ok := parsePrivate(req.Private)
	if !ok {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	return t.read(ctx, read, req, state, private), nil
}

// read runs the resource's Read and encodes its answer as the framework
// does.
func (t *served) read(ctx context.Context, read ReadFunc, req *tfprotov6.ReadResourceRequest, state tftypes.Value,
	private *privateState) *tfprotov6.ReadResourceResponse {
	fwReq := resource.ReadRequest{State: tfsdk.State{Schema: t.Schema, Raw: state}}
	if req.ClientCapabilities != nil {
		fwReq.ClientCapabilities.DeferralAllowed = req.ClientCapabilities.DeferralAllowed
	}
	fwResp := resource.ReadResponse{State: tfsdk.State{Schema: t.Schema, Raw: state}}
	read(ctx, fwReq, &fwResp, private)
	diags := fwResp.Diagnostics
	newState := fwResp.State.Raw
	if !diags.HasError() {
		kept, more := t.keepEquivalent(ctx, state, newState)
		if diags.Append(more...); !diags.HasError() {
			newState = kept
		}
	}

	out := &tfprotov6.ReadResourceResponse{Diagnostics: diagnostics(ctx, diags), Deferred: deferred(fwResp.Deferred)}
	out.NewState = t.encode(newState, &out.Diagnostics)
	var privateDiags diag.Diagnostics
	out.Private, privateDiags = private.bytes()
	out.Diagnostics = append(out.Diagnostics, diagnostics(ctx, privateDiags)...)
	return out
}

// encode encodes a state or plan for the protocol, or says in diags why it
// cannot.
func (t *served) encode(value tftypes.Value, diags *[]*tfprotov6.Diagnostic) *tfprotov6.DynamicValue {
	encoded, err := tfprotov6.NewDynamicValue(t.objectType, value)
	if err != nil {
		*diags = append(*diags, errorDiagnostic("Unable to Convert State",
			"An unexpected error was encountered when converting the state to the protocol type: "+err.Error()))
		return nil
	}
	return &encoded
}

// deferred is d as the protocol says it.
func deferred(d *resource.Deferred) *tfprotov6.Deferred {
	if d == nil {
		return nil
	}
	return &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(d.Reason)}
}

// keepEquivalent returns the read's new state with the prior value of each
// attribute whose type finds it equal to the new one, as the framework
// does after a read.
func (t *served) keepEquivalent(ctx context.Context, prior, read tftypes.Value) (tftypes.Value, diag.Diagnostics) {
	if len(t.equivalence) == 0 || prior.IsNull() || read.IsNull() || !read.IsKnown() {
		return read, nil
	}
	var priorAttrs, readAttrs map[string]tftypes.Value
	if prior.As(&priorAttrs) != nil || read.As(&readAttrs) != nil {
		return read, nil
	}
	var diags diag.Diagnostics
	changed := false
	for name, typ := range t.equivalence {
		before, ds := typ.ValueFromTerraform(ctx, priorAttrs[name])
		if ds != nil {
			diags.AddError("Value Conversion Error", "the prior value of "+name+": "+ds.Error())
			return read, diags
		}
		after, ds := typ.ValueFromTerraform(ctx, readAttrs[name])
		if ds != nil {
			diags.AddError("Value Conversion Error", "the read value of "+name+": "+ds.Error())
			return read, diags
		}
		kept, more := keepEquivalent(ctx, before, after)
		if diags.Append(more...); diags.HasError() {
			return read, diags
		}
		if kept.Equal(after) {
			continue
		}
		value, err := kept.ToTerraformValue(ctx)
		if err != nil {
			diags.AddError("Value Conversion Error", "the kept value of "+name+": "+err.Error())
			return read, diags
		}
		readAttrs[name], changed = value, true
	}
	if !changed {
		return read, diags
	}
	return tftypes.NewValue(read.Type(), readAttrs), diags
}
