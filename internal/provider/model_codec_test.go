package provider

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

func federatedObjectSchema(t *testing.T) resource.SchemaResponse {
	t.Helper()
	var resp resource.SchemaResponse
	NewFederatedObjectResource().Schema(context.Background(), resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	return resp
}

// objectState is a state of kubefed_federated_object with every attribute
// null but those given.
func objectState(t *testing.T, given map[string]tftypes.Value) tfsdk.State {
	t.Helper()
	s := federatedObjectSchema(t).Schema
	object := s.Type().TerraformType(context.Background()).(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, typ := range object.AttributeTypes {
		values[name] = tftypes.NewValue(typ, nil)
		if v, ok := given[name]; ok {
			values[name] = v
		}
	}
	return tfsdk.State{Schema: s, Raw: tftypes.NewValue(object, values)}
}

// The codec reads and writes what the framework's reflection does, for
// known, null and unknown values of every kind the model holds.
func TestModelCodec_agreesWithTheFramework(t *testing.T) {
	ctx := context.Background()
	renderedT := tfvalue.RenderedType.TerraformType(ctx)
	strings3 := tftypes.Map{ElementType: tftypes.String}
	cases := map[string]map[string]tftypes.Value{
		"all null": {},
		"a created object": {
			"id":              tftypes.NewValue(tftypes.String, "configmaps/shop/app"),
			"type":            tftypes.NewValue(tftypes.String, "configmaps"),
			"template":        tftypes.NewValue(tftypes.String, `{"apiVersion":"v1","kind":"ConfigMap"}`),
			"force_conflicts": tftypes.NewValue(tftypes.Bool, false),
			"rendered": tftypes.NewValue(renderedT, map[string]tftypes.Value{
				"manifest": tftypes.NewValue(tftypes.String, "{}"),
				"clusters": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{
					tftypes.NewValue(tftypes.String, "berlin"), tftypes.NewValue(tftypes.String, "new-york")}),
				"differences": tftypes.NewValue(strings3, map[string]tftypes.Value{"new-york": tftypes.NewValue(tftypes.String, `{"a":1}`)}),
			}),
			"placed_clusters": tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, []tftypes.Value{
				tftypes.NewValue(tftypes.String, "berlin"), tftypes.NewValue(tftypes.String, "new-york"),
			}),
		},
		"a plan with parts known at apply": {
			"id":           tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
			"rendered":     tftypes.NewValue(renderedT, tftypes.UnknownValue),
			"rollout_plan": tftypes.NewValue(tftypes.List{ElementType: tftypes.List{ElementType: tftypes.String}}, tftypes.UnknownValue),
		},
	}
	for name, given := range cases {
		t.Run(name, func(t *testing.T) {
			state := objectState(t, given)
			var byFramework, byCodec federatedObjectModel
			if diags := state.Get(ctx, &byFramework); diags.HasError() {
				t.Fatal(diags)
			}
			var codec modelCodec[federatedObjectModel]
			if diags := codec.fromState(ctx, state, &byCodec); diags.HasError() {
				t.Fatal(diags)
			}
			if !reflect.DeepEqual(byCodec, byFramework) {
				t.Fatalf("read:\n codec     %+v\n framework %+v", byCodec, byFramework)
			}
			written := tfsdk.State{Schema: state.Schema}
			if diags := codec.toState(ctx, &written, &byCodec); diags.HasError() {
				t.Fatal(diags)
			}
			if !written.Raw.Equal(state.Raw) {
				t.Fatalf("written back:\n %s\nwant\n %s", written.Raw, state.Raw)
			}
		})
	}
}

func TestModelCodec_refusesAModelThatIsNotTheSchemas(t *testing.T) {
	type wrongType struct {
		ID types.Bool `tfsdk:"id"`
	}
	type unknownAttribute struct {
		Colour types.String `tfsdk:"colour"`
	}
	type missingFields struct {
		ID types.String `tfsdk:"id"`
	}
	ctx := context.Background()
	state := objectState(t, nil)
	for name, get := range map[string]func() string{
		"a field of another type": func() string {
			var c modelCodec[wrongType]
			return c.fromState(ctx, state, &wrongType{}).Errors()[0].Detail()
		},
		"a field the schema lacks": func() string {
			var c modelCodec[unknownAttribute]
			return c.fromState(ctx, state, &unknownAttribute{}).Errors()[0].Detail()
		},
		"attributes without a field": func() string {
			var c modelCodec[missingFields]
			return c.fromState(ctx, state, &missingFields{}).Errors()[0].Detail()
		},
	} {
		t.Run(name, func(t *testing.T) {
			if detail := get(); !strings.Contains(detail, "This is a bug in the provider") {
				t.Fatalf("detail %q", detail)
			}
		})
	}
}

// A null value, which the framework would refuse too, is an error.
func TestModelCodec_aNullValueIsAnError(t *testing.T) {
	ctx := context.Background()
	s := federatedObjectSchema(t).Schema
	null := tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
	var m federatedObjectModel
	var codec modelCodec[federatedObjectModel]
	if diags := codec.fromState(ctx, null, &m); !diags.HasError() {
		t.Fatal("a null state read into a model without an error")
	}
}

// A value that does not fit the schema is an error, not a panic.
func TestModelCodec_aValueOfTheWrongTypeIsAnError(t *testing.T) {
	ctx := context.Background()
	state := objectState(t, nil)
	var m federatedObjectModel
	var codec modelCodec[federatedObjectModel]
	if diags := codec.fromState(ctx, state, &m); diags.HasError() {
		t.Fatal(diags)
	}
	m.ClusterStatus = types.MapValueMust(types.BoolType, nil)
	if diags := codec.toState(ctx, &tfsdk.State{Schema: state.Schema}, &m); !diags.HasError() {
		t.Fatal("a map of bools where the schema has objects must be refused")
	}
}

// The cluster's model is the cluster's schema, and the codec reads and
// writes a registered cluster as the framework does.
func TestModelCodec_readsAndWritesAClusterAsTheFrameworkDoes(t *testing.T) {
	ctx := context.Background()
	var resp resource.SchemaResponse
	NewFederationClusterResource().Schema(ctx, resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	object := resp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, typ := range object.AttributeTypes {
		values[name] = tftypes.NewValue(typ, nil)
	}
	values["name"] = tftypes.NewValue(tftypes.String, "berlin")
	values["api_endpoint"] = tftypes.NewValue(tftypes.String, "https://berlin.example:6443")
	values["ready"] = tftypes.NewValue(tftypes.Bool, true)
	values["token_wo_version"] = tftypes.NewValue(tftypes.Number, 3)
	values["kubernetes_version"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	values["labels"] = tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{
		"region": tftypes.NewValue(tftypes.String, "eu"),
	})
	values["disabled_tls_validations"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{
		tftypes.NewValue(tftypes.String, "ValidityPeriod"),
	})
	state := tfsdk.State{Schema: resp.Schema, Raw: tftypes.NewValue(object, values)}

	var byFramework, byCodec federationClusterModel
	if diags := state.Get(ctx, &byFramework); diags.HasError() {
		t.Fatal(diags)
	}
	var codec modelCodec[federationClusterModel]
	if diags := codec.fromState(ctx, state, &byCodec); diags.HasError() {
		t.Fatal(diags)
	}
	if !reflect.DeepEqual(byCodec, byFramework) {
		t.Fatalf("read:\n codec     %+v\n framework %+v", byCodec, byFramework)
	}
	written := tfsdk.State{Schema: state.Schema}
	if diags := codec.toState(ctx, &written, &byCodec); diags.HasError() {
		t.Fatal(diags)
	}
	if !written.Raw.Equal(state.Raw) {
		t.Fatalf("written back:\n %s\nwant\n %s", written.Raw, state.Raw)
	}
}
