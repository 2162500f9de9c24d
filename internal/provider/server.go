package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/fastpath"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/readonly"
)

// Server returns the provider's protocol server: the framework's, with the
// refreshes and no-change plans of kubefed_federated_object answered
// without the framework's generic work (fastpath), which in a large
// configuration is most of a plan's CPU, and every apply refused, before
// the resource runs, by a provider configured read-only. It has the shape
// of the testing framework's provider factories, and never fails.
func Server(version string) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		p := &kubefedProvider{version: version, clients: kube.NewClientFactory()}
		return readonly.Wrap(withFastPath(p, providerserver.NewProtocol6(p)()), p.refusesApply), nil
	}
}

// refusesApply says why the provider refuses every apply: it is configured
// read-only.
func (p *kubefedProvider) refusesApply() string {
	if data := p.configured.Load(); data != nil && data.settings.ReadOnly {
		return msgReadOnly
	}
	return ""
}

const msgReadOnly = "The provider is configured with read_only = true: it plans with read credentials and never writes. " +
	"Apply with a provider whose read_only is false (or unset) and whose credentials may write, as a pipeline's apply job does."

// withFastPath is framework, p's server, with fastpath in front of it. Should
// fastpath.Check refuse kubefed_federated_object (after a change of its
// schema, say), the framework serves it whole and the provider's log says
// why each time Terraform configures the provider.
func withFastPath(p *kubefedProvider, framework tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	return fastpath.Wrap(context.Background(), framework, federatedObjectFastPath(p))
}

// federatedObjectFastPath is kubefed_federated_object as fastpath serves it.
func federatedObjectFastPath(p *kubefedProvider) fastpath.Resource {
	return fastpath.Resource{
		TypeName: "kubefed_federated_object",
		Resource: NewFederatedObjectResource(),
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
