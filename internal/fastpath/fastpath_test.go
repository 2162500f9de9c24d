package fastpath_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-jsontypes/jsontypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/metaschema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/fastpath"
)

// The resource served both ways: a schema with what fastpath must get
// right (defaults, both plan modifiers, nested and computed values), and a
// ModifyPlan that reads and writes private state, changes the plan, and
// says things with attribute paths.

func thingSchema() schema.Schema {
	return schema.Schema{Attributes: map[string]schema.Attribute{
		"id":   schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"kind": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"mode": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("Delete")},
		"flag": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false)},
		"items": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name":  schema.StringAttribute{Required: true},
			"value": schema.StringAttribute{Optional: true, CustomType: jsontypes.NormalizedType{}},
		}}},
		"doc":  schema.StringAttribute{Optional: true, CustomType: jsontypes.NormalizedType{}},
		"docs": schema.MapAttribute{Optional: true, ElementType: jsontypes.NormalizedType{}},
		"tags": schema.SetAttribute{Optional: true, ElementType: jsontypes.NormalizedType{}},
		"health": schema.MapAttribute{Computed: true, ElementType: types.ObjectType{AttrTypes: map[string]attr.Type{
			"ready": types.BoolType, "count": types.Int64Type,
		}}},
		"note": schema.StringAttribute{Computed: true},
	}}
}

// modifyPlan is the resource's plan, written once for both servers.
func modifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, private fastpath.Private) {
	var kind types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("kind"), &kind)...)
	seen, diags := private.GetKey(ctx, "seen")
	resp.Diagnostics.Append(diags...)
	note := strings.ToUpper(kind.ValueString()) + " seen " + string(seen)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("note"), note)...)
	resp.Diagnostics.Append(private.SetKey(ctx, "planned", []byte(`{"kind":"`+kind.ValueString()+`"}`))...)
	if kind.ValueString() == "forget" {
		resp.Diagnostics.Append(private.SetKey(ctx, "seen", nil)...)
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("items").AtListIndex(1).AtName("name"), "Look here", "at the second item")
	resp.Diagnostics.AddAttributeWarning(path.Root("health").AtMapKey("east"), "And here", "at a map key")
	switch kind.ValueString() {
	case "replace":
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("kind"), path.Root("id"), path.Root("kind"))
	case "fail":
		resp.Diagnostics.AddAttributeError(path.Root("kind"), "Refused", "this kind is refused")
	case "restricted":
		resp.Diagnostics.Append(private.SetKey(ctx, ".framework", []byte(`1`))...)
	case "not json":
		resp.Diagnostics.Append(private.SetKey(ctx, "bad", []byte(`{`))...)
	case "defer":
		resp.Deferred = &resource.Deferred{Reason: resource.DeferredReasonAbsentPrereq}
	}
}

// read is the resource's read, written once for both servers. What it does
// depends on the kind in the state.
func read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse, private fastpath.Private) {
	var kind types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("kind"), &kind)...)
	seen, diags := private.GetKey(ctx, "seen")
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(private.SetKey(ctx, "read", []byte(`{"kind":"`+kind.ValueString()+`"}`))...)
	resp.Diagnostics.AddAttributeWarning(path.Root("items").AtListIndex(0).AtName("value"), "Read", "seen "+string(seen))
	set := func(p path.Path, v any) { resp.Diagnostics.Append(resp.State.SetAttribute(ctx, p, v)...) }
	switch kind.ValueString() {
	case "gone":
		resp.State.RemoveResource(ctx)
	case "defer":
		resp.Deferred = &resource.Deferred{Reason: resource.DeferredReasonProviderConfigUnknown}
	case "fail":
		resp.Diagnostics.AddAttributeError(path.Root("kind"), "Cannot read", "the read failed")
		set(path.Root("note"), "half read")
		set(path.Root("doc"), jsontypes.NewNormalizedValue(`{ "b": 2, "a": 1 }`))
	case "equivalent", "different":
		doc, value, first := `{ "b": 2, "a": 1 }`, `{ "x" : 1 }`, `[ 1, 2 ]`
		if kind.ValueString() == "different" {
			doc, value, first = `{"a":2}`, `{"x":2}`, `[2,1]`
		}
		set(path.Root("doc"), jsontypes.NewNormalizedValue(doc))
		set(path.Root("items").AtListIndex(0).AtName("value"), jsontypes.NewNormalizedValue(value))
		set(path.Root("docs").AtMapKey("k"), jsontypes.NewNormalizedValue(first))
		tags, d := types.SetValue(jsontypes.NormalizedType{}, []attr.Value{
			jsontypes.NewNormalizedValue(`{ "t": true }`), jsontypes.NewNormalizedValue(`"x"`), jsontypes.NewNormalizedValue(`"y"`)})
		resp.Diagnostics.Append(d...)
		set(path.Root("tags"), tags)
		set(path.Root("note"), "read "+kind.ValueString())
	case "twice":
		// Both mean the prior "x"; only the first may take it.
		tags, d := types.SetValue(jsontypes.NormalizedType{}, []attr.Value{
			jsontypes.NewNormalizedValue(` "x"`), jsontypes.NewNormalizedValue(`"x" `)})
		resp.Diagnostics.Append(d...)
		set(path.Root("tags"), tags)
	case "invalid":
		set(path.Root("doc"), jsontypes.NewNormalizedValue(`{not json`))
	}
}

// thing is the framework's side of the resource.
type thing struct{}

func (thing) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_thing"
}

func (thing) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = thingSchema()
}

func (thing) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	modifyPlan(ctx, req, resp, resp.Private)
}

func (thing) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {}
func (thing) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	read(ctx, req, resp, resp.Private)
}
func (thing) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (thing) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

type testProvider struct{}

func (testProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "test"
}
func (testProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (testProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (testProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }
func (testProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return thing{} }}
}

// counting is the framework's server, counting the calls that reach it.
type counting struct {
	tfprotov6.ProviderServer
	plans, reads int
}

func (c *counting) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	c.reads++
	return c.ProviderServer.ReadResource(ctx, req)
}

func (c *counting) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	c.plans++
	return c.ProviderServer.PlanResourceChange(ctx, req)
}

func thingFastPath(r resource.Resource) fastpath.Resource {
	return fastpath.Resource{
		TypeName: "test_thing", Resource: r,
		ModifyPlan: func() fastpath.PlanFunc { return modifyPlan },
		Read:       func() fastpath.ReadFunc { return read },
	}
}

// servers returns the framework's server and fastpath's in front of another
// one, whose calls are counted.
func servers(t *testing.T) (framework tfprotov6.ProviderServer, fast tfprotov6.ProviderServer, behind *counting) {
	t.Helper()
	ctx := context.Background()
	framework = providerserver.NewProtocol6(testProvider{})()
	behind = &counting{ProviderServer: providerserver.NewProtocol6(testProvider{})()}
	fast = fastpath.Wrap(ctx, behind, thingFastPath(thing{}))
	for _, s := range []tfprotov6.ProviderServer{framework, fast} {
		if _, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			t.Fatal(err)
		}
		resp, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: dynamic(t, tftypes.Object{}, map[string]tftypes.Value{})})
		if err != nil || len(resp.Diagnostics) > 0 {
			t.Fatal(err, resp.Diagnostics)
		}
	}
	return framework, fast, behind
}

var (
	itemType   = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String, "value": tftypes.String}}
	healthType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"ready": tftypes.Bool, "count": tftypes.Number}}
	thingType  = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"id": tftypes.String, "kind": tftypes.String, "mode": tftypes.String, "flag": tftypes.Bool,
		"items": tftypes.List{ElementType: itemType}, "health": tftypes.Map{ElementType: healthType}, "note": tftypes.String,
		"doc": tftypes.String, "docs": tftypes.Map{ElementType: tftypes.String}, "tags": tftypes.Set{ElementType: tftypes.String},
	}}
)

func dynamic(t *testing.T, typ tftypes.Type, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	v, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		t.Fatal(err)
	}
	return &v
}

// thingValue is a state or configuration of the resource: attrs over nulls.
func thingValue(attrs map[string]tftypes.Value) map[string]tftypes.Value {
	out := map[string]tftypes.Value{}
	for name, typ := range thingType.AttributeTypes {
		out[name] = tftypes.NewValue(typ, nil)
	}
	for name, v := range attrs {
		out[name] = v
	}
	return out
}

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// applied is the state of an applied thing of kind; config is its
// configuration, which leaves mode and flag to their defaults.
func applied(kind string) (state, config map[string]tftypes.Value) {
	state = thingValue(map[string]tftypes.Value{
		"id": str("t-1"), "kind": str(kind), "mode": str("Delete"), "flag": tftypes.NewValue(tftypes.Bool, false),
		"items": tftypes.NewValue(tftypes.List{ElementType: itemType}, []tftypes.Value{
			tftypes.NewValue(itemType, map[string]tftypes.Value{"name": str("a"), "value": str(`{"x":1}`)}),
			tftypes.NewValue(itemType, map[string]tftypes.Value{"name": str("b"), "value": tftypes.NewValue(tftypes.String, nil)}),
		}),
		"health": tftypes.NewValue(tftypes.Map{ElementType: healthType}, map[string]tftypes.Value{
			"east": tftypes.NewValue(healthType, map[string]tftypes.Value{"ready": tftypes.NewValue(tftypes.Bool, true), "count": tftypes.NewValue(tftypes.Number, 3)}),
		}),
		"note": str("old"),
		"doc":  str(`{"a":1,"b":2}`),
		"docs": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"k": str(`[1,2]`), "l": str(`{}`)}),
		"tags": tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, []tftypes.Value{str(`"x"`), str(`{"t":true}`)}),
	})
	config = thingValue(map[string]tftypes.Value{"kind": state["kind"], "items": state["items"],
		"doc": state["doc"], "docs": state["docs"], "tags": state["tags"]})
	return state, config
}

func privateOf(t *testing.T, entries map[string]string) []byte {
	t.Helper()
	if entries == nil {
		return nil
	}
	data := map[string][]byte{}
	for k, v := range entries {
		data[k] = []byte(v)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestPlanResourceChange_answersAsTheFrameworkDoes(t *testing.T) {
	type planCase struct {
		name string
		// state and config change the applied thing's; proposed, when set,
		// is the proposed state, else the state.
		kind          string
		state, config map[string]tftypes.Value
		proposed      map[string]tftypes.Value
		private       map[string]string
		viaFramework  bool
	}
	cases := []planCase{
		{name: "a no-change plan", kind: "plain"},
		{name: "a no-change plan that reads and drops private state", kind: "forget", private: map[string]string{"seen": `["a","b"]`, "other": `{"k":2}`}},
		{name: "a no-change plan that keeps private state it did not touch", kind: "plain", private: map[string]string{"seen": `[]`}},
		{name: "a plan that asks for a replacement, twice over", kind: "replace"},
		{name: "a plan that fails", kind: "fail"},
		{name: "a plan that writes a key of the framework's", kind: "restricted", viaFramework: true},
		{name: "a plan that writes a value that is not JSON", kind: "not json", viaFramework: true},
		{name: "a plan that defers the resource of its own accord", kind: "defer"},
		{name: "a mode set in the configuration", kind: "plain", config: map[string]tftypes.Value{"mode": str("Delete")}},
		{name: "a default the state does not hold", kind: "plain", state: map[string]tftypes.Value{"mode": str("Orphan")}, viaFramework: true},
		{name: "a configuration that changed", kind: "plain", proposed: map[string]tftypes.Value{"kind": str("other")}, viaFramework: true},
		{name: "private state of the framework's own", kind: "plain", private: map[string]string{".import_before_read": `true`}, viaFramework: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			state, config := applied(tc.kind)
			for k, v := range tc.state {
				state[k] = v
			}
			for k, v := range tc.config {
				config[k] = v
			}
			proposed := map[string]tftypes.Value{}
			for k, v := range state {
				proposed[k] = v
			}
			for k, v := range tc.proposed {
				proposed[k] = v
			}
			req := func() *tfprotov6.PlanResourceChangeRequest {
				return &tfprotov6.PlanResourceChangeRequest{
					TypeName:         "test_thing",
					PriorState:       dynamic(t, thingType, state),
					ProposedNewState: dynamic(t, thingType, proposed),
					Config:           dynamic(t, thingType, config),
					PriorPrivate:     privateOf(t, tc.private),
				}
			}
			framework, fast, behind := servers(t)
			want, err := framework.PlanResourceChange(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			got, err := fast.PlanResourceChange(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			if viaFramework := behind.plans == 1; viaFramework != tc.viaFramework {
				t.Errorf("answered by the framework: %v, want %v", viaFramework, tc.viaFramework)
			}
			compare(t, got, want)
		})
	}
}

// compare fails t unless got and want are the same in every field: the
// planned states by value, the rest as they are.
func compare(t *testing.T, got, want *tfprotov6.PlanResourceChangeResponse) {
	t.Helper()
	if !sameValue(t, got.PlannedState, want.PlannedState) {
		t.Errorf("planned state differs:\n got %s\nwant %s", decoded(t, got.PlannedState), decoded(t, want.PlannedState))
	}
	gotRest, wantRest := *got, *want
	gotRest.PlannedState, wantRest.PlannedState = nil, nil
	if !reflect.DeepEqual(gotRest, wantRest) {
		t.Errorf("the answers differ besides the planned state:\n got %+v %s\nwant %+v %s",
			gotRest, describe(gotRest.Diagnostics), wantRest, describe(wantRest.Diagnostics))
	}
	if len(want.Diagnostics) == 0 {
		t.Error("the case says nothing: its diagnostics compare nothing")
	}
}

// sameValue compares two encoded values by what they hold: the encoding of a
// map follows Go's map order, which differs from one call to the next.
func sameValue(t *testing.T, a, b *tfprotov6.DynamicValue) bool {
	t.Helper()
	if a == nil || b == nil {
		return a == b
	}
	va, err := a.Unmarshal(thingType)
	if err != nil {
		t.Fatal(err)
	}
	vb, err := b.Unmarshal(thingType)
	if err != nil {
		t.Fatal(err)
	}
	return va.Equal(vb)
}

func decoded(t *testing.T, v *tfprotov6.DynamicValue) string {
	t.Helper()
	if v == nil {
		return "<nil>"
	}
	value, err := v.Unmarshal(thingType)
	if err != nil {
		return err.Error()
	}
	return value.String()
}

func describe(diags []*tfprotov6.Diagnostic) string {
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.Severity.String()+" "+d.Summary+": "+d.Detail+" at "+d.Attribute.String())
	}
	return strings.Join(lines, "\n")
}

// shaped is thing with another schema.
type shaped struct {
	thing
	schema schema.Schema
}

func (r shaped) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema
}

// identified is thing with a resource identity, its id.
type identified struct{ thing }

func (identified) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"id": identityschema.StringAttribute{RequiredForImport: true},
	}}
}

func (identified) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	modifyPlanWithIdentity(ctx, req, resp, resp.Private)
}

func (identified) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	readWithIdentity(ctx, req, resp, resp.Private)
}

// identityAfter is what the identified thing of kind answers with as its
// identity: its id; another one ("rename"); none ("anonymous"); or, in a
// plan, what it was given.
func identityAfter(ctx context.Context, kind string, state tfsdk.State, identity *tfsdk.ResourceIdentity) diag.Diagnostics {
	var id types.String
	diags := state.GetAttribute(ctx, path.Root("id"), &id)
	switch kind {
	case "rename":
		diags.Append(identity.SetAttribute(ctx, path.Root("id"), "t-2")...)
	case "anonymous":
		identity.Raw = tftypes.NewValue(identity.Raw.Type(), nil)
	default:
		diags.Append(identity.SetAttribute(ctx, path.Root("id"), id)...)
	}
	return diags
}

// modifyPlanWithIdentity is modifyPlan; a thing of kind "rename" or
// "anonymous" changes its identity, any other keeps it.
func modifyPlanWithIdentity(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, private fastpath.Private) {
	modifyPlan(ctx, req, resp, private)
	var kind types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("kind"), &kind)...)
	if k := kind.ValueString(); k == "rename" || k == "anonymous" {
		resp.Diagnostics.Append(identityAfter(ctx, k, req.State, resp.Identity)...)
	}
}

// readWithIdentity is read, which then sets the identity identityAfter
// says.
func readWithIdentity(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse, private fastpath.Private) {
	read(ctx, req, resp, private)
	var kind types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("kind"), &kind)...)
	resp.Diagnostics.Append(identityAfter(ctx, kind.ValueString(), req.State, resp.Identity)...)
}

// badIdentity is thing with an identity schema that fails.
type badIdentity struct{ thing }

func (badIdentity) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.Diagnostics.AddError("No identity", "the identity schema failed")
}

// deferring is thing planned by the framework even when the provider
// defers every resource.
type deferring struct{ thing }

func (deferring) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_thing"
	resp.ResourceBehavior.ProviderDeferred.EnablePlanModification = true
}

// unplanned is thing without ModifyPlan.
type unplanned struct{}

func (unplanned) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	thing{}.Metadata(ctx, req, resp)
}
func (unplanned) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	thing{}.Schema(ctx, req, resp)
}
func (unplanned) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {}
func (unplanned) Read(context.Context, resource.ReadRequest, *resource.ReadResponse)       {}
func (unplanned) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (unplanned) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	withAttr := func(name string, a schema.Attribute) resource.Resource {
		s := thingSchema()
		s.Attributes[name] = a
		return shaped{schema: s}
	}
	cases := []struct {
		name     string
		resource resource.Resource
		refused  string
	}{
		{name: "defaults and the modifiers that act on a change", resource: thing{}},
		{name: "a resource identity", resource: identified{}},
		{name: "an identity schema with errors", resource: badIdentity{}, refused: "identity schema has errors"},
		{name: "planning while the provider defers", resource: deferring{}, refused: "declares a behaviour"},
		{name: "no ModifyPlan", resource: unplanned{}, refused: "has no ModifyPlan"},
		{name: "a block", resource: shaped{schema: schema.Schema{Blocks: map[string]schema.Block{"b": schema.SingleNestedBlock{}}}}, refused: "blocks"},
		{name: "a default inside a nested attribute", resource: withAttr("n", schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
			"m": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("x")},
		}}), refused: "n.m has a default"},
		{name: "a plan modifier that may act without a change", resource: withAttr("s", schema.StringAttribute{Optional: true,
			PlanModifiers: []planmodifier.String{upperCase{}}}), refused: `s has plan modifier "upper case"`},
		{name: "RequiresReplaceIf, which describes itself otherwise", resource: withAttr("s", schema.StringAttribute{Optional: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(
				func(context.Context, planmodifier.StringRequest, *stringplanmodifier.RequiresReplaceIfFuncResponse) {}, "when", "when")}}),
			refused: `s has plan modifier "when"`},
		{name: "a modifier of that kind deep inside", resource: withAttr("l", schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{"s": schema.StringAttribute{Optional: true, PlanModifiers: []planmodifier.String{upperCase{}}}},
		}}), refused: "l.s has plan modifier"},
		{name: "a plan modifier of another kind", resource: withAttr("b", schema.BoolAttribute{Optional: true,
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()}}), refused: "b has plan modifiers not checked here"},
		{name: "a write-only attribute", resource: withAttr("w", schema.StringAttribute{Optional: true, WriteOnly: true}), refused: "w is write-only"},
		{name: "a dynamic attribute", resource: withAttr("d", schema.DynamicAttribute{Optional: true})},
		{name: "a default of a list", resource: withAttr("l", schema.ListAttribute{Optional: true, Computed: true, ElementType: types.StringType,
			Default: listdefault.StaticValue(types.ListValueMust(types.StringType, nil))}), refused: "l has a default of a kind not checked here"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := fastpath.Check(ctx, tc.resource)
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Fatalf("got %v, want an error saying %q", err, tc.refused)
			}
		})
	}
}

// upperCase is a plan modifier that acts whether or not anything changed.
type upperCase struct{}

func (upperCase) Description(context.Context) string         { return "upper case" }
func (upperCase) MarkdownDescription(context.Context) string { return "upper case" }
func (upperCase) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	resp.PlanValue = types.StringValue(strings.ToUpper(req.PlanValue.ValueString()))
}

func TestReadResource_answersAsTheFrameworkDoes(t *testing.T) {
	cases := []struct {
		name         string
		kind         string
		private      map[string]string
		viaFramework bool
	}{
		{name: "a read that changes nothing", kind: "plain"},
		{name: "a read with private state to read", kind: "plain", private: map[string]string{"seen": `["a"]`}},
		{name: "a read of values written differently that mean the same", kind: "equivalent"},
		{name: "a read of values that mean something else", kind: "different", private: map[string]string{"read": `{}`}},
		{name: "a read of two set elements that mean the same prior one", kind: "twice"},
		{name: "a read of a value its type cannot compare", kind: "invalid"},
		{name: "a read that fails", kind: "fail"},
		{name: "a read of a resource that is gone", kind: "gone"},
		{name: "a read that defers the resource of its own accord", kind: "defer"},
		{name: "the read after an import", kind: "plain", private: map[string]string{".import_before_read": `true`}, viaFramework: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			state, _ := applied(tc.kind)
			req := func() *tfprotov6.ReadResourceRequest {
				return &tfprotov6.ReadResourceRequest{TypeName: "test_thing", CurrentState: dynamic(t, thingType, state),
					Private: privateOf(t, tc.private)}
			}
			framework, fast, behind := servers(t)
			want, err := framework.ReadResource(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			got, err := fast.ReadResource(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			if viaFramework := behind.reads == 1; viaFramework != tc.viaFramework {
				t.Errorf("answered by the framework: %v, want %v", viaFramework, tc.viaFramework)
			}
			if !sameValue(t, got.NewState, want.NewState) {
				t.Errorf("new state differs:\n got %s\nwant %s", decoded(t, got.NewState), decoded(t, want.NewState))
			}
			gotRest, wantRest := *got, *want
			gotRest.NewState, wantRest.NewState = nil, nil
			if !reflect.DeepEqual(gotRest, wantRest) {
				t.Errorf("the answers differ besides the new state:\n got %+v %s\nwant %+v %s",
					gotRest, describe(gotRest.Diagnostics), wantRest, describe(wantRest.Diagnostics))
			}
		})
	}
}

// metaProvider is testProvider with a provider meta schema.
type metaProvider struct{ testProvider }

func (metaProvider) MetaSchema(_ context.Context, _ provider.MetaSchemaRequest, resp *provider.MetaSchemaResponse) {
	resp.Schema = metaschema.Schema{Attributes: map[string]metaschema.Attribute{"module": metaschema.StringAttribute{Optional: true}}}
}

func TestWrap_leavesToTheFramework(t *testing.T) {
	withModifier := thingSchema()
	withModifier.Attributes["kind"] = schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{upperCase{}}}
	cases := []struct {
		name     string
		provider provider.Provider
		resource fastpath.Resource
		// deferral is whether Terraform configures the provider and plans
		// with deferred answers allowed.
		configureDeferral, planDeferral bool
		identity                        bool
		logged                          string
	}{
		{name: "a resource Check refuses", resource: thingFastPath(shaped{schema: withModifier}),
			logged: `test_thing is left to the framework: kind has plan modifier \"upper case\"`},
		{name: "a provider with a provider meta schema", provider: metaProvider{}, resource: thingFastPath(thing{}),
			logged: "test_thing is left to the framework: the provider has a provider meta schema"},
		{name: "a resource the framework does not serve", resource: fastpath.Resource{TypeName: "test_other", Resource: thing{},
			ModifyPlan: func() fastpath.PlanFunc { return modifyPlan }}, logged: "test_other is left to the framework"},
		{name: "a provider configured with deferred answers allowed", resource: thingFastPath(thing{}), configureDeferral: true},
		{name: "a call with deferred answers allowed", resource: thingFastPath(thing{}), planDeferral: true},
		{name: "a call with an identity for a resource without one", resource: thingFastPath(thing{}), identity: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			ctx := tflogtest.RootLogger(context.Background(), &logs)
			p := tc.provider
			if p == nil {
				p = testProvider{}
			}
			behind := &counting{ProviderServer: providerserver.NewProtocol6(p)()}
			fast := fastpath.Wrap(ctx, behind, tc.resource)
			configured, err := fast.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
				Config:             dynamic(t, tftypes.Object{}, map[string]tftypes.Value{}),
				ClientCapabilities: &tfprotov6.ConfigureProviderClientCapabilities{DeferralAllowed: tc.configureDeferral}})
			if err != nil || len(configured.Diagnostics) > 0 {
				t.Fatal(err, configured.Diagnostics)
			}
			if !strings.Contains(logs.String(), tc.logged) {
				t.Errorf("logged %s, want a line saying %q", logs.String(), tc.logged)
			}
			if tc.logged == "" && strings.Contains(logs.String(), "left to the framework") {
				t.Errorf("logged %s, want no refusal", logs.String())
			}

			state, config := applied("plain")
			var identity *tfprotov6.ResourceIdentityData
			if tc.identity {
				identity = &tfprotov6.ResourceIdentityData{IdentityData: dynamic(t, tftypes.Object{}, map[string]tftypes.Value{})}
			}
			_, err = fast.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "test_thing",
				PriorState: dynamic(t, thingType, state), ProposedNewState: dynamic(t, thingType, state), Config: dynamic(t, thingType, config),
				ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: tc.planDeferral}, PriorIdentity: identity})
			if err != nil {
				t.Fatal(err)
			}
			_, err = fast.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "test_thing", CurrentState: dynamic(t, thingType, state),
				ClientCapabilities: &tfprotov6.ReadResourceClientCapabilities{DeferralAllowed: tc.planDeferral}, CurrentIdentity: identity})
			if err != nil {
				t.Fatal(err)
			}
			if behind.plans != 1 || behind.reads != 1 {
				t.Errorf("the framework answered %d plans and %d reads, want 1 and 1", behind.plans, behind.reads)
			}
		})
	}
}

// identifiedProvider serves the identified thing.
type identifiedProvider struct{ testProvider }

func (identifiedProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return identified{} }}
}

var identityType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String}}

// identityData is an identity of the identified thing on the protocol, or
// none for "".
func identityData(t *testing.T, id string) *tfprotov6.ResourceIdentityData {
	t.Helper()
	if id == "" {
		return nil
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: dynamic(t, identityType, map[string]tftypes.Value{"id": str(id)})}
}

// identityIn is the id an answer's identity holds: "<none>" without one,
// "<null>" for a null one.
func identityIn(t *testing.T, data *tfprotov6.ResourceIdentityData) string {
	t.Helper()
	if data == nil || data.IdentityData == nil {
		return "<none>"
	}
	v, err := data.IdentityData.Unmarshal(identityType)
	if err != nil {
		t.Fatal(err)
	}
	if v.IsNull() {
		return "<null>"
	}
	var attrs map[string]tftypes.Value
	var id string
	if err := v.As(&attrs); err != nil || attrs["id"].As(&id) != nil {
		t.Fatalf("identity %v", v)
	}
	return id
}

// identifiedServers is servers with the identified thing.
func identifiedServers(t *testing.T) (framework tfprotov6.ProviderServer, fast tfprotov6.ProviderServer, behind *counting) {
	t.Helper()
	ctx := context.Background()
	framework = providerserver.NewProtocol6(identifiedProvider{})()
	behind = &counting{ProviderServer: providerserver.NewProtocol6(identifiedProvider{})()}
	fast = fastpath.Wrap(ctx, behind, fastpath.Resource{TypeName: "test_thing", Resource: identified{},
		ModifyPlan: func() fastpath.PlanFunc { return modifyPlanWithIdentity },
		Read:       func() fastpath.ReadFunc { return readWithIdentity }})
	for _, s := range []tfprotov6.ProviderServer{framework, fast} {
		resp, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: dynamic(t, tftypes.Object{}, map[string]tftypes.Value{})})
		if err != nil || len(resp.Diagnostics) > 0 {
			t.Fatal(err, resp.Diagnostics)
		}
	}
	return framework, fast, behind
}

// A no-change plan of a resource with an identity plans the prior
// identity, or a null one when Terraform sent none, whoever answers; one
// whose ModifyPlan changes a prior identity is the framework's to refuse.
func TestPlanResourceChange_carriesTheIdentityAsTheFrameworkDoes(t *testing.T) {
	cases := []struct {
		name, kind, prior, planned string
		viaFramework               bool
	}{
		{name: "the prior identity kept", kind: "plain", prior: "t-1", planned: "t-1"},
		{name: "no identity sent, as from a state written before the resource had one", kind: "plain", planned: "<null>"},
		{name: "an identity set where there was none", kind: "rename", planned: "t-2"},
		{name: "an identity the plan changes", kind: "rename", prior: "t-1", planned: "t-2", viaFramework: true},
		{name: "an identity the plan drops", kind: "anonymous", prior: "t-1", planned: "<null>", viaFramework: true},
		{name: "a plan that fails keeps the identity", kind: "fail", prior: "t-1", planned: "t-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			state, config := applied(tc.kind)
			req := func() *tfprotov6.PlanResourceChangeRequest {
				return &tfprotov6.PlanResourceChangeRequest{TypeName: "test_thing", PriorState: dynamic(t, thingType, state),
					ProposedNewState: dynamic(t, thingType, state), Config: dynamic(t, thingType, config),
					PriorIdentity: identityData(t, tc.prior)}
			}
			framework, fast, behind := identifiedServers(t)
			want, err := framework.PlanResourceChange(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			got, err := fast.PlanResourceChange(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			if viaFramework := behind.plans == 1; viaFramework != tc.viaFramework {
				t.Errorf("answered by the framework: %v, want %v", viaFramework, tc.viaFramework)
			}
			if planned := identityIn(t, want.PlannedIdentity); planned != tc.planned {
				t.Errorf("the framework planned identity %s, the case expects %s", planned, tc.planned)
			}
			compare(t, got, want)
		})
	}
}

// A refresh of a resource with an identity answers with the identity the
// read sets, whoever answers; the framework refuses a read that changes
// the identity or leaves none, in its own words.
func TestReadResource_carriesTheIdentityAsTheFrameworkDoes(t *testing.T) {
	cases := []struct {
		name, kind, current, read string
		viaFramework              bool
	}{
		{name: "the identity read again", kind: "plain", current: "t-1", read: "t-1"},
		{name: "no identity sent, as from a state written before the resource had one", kind: "plain", read: "t-1"},
		{name: "values that mean the same, and the identity", kind: "equivalent", current: "t-1", read: "t-1"},
		{name: "a read that fails keeps what it set", kind: "fail", current: "t-1", read: "t-1"},
		{name: "a resource that is gone", kind: "gone", current: "t-1", read: "t-1"},
		{name: "an identity set where there was none", kind: "rename", read: "t-2"},
		{name: "an identity the read changes", kind: "rename", current: "t-1", read: "t-2", viaFramework: true},
		{name: "a read that leaves no identity", kind: "anonymous", read: "<null>", viaFramework: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			state, _ := applied(tc.kind)
			req := func() *tfprotov6.ReadResourceRequest {
				return &tfprotov6.ReadResourceRequest{TypeName: "test_thing", CurrentState: dynamic(t, thingType, state),
					CurrentIdentity: identityData(t, tc.current)}
			}
			framework, fast, behind := identifiedServers(t)
			want, err := framework.ReadResource(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			got, err := fast.ReadResource(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			if viaFramework := behind.reads == 1; viaFramework != tc.viaFramework {
				t.Errorf("answered by the framework: %v, want %v", viaFramework, tc.viaFramework)
			}
			if read := identityIn(t, want.NewIdentity); read != tc.read {
				t.Errorf("the framework read identity %s, the case expects %s", read, tc.read)
			}
			if !sameValue(t, got.NewState, want.NewState) {
				t.Errorf("new state differs:\n got %s\nwant %s", decoded(t, got.NewState), decoded(t, want.NewState))
			}
			gotRest, wantRest := *got, *want
			gotRest.NewState, wantRest.NewState = nil, nil
			if !reflect.DeepEqual(gotRest, wantRest) {
				t.Errorf("the answers differ besides the new state:\n got %+v %s\nwant %+v %s",
					gotRest, describe(gotRest.Diagnostics), wantRest, describe(wantRest.Diagnostics))
			}
		})
	}
}
