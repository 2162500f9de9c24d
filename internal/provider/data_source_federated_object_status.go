package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ datasource.DataSource              = (*federatedObjectStatusDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*federatedObjectStatusDataSource)(nil)
)

// NewFederatedObjectStatusDataSource returns the
// kubefed_federated_object_status data source.
func NewFederatedObjectStatusDataSource() datasource.DataSource {
	return &federatedObjectStatusDataSource{}
}

type federatedObjectStatusDataSource struct {
	data *providerData
}

type federatedObjectStatusModel struct {
	ID            types.String `tfsdk:"id"`
	Type          types.String `tfsdk:"type"`
	Namespace     types.String `tfsdk:"namespace"`
	Name          types.String `tfsdk:"name"`
	Clusters      types.Set    `tfsdk:"clusters"`
	ClusterStatus types.Map    `tfsdk:"cluster_status"`
	ClusterHealth types.Map    `tfsdk:"cluster_health"`
	Ready         types.Bool   `tfsdk:"ready"`
}

func (d *federatedObjectStatusDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_federated_object_status"
}

func (d *federatedObjectStatusDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	health := map[string]schema.Attribute{
		"ready":              schema.BoolAttribute{Computed: true, Description: "Whether the object runs as it should (rolled out, for a workload)."},
		"replicas":           schema.Int64Attribute{Computed: true, Description: "Desired replicas."},
		"ready_replicas":     schema.Int64Attribute{Computed: true, Description: "Ready replicas."},
		"updated_replicas":   schema.Int64Attribute{Computed: true, Description: "Replicas of the latest template."},
		"available_replicas": schema.Int64Attribute{Computed: true, Description: "Available replicas."},
		"message":            schema.StringAttribute{Computed: true, Description: "How the object does, in a line."},
	}
	resp.Schema = schema.Schema{
		Description: "How a federated object does on each cluster it is placed on, read from the members when the data source is " +
			"read: for a pipeline stage that gates on an object another configuration manages.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, Description: "`<type>/<namespace>/<name>`, or `<type>/<name>`."},
			"type": schema.StringAttribute{Required: true, Description: "Name of the FederatedTypeConfig, e.g. `deployments.apps`.",
				Validators: []validator.String{dnsSubdomainValidator{}}},
			"namespace": schema.StringAttribute{Optional: true, Description: "Namespace of the object, for namespaced types.",
				Validators: []validator.String{dnsLabelValidator}},
			"name": schema.StringAttribute{Required: true, Description: "Name of the object.",
				Validators: []validator.String{dnsSubdomainValidator{}}},
			"clusters": schema.SetAttribute{Computed: true, ElementType: types.StringType,
				Description: "The clusters the host's `Federated<Kind>` records the object on."},
			"cluster_status": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				Description: "Each cluster's status as the last apply recorded it in the host (`OK`, `RolloutFailed`, ...)."},
			"cluster_health": schema.MapNestedAttribute{Computed: true,
				Description:  "For each of those clusters, how the object does there now.",
				NestedObject: schema.NestedAttributeObject{Attributes: health}},
			"ready": schema.BoolAttribute{Computed: true, Description: "Whether the object is ready on every one of those clusters."},
		},
	}
}

func (d *federatedObjectStatusDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (d *federatedObjectStatusDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m federatedObjectStatusModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	status, err := d.data.objects().ObjectStatus(ctx, m.Type.ValueString(), m.Namespace.ValueString(), m.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Cannot read the federated object", err.Error())
		return
	}
	m.ID = types.StringValue(status.ID)
	m.Clusters = stringSet(sortedKeys(status.Clusters))
	m.ClusterStatus = stringMap(status.Clusters)
	m.ClusterHealth = healthValue(status.Health, &resp.Diagnostics)
	m.Ready = types.BoolValue(status.Ready())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
