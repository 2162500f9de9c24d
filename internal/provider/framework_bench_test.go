package provider

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/fastpath"
)

// benchObjectState is the state of a ConfigMap placed on three clusters, as
// the bench leaves it.
const benchObjectState = `{
  "cluster_health": {
    "a": {"available_replicas": 0, "message": "no replica count", "ready": true, "ready_replicas": 0, "replicas": 0, "updated_replicas": 0},
    "b": {"available_replicas": 0, "message": "no replica count", "ready": true, "ready_replicas": 0, "replicas": 0, "updated_replicas": 0},
    "c": {"available_replicas": 0, "message": "no replica count", "ready": true, "ready_replicas": 0, "replicas": 0, "updated_replicas": 0}
  },
  "cluster_replicas": null,
  "cluster_status": {"a": {"message": "", "status": "OK"}, "b": {"message": "", "status": "OK"}, "c": {"message": "", "status": "OK"}},
  "deletion_policy": "Delete",
  "force_conflicts": false,
  "id": "configmaps/default/bench-0",
  "ignore_fields": null,
  "overrides": null,
  "placed_clusters": ["a", "b", "c"],
  "placement": {"cluster_selector": null, "clusters": ["a", "b", "c"]},
  "rendered": {
    "manifest": "{\"apiVersion\":\"v1\",\"data\":{\"index\":\"0\"},\"kind\":\"ConfigMap\",\"metadata\":{\"labels\":{\"kubefed.io/managed\":\"true\"},\"name\":\"bench-0\",\"namespace\":\"default\"}}",
    "clusters": ["a", "b", "c"],
    "differences": null
  },

  "retain_replicas": false,
  "rollout_plan": [["a", "b", "c"]],
  "rollout_strategy": null,
  "sensitive_template": null,
  "template": "\"apiVersion\": \"v1\"\n\"data\":\n  \"index\": \"0\"\n\"kind\": \"ConfigMap\"\n\"metadata\":\n  \"name\": \"bench-0\"\n  \"namespace\": \"default\"\n",
  "timeouts": null,
  "type": "configmaps",
  "wait": null
}`

// upgradedObject is raw, a federated object's state as the state file holds
// it, as server hands it to the other calls.
func upgradedObject(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer, raw []byte) *tfprotov6.DynamicValue {
	tb.Helper()
	return upgraded(ctx, tb, server, "kubefed_federated_object", raw)
}

// upgraded is raw, the state of a resource of typeName as the state file
// holds it, as server hands it to the other calls.
func upgraded(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer, typeName string, raw []byte) *tfprotov6.DynamicValue {
	tb.Helper()
	resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
		TypeName: typeName, Version: schemaVersion(ctx, tb, server, typeName), RawState: &tfprotov6.RawState{JSON: raw}})
	if err != nil || len(resp.Diagnostics) > 0 {
		tb.Fatalf("upgrade: %v %+v", err, resp.Diagnostics)
	}
	return resp.UpgradedState
}

// schemaVersion is the version of typeName's schema, which the state of
// this build is written in.
func schemaVersion(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer, typeName string) int64 {
	tb.Helper()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || schemas.ResourceSchemas[typeName] == nil {
		tb.Fatalf("the schema of %s: %v", typeName, err)
	}
	return schemas.ResourceSchemas[typeName].Version
}

// benchObjectValues are benchObjectState and the configuration that gives
// it, as server takes them.
func benchObjectValues(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer) (state, config *tfprotov6.DynamicValue) {
	tb.Helper()
	var attrs map[string]any
	if err := json.Unmarshal([]byte(benchObjectState), &attrs); err != nil {
		tb.Fatal(err)
	}
	for _, computed := range []string{"cluster_health", "cluster_status", "id", "placed_clusters", "rendered", "rollout_plan"} {
		attrs[computed] = nil
	}
	rawConfig, err := json.Marshal(attrs)
	if err != nil {
		tb.Fatal(err)
	}
	return upgradedObject(ctx, tb, server, []byte(benchObjectState)), upgradedObject(ctx, tb, server, rawConfig)
}

// benchObjectIdentity is benchObjectState's identity, as Terraform sends it
// with each call once the state holds it.
func benchObjectIdentity(ctx context.Context, tb testing.TB) *tfprotov6.ResourceIdentityData {
	tb.Helper()
	return objectIdentityData(ctx, tb, map[string]string{"type": "configmaps", "namespace": "default", "name": "bench-0"})
}

// objectIdentityData is a federated object's identity on the protocol:
// values by attribute, null where absent.
func objectIdentityData(ctx context.Context, tb testing.TB, values map[string]string) *tfprotov6.ResourceIdentityData {
	tb.Helper()
	typ := objectIdentity.schema().Type().TerraformType(ctx)
	attrs := map[string]tftypes.Value{}
	for _, name := range objectIdentity.Attributes {
		attrs[name] = tftypes.NewValue(tftypes.String, nil)
		if v, ok := values[name]; ok {
			attrs[name] = tftypes.NewValue(tftypes.String, v)
		}
	}
	data, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		tb.Fatal(err)
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &data}
}

// BenchmarkFrameworkPerObject measures what terraform-plugin-framework
// costs one kubefed_federated_object in the calls a no-change plan makes
// for it, before any of the provider's own work: the provider is not
// configured, so ModifyPlan returns at once. A plan of many objects spends
// most of the provider's CPU here (decoding each value, and walking and
// setting every top-level attribute once per call), which is why its cost
// grows with the number of objects however few requests it makes.
func BenchmarkFrameworkPerObject(b *testing.B) {
	ctx := context.Background()
	server := providerserver.NewProtocol6(New("bench")())()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	state, configValue := benchObjectValues(ctx, b, server)

	b.Run("ValidateResourceConfig", func(b *testing.B) {
		for b.Loop() {
			resp, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{
				TypeName: "kubefed_federated_object", Config: configValue})
			if err != nil || len(resp.Diagnostics) > 0 {
				b.Fatalf("validate: %v %+v", err, resp.Diagnostics)
			}
		}
	})
	b.Run("UpgradeResourceState", func(b *testing.B) {
		for b.Loop() {
			upgradedObject(ctx, b, server, []byte(benchObjectState))
		}
	})
	// What a plan call costs on the protocol alone: decoding its three
	// values and encoding the planned one, which an implementation of the
	// resource on terraform-plugin-go, without the framework, would pay.
	objectType := schemas.ResourceSchemas["kubefed_federated_object"].ValueType()
	b.Run("PlanResourceChangeDecodeAndEncodeOnly", func(b *testing.B) {
		for b.Loop() {
			var planned tftypes.Value
			for _, v := range []*tfprotov6.DynamicValue{configValue, state, state} {
				if planned, err = v.Unmarshal(objectType); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := tfprotov6.NewDynamicValue(objectType, planned); err != nil {
				b.Fatal(err)
			}
		}
	})
	identity := benchObjectIdentity(ctx, b)
	b.Run("PlanResourceChange", func(b *testing.B) {
		for b.Loop() {
			resp, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: "kubefed_federated_object", PriorState: state, ProposedNewState: state, Config: configValue,
				PriorIdentity: identity})
			if err != nil || len(resp.Diagnostics) > 0 {
				b.Fatalf("plan: %v %+v", err, resp.Diagnostics)
			}
		}
	})
	// The same calls through the provider's own protocol server, which
	// answers them itself (fastpath), with a ModifyPlan that does nothing.
	fast := federatedObjectFastPath(&kubefedProvider{version: "bench"})
	fast.ModifyPlan = func() fastpath.PlanFunc {
		return func(context.Context, resource.ModifyPlanRequest, *resource.ModifyPlanResponse, fastpath.Private) {}
	}
	wrapped := fastpath.Wrap(ctx, server, fast)
	b.Run("PlanResourceChangeFastPath", func(b *testing.B) {
		for b.Loop() {
			resp, err := wrapped.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: "kubefed_federated_object", PriorState: state, ProposedNewState: state, Config: configValue,
				PriorIdentity: identity})
			if err != nil || len(resp.Diagnostics) > 0 || resp.PlannedState == nil || resp.PlannedIdentity == nil {
				b.Fatalf("plan: %v %+v", err, resp.Diagnostics)
			}
		}
	})
}

// readThroughModel is what kubefed_federated_object's read does besides
// reaching the clusters: the state decoded into the model, the identity
// set, the registered clusters noted in private state, the model encoded as
// the new state.
func readThroughModel(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse, private fastpath.Private) {
	var state federatedObjectModel
	resp.Diagnostics.Append(objectModels.fromState(ctx, req.State, &state)...)
	objectIdentity.set(ctx, resp.Identity, state.ID, &resp.Diagnostics)
	resp.Diagnostics.Append(registeredAtReadNote.Save(ctx, private, []string{"a", "b", "c"})...)
	resp.Diagnostics.Append(objectModels.toState(ctx, &resp.State, &state)...)
}

// modelReadObject is kubefed_federated_object with readThroughModel as its
// Read, so that the framework's work around a refresh can be measured
// without clusters.
type modelReadObject struct{ *federatedObjectResource }

func (r modelReadObject) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	readThroughModel(ctx, req, resp, resp.Private)
}

// modelReadProvider is the provider serving modelReadObject.
type modelReadProvider struct{ *kubefedProvider }

func (p modelReadProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return modelReadObject{&federatedObjectResource{}} }}
}

// BenchmarkReadPerObject measures what a refresh of one
// kubefed_federated_object costs besides reaching the clusters: through the
// framework, which walks the whole new state after Read to keep prior values
// that mean the same (semantic equality) and to null write-only values, and
// on the fast path, which compares only the attributes whose types can.
func BenchmarkReadPerObject(b *testing.B) {
	ctx := context.Background()
	server := providerserver.NewProtocol6(modelReadProvider{&kubefedProvider{version: "bench"}})()
	state, _ := benchObjectValues(ctx, b, server)
	identity := benchObjectIdentity(ctx, b)
	read := func(b *testing.B, s tfprotov6.ProviderServer) {
		for b.Loop() {
			resp, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "kubefed_federated_object", CurrentState: state,
				CurrentIdentity: identity})
			if err != nil || len(resp.Diagnostics) > 0 || resp.NewState == nil || resp.NewIdentity == nil {
				b.Fatalf("read: %v %+v", err, resp.Diagnostics)
			}
		}
	}
	b.Run("Framework", func(b *testing.B) { read(b, server) })
	// What a refresh costs on the protocol alone: decoding the state, the
	// read, encoding the new state, without keeping any prior value.
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	objectType := schemas.ResourceSchemas["kubefed_federated_object"].ValueType()
	objectSchema := schemaOf(ctx, NewFederatedObjectResource())
	b.Run("DecodeReadAndEncodeOnly", func(b *testing.B) {
		for b.Loop() {
			raw, err := state.Unmarshal(objectType)
			if err != nil {
				b.Fatal(err)
			}
			resp := resource.ReadResponse{State: tfsdk.State{Schema: objectSchema, Raw: raw}}
			readThroughModel(ctx, resource.ReadRequest{State: resp.State}, &resp, notesInMemory{})
			if _, err := tfprotov6.NewDynamicValue(objectType, resp.State.Raw); err != nil || resp.Diagnostics.HasError() {
				b.Fatal(err, resp.Diagnostics)
			}
		}
	})

	fast := federatedObjectFastPath(&kubefedProvider{version: "bench"})
	fast.Read = func() fastpath.ReadFunc { return readThroughModel }
	wrapped := fastpath.Wrap(ctx, server, fast)
	b.Run("FastPath", func(b *testing.B) { read(b, wrapped) })
}

// notesInMemory is private state held in a map.
type notesInMemory map[string][]byte

func (p notesInMemory) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return p[key], nil
}

func (p notesInMemory) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	p[key] = value
	return nil
}

func schemaOf(ctx context.Context, r resource.Resource) schema.Schema {
	var resp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &resp)
	return resp.Schema
}
