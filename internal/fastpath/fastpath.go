// Package fastpath answers two of Terraform's calls for chosen resource
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
//   - A refresh of a resource with state and no private state of the
//     framework's own (an import's first read has some). Around the
//     resource's Read the framework walks the whole new state to keep prior
//     values that the new ones mean the same as (semantic equality), and
//     again to null write-only values; this package keeps equivalent values
//     only for the attributes whose types can say so (keepEquivalent), and
//     serves no resource with write-only attributes.
//
// Both pay. On a shared two-core machine under a load of about 5, the calls
// of one kubefed_federated_object's no-change plan cost 5.4–7.2 ms through
// the framework and 0.37–0.46 ms here (go test -bench FrameworkPerObject
// ./internal/provider; 3.4 and 0.21 ms on a quiet machine); its refresh,
// besides reaching the clusters, 2.7–3.2 ms through the framework and
// 0.47–0.55 ms here, of which 0.34–0.37 ms is decoding the state, the
// resource's read and encoding the new state (go test -bench ReadPerObject
// ./internal/provider). A state upgrade is left to the framework: answering
// it here saved about 0.17 ms per object.
//
// Check says which resources this holds for. It refuses anything the
// package does not answer exactly as the framework would; Wrap then leaves
// the resource to the framework and logs why. A resource identity is
// carried as the framework carries it (identity.go). Calls that carry what
// the package does not (a client that accepts deferred answers) go to the
// framework too, and so does a call whose answer the framework would word
// itself (a resource that asks for a private-state key of the framework's,
// say). The tests serve the same resources both ways and compare every
// field of the answers.
package fastpath

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Private is a resource's private state, as ModifyPlan reads and writes it.
type Private interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// PlanFunc is a resource's ModifyPlan with its private state passed apart:
// the request's and the response's Private fields are nil, and private is
// what the framework would have passed in both.
type PlanFunc func(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, private Private)

// ReadFunc is a resource's Read with its private state passed apart, as
// PlanFunc is its ModifyPlan.
type ReadFunc func(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse, private Private)

// Resource is a resource type to serve here.
type Resource struct {
	TypeName string
	// Resource is the resource as the framework serves it, which Check
	// looks at.
	Resource resource.Resource
	// ModifyPlan and Read return the configured resource's ModifyPlan and
	// Read, or nil while the provider is not configured (the framework
	// then answers). Either may be left nil.
	ModifyPlan func() PlanFunc
	Read       func() ReadFunc
}

// served is a Resource with what its schema says, worked out once.
type served struct {
	Resource
	schema     schema.Schema
	objectType tftypes.Type
	// defaults are the values of the attributes with a default, by name.
	defaults map[string]tftypes.Value
	// equivalence are the attributes whose types may keep a prior value
	// after a read, with their types.
	equivalence map[string]attr.Type
	identity    identity
}

type server struct {
	tfprotov6.ProviderServer
	types map[string]*served
	// refused says why each resource left to the framework is.
	refused []error
	// mayDefer is set once Terraform configures the provider with deferred
	// answers allowed: the framework may then defer every resource, which
	// only it knows.
	mayDefer atomic.Bool
}

// Wrap returns next with the no-change plans and refreshes of the resources
// Check accepts answered here. A resource it refuses, or every resource when
// next has a provider meta schema, is left to next whole; why is logged as a
// warning whenever Terraform configures the provider.
func Wrap(ctx context.Context, next tfprotov6.ProviderServer, resources ...Resource) tfprotov6.ProviderServer {
	s := &server{ProviderServer: next, types: make(map[string]*served, len(resources))}
	schemas, err := next.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err == nil && hasError(schemas.Diagnostics) {
		err = fmt.Errorf("%s: %s", schemas.Diagnostics[0].Summary, schemas.Diagnostics[0].Detail)
	}
	identities, identitiesErr := identitySchemas(ctx, next)
	for _, r := range resources {
		t, refusal := serve(ctx, r, schemas, err)
		if refusal == nil {
			t.identity, refusal = identityOf(ctx, r.Resource, r.TypeName, identities, identitiesErr)
		}
		if refusal != nil {
			s.refused = append(s.refused, fmt.Errorf("%s is left to the framework: %w", r.TypeName, refusal))
			continue
		}
		s.types[r.TypeName] = t
	}
	return s
}

// serve works out what r's schema says, or why r is not served here: the
// framework's own description of the provider (schemas, or why it has
// none) must agree with it.
func serve(ctx context.Context, r Resource, schemas *tfprotov6.GetProviderSchemaResponse, schemasErr error) (*served, error) {
	switch {
	case schemasErr != nil:
		return nil, fmt.Errorf("the framework describes no schemas: %w", schemasErr)
	case schemas.ProviderMeta != nil:
		return nil, errors.New("the provider has a provider meta schema")
	case schemas.ResourceSchemas[r.TypeName] == nil:
		return nil, errors.New("the framework serves no resource of that name")
	}
	s, defaults, err := checkResource(ctx, r.Resource)
	if err != nil {
		return nil, err
	}
	t := &served{Resource: r, schema: s, objectType: schemas.ResourceSchemas[r.TypeName].ValueType(),
		defaults: defaults, equivalence: map[string]attr.Type{}}
	if !t.objectType.Equal(s.Type().TerraformType(ctx)) {
		return nil, errors.New("the framework's schema of it is not the resource's")
	}
	for name, a := range s.Attributes {
		if mayKeepEquivalent(a.GetType()) {
			t.equivalence[name] = a.GetType()
		}
	}
	return t, nil
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

func (s *server) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	for _, refusal := range s.refused {
		tflog.Warn(ctx, "no fast path: "+refusal.Error())
	}
	if req.ClientCapabilities != nil && req.ClientCapabilities.DeferralAllowed {
		s.mayDefer.Store(true)
	}
	return s.ProviderServer.ConfigureProvider(ctx, req)
}

// answering returns the served resource of typeName, or nil when the call
// goes to the framework.
func (s *server) answering(typeName string, deferralAllowed bool) *served {
	if deferralAllowed || s.mayDefer.Load() {
		return nil
	}
	return s.types[typeName]
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	t := s.answering(req.TypeName, req.ClientCapabilities != nil && req.ClientCapabilities.DeferralAllowed)
	if t == nil {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	call, ok := t.noChangePlan(req)
	if !ok {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	if resp, err := t.plan(ctx, call); err == nil {
		return resp, nil
	}
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

// planCall is a no-change plan, decoded.
type planCall struct {
	plan    PlanFunc
	config  tftypes.Value
	prior   tftypes.Value
	private *privateState
	// identity is the prior identity, nil for a resource without one.
	identity *tfsdk.ResourceIdentity
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
	if call.identity, ok = t.identity.decode(req.PriorIdentity); !ok {
		return call, false
	}
	call.config, call.prior, call.private = config, prior, private
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
// answer as the framework does, or returns errNotAnswered when the
// framework would answer otherwise.
func (t *served) plan(ctx context.Context, call planCall) (*tfprotov6.PlanResourceChangeResponse, error) {
	req := resource.ModifyPlanRequest{
		Config:   tfsdk.Config{Schema: t.schema, Raw: call.config},
		Plan:     tfsdk.Plan{Schema: t.schema, Raw: call.prior},
		State:    tfsdk.State{Schema: t.schema, Raw: call.prior},
		Identity: copied(call.identity),
	}
	resp := resource.ModifyPlanResponse{Plan: req.Plan, RequiresReplace: path.Paths{}, Identity: copied(call.identity)}
	call.plan(ctx, req, &resp, call.private)

	out := &tfprotov6.PlanResourceChangeResponse{Deferred: deferred(resp.Deferred)}
	var err error
	if out.PlannedPrivate, err = call.private.bytes(); err != nil {
		return nil, err
	}
	if out.Diagnostics, err = diagnostics(ctx, resp.Diagnostics); err != nil {
		return nil, err
	}
	if out.RequiresReplace, err = attributePaths(ctx, normalisedPaths(resp.RequiresReplace)); err != nil {
		return nil, err
	}
	if out.PlannedState, err = t.encode(resp.Plan.Raw); err != nil {
		return nil, err
	}
	if out.PlannedIdentity, err = t.identity.plannedIdentity(call.identity, resp.Identity); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	t := s.answering(req.TypeName, req.ClientCapabilities != nil && req.ClientCapabilities.DeferralAllowed)
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
	current, ok := t.identity.decode(req.CurrentIdentity)
	if !ok {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	if resp, err := t.read(ctx, read, readCall{state: state, private: private, identity: current}); err == nil {
		return resp, nil
	}
	return s.ProviderServer.ReadResource(ctx, req)
}

// readCall is a refresh, decoded.
type readCall struct {
	state   tftypes.Value
	private *privateState
	// identity is the current identity, nil for a resource without one.
	identity *tfsdk.ResourceIdentity
}

// read runs the resource's Read and encodes its answer as the framework
// does, or returns errNotAnswered when the framework would answer
// otherwise.
func (t *served) read(ctx context.Context, read ReadFunc, call readCall) (*tfprotov6.ReadResourceResponse, error) {
	fwReq := resource.ReadRequest{State: tfsdk.State{Schema: t.schema, Raw: call.state}, Identity: copied(call.identity)}
	fwResp := resource.ReadResponse{State: tfsdk.State{Schema: t.schema, Raw: call.state}, Identity: copied(call.identity)}
	read(ctx, fwReq, &fwResp, call.private)
	diags := fwResp.Diagnostics
	newState := fwResp.State.Raw
	if !diags.HasError() {
		kept, more, err := t.keepEquivalent(ctx, call.state, newState)
		if err != nil {
			return nil, err
		}
		if diags.Append(more...); !diags.HasError() {
			newState = kept
		}
	}

	out := &tfprotov6.ReadResourceResponse{Deferred: deferred(fwResp.Deferred)}
	var err error
	if out.NewIdentity, err = t.identity.readIdentity(call.identity, fwResp.Identity, fwResp.Diagnostics); err != nil {
		return nil, err
	}
	if out.Private, err = call.private.bytes(); err != nil {
		return nil, err
	}
	if out.Diagnostics, err = diagnostics(ctx, diags); err != nil {
		return nil, err
	}
	if out.NewState, err = t.encode(newState); err != nil {
		return nil, err
	}
	return out, nil
}

// encode encodes a state or plan for the protocol.
func (t *served) encode(value tftypes.Value) (*tfprotov6.DynamicValue, error) {
	encoded, err := tfprotov6.NewDynamicValue(t.objectType, value)
	if err != nil {
		return nil, errNotAnswered
	}
	return &encoded, nil
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
// does after a read. The diagnostics are the types' own; an error means the
// framework would answer otherwise.
func (t *served) keepEquivalent(ctx context.Context, prior, read tftypes.Value) (tftypes.Value, diag.Diagnostics, error) {
	if len(t.equivalence) == 0 || prior.IsNull() || read.IsNull() || !read.IsKnown() {
		return read, nil, nil
	}
	var priorAttrs, readAttrs map[string]tftypes.Value
	if prior.As(&priorAttrs) != nil || read.As(&readAttrs) != nil {
		return read, nil, errNotAnswered
	}
	var diags diag.Diagnostics
	changed := false
	for name, typ := range t.equivalence {
		kept, ok, more, err := keepAttribute(ctx, typ, priorAttrs[name], readAttrs[name])
		if err != nil {
			return read, nil, err
		}
		if diags.Append(more...); diags.HasError() {
			return read, diags, nil
		}
		if ok {
			readAttrs[name], changed = kept, true
		}
	}
	if !changed {
		return read, diags, nil
	}
	return tftypes.NewValue(read.Type(), readAttrs), diags, nil
}

// keepAttribute returns an attribute's value after a read, and whether it
// is the prior value or holds parts of it.
func keepAttribute(ctx context.Context, typ attr.Type, prior, read tftypes.Value) (tftypes.Value, bool, diag.Diagnostics, error) {
	before, err := typ.ValueFromTerraform(ctx, prior)
	if err != nil {
		return read, false, nil, errNotAnswered
	}
	after, err := typ.ValueFromTerraform(ctx, read)
	if err != nil {
		return read, false, nil, errNotAnswered
	}
	kept, diags, err := keepEquivalent(ctx, before, after)
	if err != nil || diags.HasError() || kept.Equal(after) {
		return read, false, diags, err
	}
	value, err := kept.ToTerraformValue(ctx)
	if err != nil {
		return read, false, nil, errNotAnswered
	}
	return value, true, diags, nil
}
