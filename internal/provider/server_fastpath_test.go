package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/fastpath"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// frameworkCalls is the framework's server, counting the calls for which the
// provider's protocol server went to it.
type frameworkCalls struct {
	tfprotov6.ProviderServer
	upgrades, reads, plans int
}

func (f *frameworkCalls) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	f.upgrades++
	return f.ProviderServer.UpgradeResourceState(ctx, req)
}

func (f *frameworkCalls) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	f.reads++
	return f.ProviderServer.ReadResource(ctx, req)
}

func (f *frameworkCalls) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	f.plans++
	return f.ProviderServer.PlanResourceChange(ctx, req)
}

// The calls of a no-change plan of a federated object, as Terraform makes
// them, never reach the framework once the provider is configured: a change
// of the schema or of the resource that sent them back would otherwise show
// only as a slower plan. The provider here has no host, so the read fails
// and the plan waits for apply, without a request.
func TestServer_answersAFederatedObjectsNoChangePlanItself(t *testing.T) {
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBERNETES_SERVICE_HOST"} {
		t.Setenv(env, "")
	}
	ctx := context.Background()
	p := &kubefedProvider{version: "test", clients: kube.NewClientFactory()}
	framework := &frameworkCalls{ProviderServer: providerserver.NewProtocol6(p)()}
	server, err := fastpath.Wrap(ctx, framework, federatedObjectFastPath(ctx, p))
	if err != nil {
		t.Fatal(err)
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

	state, config := benchObjectValues(ctx, t, server)
	read, err := server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "kubefed_federated_object", CurrentState: state})
	if err != nil || read.NewState == nil {
		t.Fatalf("read: %v %+v", err, read)
	}
	planned, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: "kubefed_federated_object", PriorState: state, ProposedNewState: state, Config: config})
	if err != nil || planned.PlannedState == nil {
		t.Fatalf("plan: %v %+v", err, planned)
	}
	if framework.upgrades+framework.reads+framework.plans > 0 {
		t.Errorf("the framework answered %d upgrades, %d reads and %d plans, want none",
			framework.upgrades, framework.reads, framework.plans)
	}
}
