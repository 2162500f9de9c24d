package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

var (
	_ ephemeral.EphemeralResource              = (*clusterConnectionEphemeralResource)(nil)
	_ ephemeral.EphemeralResourceWithConfigure = (*clusterConnectionEphemeralResource)(nil)
)

// NewClusterConnectionEphemeralResource returns the
// kubefed_cluster_connection ephemeral resource.
func NewClusterConnectionEphemeralResource() ephemeral.EphemeralResource {
	return &clusterConnectionEphemeralResource{}
}

type clusterConnectionEphemeralResource struct {
	data *providerData
}

// clusterConnectionModel is how to reach a registered member, with the
// attribute names of the hashicorp/kubernetes and helm providers.
type clusterConnectionModel struct {
	Name                 types.String `tfsdk:"name"`
	Host                 types.String `tfsdk:"host"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Token                types.String `tfsdk:"token"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	Insecure             types.Bool   `tfsdk:"insecure"`
	ProxyURL             types.String `tfsdk:"proxy_url"`
}

func (r *clusterConnectionEphemeralResource) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster_connection"
}

func (r *clusterConnectionEphemeralResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "How to reach a registered member cluster, read from the federation's registry in the host (its KubeFedCluster " +
			"and credential Secret), for configuring another provider without the credentials reaching state or plan. " +
			"Needs Terraform 1.10 or later, or OpenTofu 1.11 or later.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Required:    true,
				Description: "Name of the registered cluster.",
			},
			"host": schema.StringAttribute{
				Computed:    true,
				Description: "URL of the member's API server (the KubeFedCluster's `apiEndpoint`).",
			},
			"cluster_ca_certificate": schema.StringAttribute{
				Computed:    true,
				Description: "PEM-encoded CA certificate of the member's API server (its `caBundle`); null when the registration has none.",
			},
			"token": schema.StringAttribute{
				Computed:    true,
				Sensitive:   true,
				Description: "Bearer token of the credential Secret; null when the cluster is registered with a client certificate only.",
			},
			"client_certificate": schema.StringAttribute{
				Computed:    true,
				Description: "PEM-encoded client certificate of the credential Secret (`tls.crt`); null when there is none.",
			},
			"client_key": schema.StringAttribute{
				Computed:    true,
				Sensitive:   true,
				Description: "PEM-encoded private key of client_certificate (`tls.key`); null when there is none.",
			},
			"insecure": schema.BoolAttribute{
				Computed:    true,
				Description: "Whether the registration skips every TLS verification of the member (`disabledTLSValidations` holds `*`).",
			},
			"proxy_url": schema.StringAttribute{
				Computed:    true,
				Description: "URL of the proxy the member is reached through (its `proxyURL`); null when there is none.",
			},
		},
	}
}

func (r *clusterConnectionEphemeralResource) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (r *clusterConnectionEphemeralResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var model clusterConnectionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reg, err := r.data.registry(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the cluster's connection from the host", err.Error())
		return
	}
	connection, diags := readClusterConnection(ctx, reg, model.Name.ValueString())
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Result.Set(ctx, &connection)...)
}

// readClusterConnection reads the registration of the cluster called name
// and says how to reach it, or what is wrong with the name or the
// registration.
func readClusterConnection(ctx context.Context, reg *registry.Registry, name string) (clusterConnectionModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	cluster, err := reg.GetCluster(ctx, name)
	if errors.Is(err, registry.ErrNotFound) {
		records, listErr := reg.ClusterRecords(ctx)
		registered := make([]string, 0, len(records))
		for _, record := range records {
			registered = append(registered, record.Name)
		}
		diags.AddAttributeError(path.Root("name"), "No such registered cluster",
			registry.UnregisteredClusterDetail(name, reg.Namespace(), registered, listErr))
		return clusterConnectionModel{}, diags
	}
	if err != nil {
		diags.AddError("Cannot read the cluster's connection from the host", err.Error())
		return clusterConnectionModel{}, diags
	}
	connection, warning, err := registeredConnection(*cluster, reg.Namespace())
	if err != nil {
		diags.AddAttributeError(path.Root("name"), "The cluster's registration holds no usable credentials", err.Error())
		return clusterConnectionModel{}, diags
	}
	if warning != "" {
		diags.AddAttributeWarning(path.Root("name"), "TLS checks the connection does not skip", warning)
	}
	return connection, diags
}

// registeredConnection is how to reach c as its registration records it, with a
// warning when the registration skips TLS checks that the connection's
// attributes cannot skip, or an error saying which credentials are missing.
func registeredConnection(c registry.Cluster, namespace string) (clusterConnectionModel, string, error) {
	if err := c.MissingCredentials(namespace); err != nil {
		return clusterConnectionModel{}, "", err
	}
	conn := c.Connection
	insecure := slices.Contains(conn.DisabledTLSValidations, member.TLSAll)
	warning := ""
	if !insecure && len(conn.DisabledTLSValidations) > 0 {
		warning = fmt.Sprintf("The registration of cluster %q skips the TLS validations %s of its API server; a provider "+
			"configured from this connection verifies them, as there is no attribute to skip them one by one. "+
			"Set tls_server_name in that provider, or register the cluster with a certificate that passes them.",
			c.Name, strings.Join(conn.DisabledTLSValidations, ", "))
	}
	// A certificate without its key (or the reverse) authenticates nothing;
	// beside a token it is left out rather than handed on half.
	certificate, key := types.StringNull(), types.StringNull()
	if len(conn.ClientCertificate) > 0 && len(conn.ClientKey) > 0 {
		certificate, key = types.StringValue(string(conn.ClientCertificate)), types.StringValue(string(conn.ClientKey))
	}
	return clusterConnectionModel{
		Name:                 types.StringValue(c.Name),
		Host:                 types.StringValue(conn.APIEndpoint),
		ClusterCACertificate: nullIfEmpty(string(conn.CABundle)),
		Token:                nullIfEmpty(conn.Token),
		ClientCertificate:    certificate,
		ClientKey:            key,
		Insecure:             types.BoolValue(insecure),
		ProxyURL:             nullIfEmpty(conn.ProxyURL),
	}, warning, nil
}
