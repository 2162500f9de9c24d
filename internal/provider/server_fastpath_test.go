package provider

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/fastpath"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// frameworkCalls is the framework's server, counting the calls for which the
// provider's protocol server went to it.
type frameworkCalls struct {
	tfprotov6.ProviderServer
	reads, plans int
}

func (f *frameworkCalls) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	f.reads++
	return f.ProviderServer.ReadResource(ctx, req)
}

func (f *frameworkCalls) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	f.plans++
	return f.ProviderServer.PlanResourceChange(ctx, req)
}

// configuredWithoutHost configures server's provider with an empty provider
// block and no host in the environment: the resources' own plans and reads
// then run without a request.
func configuredWithoutHost(ctx context.Context, t *testing.T, server tfprotov6.ProviderServer) {
	t.Helper()
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBERNETES_SERVICE_HOST"} {
		t.Setenv(env, "")
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	providerType := schemas.Provider.ValueType().(tftypes.Object)
	nulls := map[string]tftypes.Value{}
	for name, typ := range providerType.AttributeTypes {
		nulls[name] = tftypes.NewValue(typ, nil)
	}
	providerConfig, err := tfprotov6.NewDynamicValue(providerType, tftypes.NewValue(providerType, nulls))
	if err != nil {
		t.Fatal(err)
	}
	configured, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &providerConfig})
	if err != nil || len(configured.Diagnostics) > 0 {
		t.Fatalf("configure: %v %+v", err, configured.Diagnostics)
	}
}

// bothWays returns the provider's protocol server, in front of a framework
// server whose calls it counts, and the framework's server alone, both
// configured without a host.
func bothWays(ctx context.Context, t *testing.T) (server tfprotov6.ProviderServer, behind *frameworkCalls, framework tfprotov6.ProviderServer) {
	t.Helper()
	p := &kubefedProvider{version: "test", clients: kube.NewClientFactory()}
	behind = &frameworkCalls{ProviderServer: providerserver.NewProtocol6(p)()}
	server = withFastPath(p, behind)
	framework = providerserver.NewProtocol6(&kubefedProvider{version: "test", clients: kube.NewClientFactory()})()
	configuredWithoutHost(ctx, t, server)
	configuredWithoutHost(ctx, t, framework)
	return server, behind, framework
}

// The calls of a no-change plan of a federated object, as Terraform makes
// them, identity included, never reach the framework once the provider is
// configured: a change
// of the schema or of the resource that made fastpath.Check refuse it would
// otherwise show only as a slower plan. The provider here has no host, so
// the read fails and the plan waits for apply, without a request.
func TestServer_answersAFederatedObjectsNoChangePlanItself(t *testing.T) {
	ctx := context.Background()
	if err := fastpath.Check(ctx, NewFederatedObjectResource()); err != nil {
		t.Fatalf("the framework plans and refreshes every federated object, at many times the CPU: %v", err)
	}
	server, framework, _ := bothWays(ctx, t)
	state, config := benchObjectValues(ctx, t, server)
	identity := benchObjectIdentity(ctx, t)
	read, err := server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "kubefed_federated_object", CurrentState: state,
		CurrentIdentity: identity})
	if err != nil || read.NewState == nil {
		t.Fatalf("read: %v %+v", err, read)
	}
	planned, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: "kubefed_federated_object", PriorState: state, ProposedNewState: state, Config: config, PriorIdentity: identity})
	if err != nil || planned.PlannedState == nil || !reflect.DeepEqual(planned.PlannedIdentity, identity) {
		t.Fatalf("plan: %v %+v", err, planned)
	}
	if framework.reads+framework.plans > 0 {
		t.Errorf("the framework answered %d reads and %d plans, want none", framework.reads, framework.plans)
	}
}

// objectAttrs is benchObjectState as attributes, with edit applied.
func objectAttrs(t *testing.T, edit func(attrs map[string]any)) map[string]any {
	t.Helper()
	var attrs map[string]any
	if err := json.Unmarshal([]byte(benchObjectState), &attrs); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(attrs)
	}
	return attrs
}

// configOf is the configuration that gives the state attrs: its computed
// attributes null.
func configOf(attrs map[string]any) map[string]any {
	config := maps.Clone(attrs)
	for _, computed := range []string{"cluster_health", "cluster_status", "id", "placed_clusters", "rendered", "rollout_plan"} {
		config[computed] = nil
	}
	return config
}

func objectValue(ctx context.Context, t *testing.T, server tfprotov6.ProviderServer, attrs map[string]any) *tfprotov6.DynamicValue {
	t.Helper()
	raw, err := json.Marshal(attrs)
	if err != nil {
		t.Fatal(err)
	}
	return upgradedObject(ctx, t, server, raw)
}

func privateNotes(t *testing.T, notes map[string]string) []byte {
	t.Helper()
	if notes == nil {
		return nil
	}
	data := map[string][]byte{}
	for key, note := range notes {
		data[key] = []byte(note)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// nestedObject sets what the federated object's nested attributes can hold.
func nestedObject(attrs map[string]any) {
	attrs["placement"] = map[string]any{"clusters": nil, "cluster_selector": map[string]any{
		"match_labels":      map[string]any{"region": "eu"},
		"match_expressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"a", "b"}}},
	}}
	attrs["overrides"] = []any{map[string]any{"cluster": "a", "cluster_selector": nil, "patches": []any{
		map[string]any{"op": "replace", "path": "/data/index", "value": `"1"`},
		map[string]any{"op": nil, "path": "/metadata/labels", "value": `{ "x": "y" }`},
	}}}
	attrs["rollout_strategy"] = map[string]any{"stages": []any{[]any{"a"}, []any{"*"}}, "max_concurrent_clusters": 1,
		"max_failed_clusters": 0, "pause": "30s"}
	attrs["wait"] = map[string]any{"rollout": false, "fields": map[string]any{"status.phase": "Active"},
		"conditions": []any{map[string]any{"type": "Ready", "status": nil}}}
	attrs["timeouts"] = map[string]any{"create": "1m", "update": nil, "delete": "2m"}
	attrs["ignore_fields"] = []any{"metadata.annotations"}
	attrs["cluster_replicas"] = map[string]any{"a": 1, "b": 2}
	asDynamic(attrs, []string{"overrides"}, []string{"placement", "cluster_selector"})
}

// asDynamic rewrites the typed values at paths as the state of a dynamic
// attribute holds them, as the upgrade from version 0 does.
func asDynamic(attrs map[string]any, paths ...[]string) {
	raw, err := json.Marshal(attrs)
	if err == nil {
		raw, err = tfvalue.UpgradeToDynamic(raw, paths...)
	}
	if err == nil {
		clear(attrs)
		err = json.Unmarshal(raw, &attrs)
	}
	if err != nil {
		panic(err)
	}
}

// The provider's protocol server answers the plans of the real
// kubefed_federated_object as the framework does, field by field, whether
// it answers them itself or leaves them to the framework.
func TestServer_plansAFederatedObjectAsTheFrameworkDoes(t *testing.T) {
	cases := []struct {
		name string
		// state edits the bench object's state; config edits its
		// configuration after that; proposed, when set, edits the proposed
		// state, which is the state otherwise.
		state, config, proposed func(map[string]any)
		private                 map[string]string
		deferralAllowed         bool
		// identity is the prior identity's attributes: the state's unless
		// set, none with noIdentity.
		identity     map[string]string
		noIdentity   bool
		viaFramework bool
	}{
		{name: "a no-change plan"},
		{name: "with the clusters noted at read", private: map[string]string{"registered_at_read": `["a","b","c"]`}},
		{name: "with notes the plan does not read", private: map[string]string{"registered_at_read": `[]`, "other": `{"k":[1,2]}`}},
		{name: "with nested attributes, a custom template type and JSON values", state: nestedObject},
		{name: "with a template written as JSON", state: func(a map[string]any) {
			a["template"] = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bench-0","namespace":"default"}}`
		}},
		{name: "with a sensitive template", state: func(a map[string]any) { a["sensitive_template"], a["template"] = a["template"], nil }},
		{name: "with the defaults set in the configuration", config: func(a map[string]any) {
			a["deletion_policy"], a["force_conflicts"], a["retain_replicas"] = "Delete", false, false
		}},
		{name: "with values other than the defaults", state: func(a map[string]any) {
			a["deletion_policy"], a["force_conflicts"], a["retain_replicas"] = "Orphan", true, true
		}},
		{name: "with a default the state does not hold", state: func(a map[string]any) { a["deletion_policy"] = "Orphan" },
			config: func(a map[string]any) { a["deletion_policy"] = nil }, viaFramework: true},
		{name: "with a changed configuration", proposed: func(a map[string]any) {
			a["placement"] = map[string]any{"clusters": []any{"a"}, "cluster_selector": nil}
		}, viaFramework: true},
		{name: "with private state of the framework's own", private: map[string]string{".import_before_read": `true`}, viaFramework: true},
		{name: "with deferred answers allowed", deferralAllowed: true, viaFramework: true},
		{name: "without an identity, as in a state written before the resource had one", noIdentity: true},
		{name: "with an identity of a cluster-scoped object", state: func(a map[string]any) { a["id"], a["type"] = "namespaces/web", "namespaces" },
			identity: map[string]string{"type": "namespaces", "name": "web"}},
		{name: "with an identity that is not the state's", identity: map[string]string{"type": "configmaps", "namespace": "default", "name": "other"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			server, behind, framework := bothWays(ctx, t)
			state := objectAttrs(t, tc.state)
			config, proposed := configOf(state), maps.Clone(state)
			if tc.config != nil {
				tc.config(config)
			}
			if tc.proposed != nil {
				tc.proposed(proposed)
			}
			req := func() *tfprotov6.PlanResourceChangeRequest {
				r := &tfprotov6.PlanResourceChangeRequest{TypeName: "kubefed_federated_object",
					PriorState: objectValue(ctx, t, framework, state), ProposedNewState: objectValue(ctx, t, framework, proposed),
					Config: objectValue(ctx, t, framework, config), PriorPrivate: privateNotes(t, tc.private),
					ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: tc.deferralAllowed}}
				if !tc.noIdentity {
					r.PriorIdentity = benchObjectIdentity(ctx, t)
				}
				if tc.identity != nil {
					r.PriorIdentity = objectIdentityData(ctx, t, tc.identity)
				}
				return r
			}
			want, err := framework.PlanResourceChange(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			got, err := server.PlanResourceChange(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			if viaFramework := behind.plans > 0; viaFramework != tc.viaFramework {
				t.Errorf("answered by the framework: %v, want %v", viaFramework, tc.viaFramework)
			}
			samePlan(ctx, t, framework, got, want)
		})
	}
}

// samePlan fails t unless got and want are the same in every field: the
// planned states by value (their encoding follows Go's map order), the
// rest as they are.
func samePlan(ctx context.Context, t *testing.T, framework tfprotov6.ProviderServer, got, want *tfprotov6.PlanResourceChangeResponse) {
	t.Helper()
	if len(want.Diagnostics) == 0 {
		t.Error("the framework said nothing: the diagnostics compare nothing")
	}
	gotState, wantState := decodedObject(ctx, t, framework, got.PlannedState), decodedObject(ctx, t, framework, want.PlannedState)
	if !gotState.Equal(wantState) {
		t.Errorf("planned state:\n got %v\nwant %v", gotState, wantState)
	}
	gotRest, wantRest := *got, *want
	gotRest.PlannedState, wantRest.PlannedState = nil, nil
	if !reflect.DeepEqual(gotRest, wantRest) {
		t.Errorf("the answers differ besides the planned state:\n got %s\nwant %s", described(t, gotRest), described(t, wantRest))
	}
}

// The provider's protocol server answers the refreshes of the real
// kubefed_federated_object with the identity the framework answers with,
// whether Terraform sends one or not.
func TestServer_readsAFederatedObjectsIdentityAsTheFrameworkDoes(t *testing.T) {
	cases := []struct {
		name    string
		current *tfprotov6.ResourceIdentityData
	}{
		{name: "the identity in the state", current: benchObjectIdentity(context.Background(), t)},
		{name: "no identity, as in a state written before the resource had one"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			server, behind, framework := bothWays(ctx, t)
			req := func() *tfprotov6.ReadResourceRequest {
				return &tfprotov6.ReadResourceRequest{TypeName: "kubefed_federated_object",
					CurrentState: objectValue(ctx, t, framework, objectAttrs(t, nil)), CurrentIdentity: tc.current}
			}
			want, err := framework.ReadResource(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			got, err := server.ReadResource(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			if behind.reads > 0 {
				t.Error("the framework answered")
			}
			if wantIdentity := benchObjectIdentity(ctx, t); !reflect.DeepEqual(want.NewIdentity, wantIdentity) {
				t.Errorf("the framework read the identity %s, want %s", described(t, want.NewIdentity), described(t, wantIdentity))
			}
			if !reflect.DeepEqual(got.NewIdentity, want.NewIdentity) {
				t.Errorf("identity:\n got %s\nwant %s", described(t, got.NewIdentity), described(t, want.NewIdentity))
			}
		})
	}
}

// The provider's protocol server answers the refreshes of the real
// kubefed_federated_object as the framework does, field by field.
func TestServer_readsAFederatedObjectAsTheFrameworkDoes(t *testing.T) {
	cases := []struct {
		name         string
		state        func(map[string]any)
		private      map[string]string
		viaFramework bool
	}{
		{name: "a refresh"},
		{name: "with the clusters noted at the last read", private: map[string]string{"registered_at_read": `["a"]`}},
		{name: "with nested attributes", state: nestedObject},
		{name: "an import's first read", state: func(a map[string]any) { a["template"] = nil },
			private: map[string]string{".import_before_read": `true`}, viaFramework: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			server, behind, framework := bothWays(ctx, t)
			state := objectAttrs(t, tc.state)
			req := func() *tfprotov6.ReadResourceRequest {
				return &tfprotov6.ReadResourceRequest{TypeName: "kubefed_federated_object",
					CurrentState: objectValue(ctx, t, framework, state), Private: privateNotes(t, tc.private)}
			}
			want, err := framework.ReadResource(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			got, err := server.ReadResource(ctx, req())
			if err != nil {
				t.Fatal(err)
			}
			if viaFramework := behind.reads > 0; viaFramework != tc.viaFramework {
				t.Errorf("answered by the framework: %v, want %v", viaFramework, tc.viaFramework)
			}
			if len(want.Diagnostics) == 0 {
				t.Error("the framework said nothing: the diagnostics compare nothing")
			}
			gotState, wantState := decodedObject(ctx, t, framework, got.NewState), decodedObject(ctx, t, framework, want.NewState)
			if !gotState.Equal(wantState) {
				t.Errorf("new state:\n got %v\nwant %v", gotState, wantState)
			}
			gotRest, wantRest := *got, *want
			gotRest.NewState, wantRest.NewState = nil, nil
			if !reflect.DeepEqual(gotRest, wantRest) {
				t.Errorf("the answers differ besides the new state:\n got %s\nwant %s", described(t, gotRest), described(t, wantRest))
			}
		})
	}
}

func decodedObject(ctx context.Context, t *testing.T, framework tfprotov6.ProviderServer, v *tfprotov6.DynamicValue) tftypes.Value {
	t.Helper()
	schemas, err := framework.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	objectType := schemas.ResourceSchemas["kubefed_federated_object"].ValueType()
	if v == nil {
		return tftypes.NewValue(objectType, nil)
	}
	value, err := v.Unmarshal(objectType)
	if err != nil {
		t.Fatal(err)
	}
	return value
}

func described(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
