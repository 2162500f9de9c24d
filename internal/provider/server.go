package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/fastpath"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// Server returns the provider's protocol server: the framework's, with the
// refreshes, no-change plans and state upgrades of kubefed_federated_object
// answered without the framework's generic work (fastpath), which in a large
// configuration is most of a plan's CPU.
func Server(version string) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		p := &kubefedProvider{version: version, clients: kube.NewClientFactory()}
		ctx := context.Background()
		return fastpath.Wrap(ctx, providerserver.NewProtocol6(p)(), federatedObjectFastPath(ctx, p))
	}
}

// federatedObjectFastPath is kubefed_federated_object as fastpath serves it.
func federatedObjectFastPath(ctx context.Context, p *kubefedProvider) fastpath.Resource {
	var schemaResp resource.SchemaResponse
	(&federatedObjectResource{}).Schema(ctx, resource.SchemaRequest{}, &schemaResp)
	return fastpath.Resource{
		TypeName: "kubefed_federated_object",
		Schema:   schemaResp.Schema,
		ModifyPlan: func() fastpath.PlanFunc {
			data := p.configured.Load()
			if data == nil {
				return nil
			}
			return (&federatedObjectResource{data: data}).modifyPlan
		},
		Read: func() fastpath.ReadFunc {
			data := p.configured.Load()
			if data == nil {
				return nil
			}
			return (&federatedObjectResource{data: data}).read
		},
	}
}
