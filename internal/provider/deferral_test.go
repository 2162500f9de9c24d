package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestHostDeferral(t *testing.T) {
	for _, tc := range []struct {
		name            string
		deferralAllowed bool
		want            *provider.Deferred
	}{
		{name: "a client that takes deferred answers defers everything until the host exists", deferralAllowed: true,
			want: &provider.Deferred{Reason: provider.DeferredReasonProviderConfigUnknown}},
		{name: "any other client plans unknown values", deferralAllowed: false, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hostDeferral(tc.deferralAllowed)
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Fatalf("hostDeferral(%v) = %+v, want %+v", tc.deferralAllowed, got, tc.want)
			}
		})
	}
}

// configuredWithUnknownHost is the provider's protocol server configured
// as Terraform configures it when the host is created in the same run: its
// host unknown, and deferred answers allowed or not.
func configuredWithUnknownHost(ctx context.Context, t *testing.T, deferralAllowed bool) tfprotov6.ProviderServer {
	t.Helper()
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBE_HOST", "KUBERNETES_SERVICE_HOST"} {
		t.Setenv(env, "")
	}
	server, err := Server("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	providerType := schemas.Provider.ValueType().(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, typ := range providerType.AttributeTypes {
		values[name] = tftypes.NewValue(typ, nil)
	}
	values["host"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	values["token"] = tftypes.NewValue(tftypes.String, "token")
	config, err := tfprotov6.NewDynamicValue(providerType, tftypes.NewValue(providerType, values))
	if err != nil {
		t.Fatal(err)
	}
	configured, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &config,
		ClientCapabilities: &tfprotov6.ConfigureProviderClientCapabilities{DeferralAllowed: deferralAllowed}})
	if err != nil || len(configured.Diagnostics) > 0 {
		t.Fatalf("configure: %v %+v", err, configured.Diagnostics)
	}
	return server
}

// planNewObject plans the creation of a federated object on server, as a
// client that allows deferred answers or not asks for it.
func planNewObject(ctx context.Context, t *testing.T, server tfprotov6.ProviderServer, deferralAllowed bool) *tfprotov6.PlanResourceChangeResponse {
	t.Helper()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	objectType := schemas.ResourceSchemas["kubefed_federated_object"].ValueType()
	prior, err := tfprotov6.NewDynamicValue(objectType, tftypes.NewValue(objectType, nil))
	if err != nil {
		t.Fatal(err)
	}
	_, config := benchObjectValues(ctx, t, server)
	planned, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: "kubefed_federated_object", PriorState: &prior, ProposedNewState: config, Config: config,
		ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: deferralAllowed}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range planned.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("plan: %s: %s", d.Summary, d.Detail)
		}
	}
	return planned
}

// placedClusters is the planned placed_clusters of a federated object.
func placedClusters(t *testing.T, server tfprotov6.ProviderServer, planned *tfprotov6.PlanResourceChangeResponse) tftypes.Value {
	t.Helper()
	schemas, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	value, err := planned.PlannedState.Unmarshal(schemas.ResourceSchemas["kubefed_federated_object"].ValueType())
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := value.As(&attrs); err != nil {
		t.Fatal(err)
	}
	return attrs["placed_clusters"]
}

// A Terraform that takes deferred answers is told, when the host is
// created in the same run, to leave the provider's resources to a later
// run; the resources' own plans do not run.
func TestServer_defersWhenTheHostIsUnknownAndTheClientAllowsIt(t *testing.T) {
	ctx := context.Background()
	server := configuredWithUnknownHost(ctx, t, true)
	planned := planNewObject(ctx, t, server, true)
	if planned.Deferred == nil || planned.Deferred.Reason != tfprotov6.DeferredReasonProviderConfigUnknown {
		t.Fatalf("plan answered deferred = %+v, want the reason ProviderConfigUnknown", planned.Deferred)
	}
	for _, d := range planned.Diagnostics {
		if strings.Contains(d.Summary, "known at apply") {
			t.Fatalf("a deferred plan warned about values known at apply: %s", d.Summary)
		}
	}
	read := readClusters(ctx, t, server)
	if read.Deferred == nil || read.Deferred.Reason != tfprotov6.DeferredReasonProviderConfigUnknown {
		t.Fatalf("kubefed_clusters answered deferred = %+v, want the reason ProviderConfigUnknown (%+v)", read.Deferred, read.Diagnostics)
	}
	opened := openClusterConnection(ctx, t, server)
	if opened.Deferred == nil || opened.Deferred.Reason != tfprotov6.DeferredReasonProviderConfigUnknown {
		t.Fatalf("kubefed_cluster_connection answered deferred = %+v, want the reason ProviderConfigUnknown (%+v)", opened.Deferred, opened.Diagnostics)
	}
}

// openClusterConnection opens kubefed_cluster_connection for berlin on
// server, as a client that allows deferred answers asks for it.
func openClusterConnection(ctx context.Context, t *testing.T, server tfprotov6.ProviderServer) *tfprotov6.OpenEphemeralResourceResponse {
	t.Helper()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	connectionType := schemas.EphemeralResourceSchemas["kubefed_cluster_connection"].ValueType().(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, typ := range connectionType.AttributeTypes {
		values[name] = tftypes.NewValue(typ, nil)
	}
	values["name"] = tftypes.NewValue(tftypes.String, "berlin")
	config, err := tfprotov6.NewDynamicValue(connectionType, tftypes.NewValue(connectionType, values))
	if err != nil {
		t.Fatal(err)
	}
	opened, err := server.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{TypeName: "kubefed_cluster_connection",
		Config: &config, ClientCapabilities: &tfprotov6.OpenEphemeralResourceClientCapabilities{DeferralAllowed: true}})
	if err != nil {
		t.Fatal(err)
	}
	return opened
}

// readClusters reads the kubefed_clusters data source on server, as a
// client that allows deferred answers asks for it.
func readClusters(ctx context.Context, t *testing.T, server tfprotov6.ProviderServer) *tfprotov6.ReadDataSourceResponse {
	t.Helper()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	dataType := schemas.DataSourceSchemas["kubefed_clusters"].ValueType().(tftypes.Object)
	nulls := map[string]tftypes.Value{}
	for name, typ := range dataType.AttributeTypes {
		nulls[name] = tftypes.NewValue(typ, nil)
	}
	config, err := tfprotov6.NewDynamicValue(dataType, tftypes.NewValue(dataType, nulls))
	if err != nil {
		t.Fatal(err)
	}
	read, err := server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "kubefed_clusters", Config: &config,
		ClientCapabilities: &tfprotov6.ReadDataSourceClientCapabilities{DeferralAllowed: true}})
	if err != nil {
		t.Fatal(err)
	}
	return read
}

// Without the capability, the provider plans as it always has: unknown
// placement, with a warning that says the host is not known yet.
func TestServer_plansUnknownValuesWhenTheClientCannotDefer(t *testing.T) {
	ctx := context.Background()
	server := configuredWithUnknownHost(ctx, t, false)
	planned := planNewObject(ctx, t, server, false)
	if planned.Deferred != nil {
		t.Fatalf("plan answered deferred = %+v to a client that does not allow it", planned.Deferred)
	}
	if placed := placedClusters(t, server, planned); placed.IsKnown() {
		t.Fatalf("placed_clusters planned as %v before the host is known", placed)
	}
	warned := false
	for _, d := range planned.Diagnostics {
		warned = warned || (d.Severity == tfprotov6.DiagnosticSeverityWarning && strings.Contains(d.Detail, "created in the same run"))
	}
	if !warned {
		t.Fatalf("no warning says why placement waits for apply: %+v", planned.Diagnostics)
	}
}
