// Package provider is the Terraform edge of the federation: schemas, models,
// plan modifiers and diagnostics. It computes nothing itself; it hands plain
// data to the engine and the registry and reports what they say.
//
// Where each part lives: the two resources that federate objects
// (resource_federated_object*.go, resource_federated_application*.go) are
// adapters over internal/objectset, which plans, applies, refreshes and
// removes a set of objects (an object is a set of one); objectset_edge.go
// builds the pipeline's environment from the run's data and maps its
// problems onto diagnostics. The clusters, types and scheduling preferences
// have a file each (resource_federation_cluster*.go, ...); the provider
// functions read their dynamic arguments through internal/plain; the notes
// a resource hands itself through private state are in private_notes.go.
package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/functions"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

var (
	_ provider.Provider              = (*kubefedProvider)(nil)
	_ provider.ProviderWithFunctions = (*kubefedProvider)(nil)

	_ provider.ProviderWithEphemeralResources = (*kubefedProvider)(nil)
)

// Defaults of the provider's own settings.
const (
	DefaultFederationNamespace = "kube-federation-system"
	DefaultFieldManager        = "terraform-provider-kubefed"
	DefaultRequestTimeout      = 30 * time.Second
)

type kubefedProvider struct {
	version string
	clients kube.ClientFactory
	// configured is what Configure made, for the protocol server's own
	// answers (Server).
	configured atomic.Pointer[providerData]
}

// New returns the provider constructor that talks to real clusters.
func New(version string) func() provider.Provider {
	return NewWithClientFactory(version, kube.NewClientFactory())
}

// NewWithClientFactory returns a provider constructor that builds its cluster
// clients with factory, so that tests can substitute fakes.
func NewWithClientFactory(version string, factory kube.ClientFactory) func() provider.Provider {
	return func() provider.Provider {
		return &kubefedProvider{version: version, clients: factory}
	}
}

func (p *kubefedProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "kubefed"
	resp.Version = p.version
}

func (p *kubefedProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}

	settings, diags := model.settings()
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	settings.Connection.UserAgent = "terraform-provider-kubefed/" + p.version

	data := newProviderData(settings, p.clients)
	if model.hasUnknownConnection() {
		// The host is created in the same run: resources plan unknown values
		// until apply, when the values are known.
		data.hostUnknownReason = "the provider's connection settings are not known until apply " +
			"(the host cluster is probably created in the same run)"
		resp.Deferred = hostDeferral(req.ClientCapabilities.DeferralAllowed)
		tflog.Info(ctx, "host connection settings unknown at plan time",
			map[string]any{"deferred": resp.Deferred != nil})
	} else if restConfig, err := settings.Connection.RESTConfig(); errors.Is(err, kube.ErrNoConfiguration) {
		// Not an error here: provider functions need no cluster, and a
		// module that only calls them must plan without one. Whatever needs
		// the host reports this instead.
		data.configErr = errNoHost
	} else if err != nil {
		resp.Diagnostics.AddError("Cannot configure the connection to the host cluster", err.Error())
		return
	} else {
		data.hostConfig = restConfig
		if settings.Connection.IsEmpty() {
			tflog.Info(ctx, "no connection settings: reaching the host cluster with the pod's service account",
				map[string]any{"server": restConfig.Host})
		}
		if settings.Connection.Insecure {
			resp.Diagnostics.AddAttributeWarning(path.Root("insecure"), "TLS verification of the host cluster is off",
				"insecure = true accepts any certificate, so anyone on the path can read and change what "+
					"the provider sends. Set cluster_ca_certificate instead.")
		}
	}
	if settings.ReadOnly {
		resp.Diagnostics.AddAttributeWarning(path.Root("read_only"), "Read-only plan: objects validated on the client", "read_only = true: "+
			"the plan reads the registrations and the clusters' read credentials only, and checks each member's object with the "+
			"provider's own checks, without a server-side dry run (the member answers at apply). Apply and destroy are refused.")
	}
	resp.DataSourceData = data
	resp.ResourceData = data
	resp.EphemeralResourceData = data
	p.configured.Store(data)
}

func (p *kubefedProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewFederationClusterResource,
		NewFederatedTypeResource,
		NewFederatedObjectResource,
		NewFederatedApplicationResource,
		NewReplicaSchedulingPreferenceResource,
	}
}

func (p *kubefedProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewClustersDataSource,
		NewFederatedObjectStatusDataSource,
	}
}

func (p *kubefedProvider) EphemeralResources(context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		NewClusterConnectionEphemeralResource,
	}
}

func (p *kubefedProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		functions.NewReplicaSplitFunction,
		functions.NewRenderObjectFunction,
		functions.NewDecodeManifestsFunction,
	}
}

// errNoHost is what resources and data sources report when the provider
// block says nothing about the host. The provider never falls back to
// ~/.kube/config on its own: a plan must not target the wrong cluster by
// accident.
var errNoHost = fmt.Errorf("the provider does not know which host cluster to use: %w; "+
	"the provider never falls back to ~/.kube/config on its own", kube.ErrNoConfiguration)

// envString returns the attribute's value, else the environment variable's.
func envString(value types.String, env string) string {
	if !value.IsNull() && !value.IsUnknown() {
		return value.ValueString()
	}
	return os.Getenv(env)
}

// envBool returns the attribute's value, else the environment variable's,
// else false.
func envBool(value types.Bool, env string) (bool, error) {
	if !value.IsNull() && !value.IsUnknown() {
		return value.ValueBool(), nil
	}
	raw := os.Getenv(env)
	if raw == "" {
		return false, nil
	}
	parsed, err := strconv.ParseBool(raw)
	if err != nil {
		return false, fmt.Errorf("environment variable %s: %q is not a boolean", env, raw)
	}
	return parsed, nil
}
