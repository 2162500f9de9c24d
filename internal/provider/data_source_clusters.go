package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

var (
	_ datasource.DataSource              = (*clustersDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*clustersDataSource)(nil)
)

// NewClustersDataSource returns the kubefed_clusters data source.
func NewClustersDataSource() datasource.DataSource {
	return &clustersDataSource{}
}

type clustersDataSource struct {
	data *providerData
}

type clustersDataSourceModel struct {
	ClusterSelector types.Dynamic         `tfsdk:"cluster_selector"`
	Clusters        []clusterSummaryModel `tfsdk:"clusters"`
	Names           []string              `tfsdk:"names"`
}

type clusterSummaryModel struct {
	Name              types.String `tfsdk:"name"`
	APIEndpoint       types.String `tfsdk:"api_endpoint"`
	Labels            types.Map    `tfsdk:"labels"`
	Ready             types.Bool   `tfsdk:"ready"`
	Offline           types.Bool   `tfsdk:"offline"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
}

func (d *clustersDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_clusters"
}

func (d *clustersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The member clusters registered in the federation (KubeFedClusters in the federation namespace of the host), " +
			"optionally filtered by a label selector. A host without KubeFed's CRDs is an error, not an empty list.",
		Attributes: map[string]schema.Attribute{
			"clusters": schema.ListNestedAttribute{
				Computed:    true,
				Description: "The registered clusters that match, sorted by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":               schema.StringAttribute{Computed: true, Description: "Name of the cluster."},
					"api_endpoint":       schema.StringAttribute{Computed: true, Description: "URL of its API server."},
					"labels":             schema.MapAttribute{Computed: true, ElementType: types.StringType, Description: "Its labels, which selectors match."},
					"ready":              schema.BoolAttribute{Computed: true, Description: "Whether its last health probe found it ready."},
					"offline":            schema.BoolAttribute{Computed: true, Description: "Whether its last health probe could not reach it."},
					"kubernetes_version": schema.StringAttribute{Computed: true, Description: "Its Kubernetes version, as last probed."},
				}},
			},
			"names": schema.ListAttribute{
				Computed:    true,
				ElementType: types.StringType,
				Description: "Names of the registered clusters that match, sorted.",
			},
			"cluster_selector": clusterSelectorDataSourceAttribute(),
		},
	}
}

func (d *clustersDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (d *clustersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var model clustersDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	selector, err := selectorOf(model.ClusterSelector, "cluster_selector")
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster_selector"), "Invalid cluster_selector", err.Error())
		return
	}
	reg, err := d.data.registry(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the federation's clusters from the host", err.Error())
		return
	}
	records, err := reg.ClusterRecords(ctx)
	if errors.Is(err, registry.ErrNoRegistry) {
		resp.Diagnostics.AddError("The host has no KubeFed cluster registry", noRegistryDetail(err))
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the federation's clusters from the host", err.Error())
		return
	}

	model.Clusters = []clusterSummaryModel{}
	model.Names = []string{}
	for _, record := range records {
		if selector != nil {
			if selected, _ := federation.SelectorMatches(selector, record.Labels); !selected {
				continue
			}
		}
		labelValues, diags := types.MapValueFrom(ctx, types.StringType, record.Labels)
		resp.Diagnostics.Append(diags...)
		model.Clusters = append(model.Clusters, clusterSummaryModel{
			Name:              types.StringValue(record.Name),
			APIEndpoint:       types.StringValue(record.APIEndpoint),
			Labels:            labelValues,
			Ready:             types.BoolValue(record.Ready),
			Offline:           types.BoolValue(record.Offline),
			KubernetesVersion: types.StringValue(record.KubernetesVersion),
		})
		model.Names = append(model.Names, record.Name)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}

// noRegistryDetail says what to do about a host without KubeFed's CRDs: an
// empty list would read as a federation with no clusters, and a selector
// placed on it would silently place nothing.
func noRegistryDetail(err error) string {
	return fmt.Sprintf("The provider's host cluster cannot list the federation's clusters: %v. Point the provider at the "+
		"federation's host (host, or config_path and config_context) rather than at a member or another cluster; on a new "+
		"host, register a cluster first with kubefed_federation_cluster, whose apply installs KubeFed's CRDs, and when this "+
		"configuration registers the clusters, make the data source depend on those resources (depends_on).", err)
}
