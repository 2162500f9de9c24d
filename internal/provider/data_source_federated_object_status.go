package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
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
	ft, fo, err := d.hostRecord(ctx, m.Type.ValueString(), m.Namespace.ValueString(), m.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Cannot read the federated object", err.Error())
		return
	}
	object := propagation.Object{Resource: ft.Target.Resource(), Name: m.Name.ValueString()}
	m.ID = types.StringValue(m.Type.ValueString() + "/" + m.Name.ValueString())
	if ft.Target.Namespaced {
		object.Namespace = m.Namespace.ValueString()
		m.ID = types.StringValue(m.Type.ValueString() + "/" + object.Namespace + "/" + object.Name)
	}
	health := d.health(ctx, object, sortedKeys(fo.Status))
	m.Clusters = stringSet(sortedKeys(fo.Status))
	m.ClusterStatus = stringMap(fo.Status)
	m.ClusterHealth = healthValue(health, &resp.Diagnostics)
	ready := len(health) > 0
	for cluster, h := range health {
		ready = ready && h.Ready && fo.Status[cluster] == reconcile.StatusOK
	}
	m.Ready = types.BoolValue(ready)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// hostRecord reads the type and the object's Federated<Kind>.
func (d *federatedObjectStatusDataSource) hostRecord(ctx context.Context, typeName, namespace, name string) (*registry.FederatedType, *registry.FederatedObject, error) {
	reg, err := d.data.registry(ctx)
	if err != nil {
		return nil, nil, err
	}
	ft, err := d.data.federatedType(ctx, reg, typeName)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, nil, fmt.Errorf("no FederatedTypeConfig %q in the host: the type is not enabled", typeName)
	}
	if err != nil {
		return nil, nil, err
	}
	hostNamespace, hostName := registry.FederatedObjectLocation(*ft, namespace, name)
	fo, err := reg.GetFederatedObject(ctx, *ft, hostNamespace, hostName)
	return ft, fo, err
}

// health reads the object from each cluster, in parallel.
func (d *federatedObjectStatusDataSource) health(ctx context.Context, object propagation.Object, clusters []string) map[string]rollout.Health {
	health := map[string]rollout.Health{}
	snapshot, err := d.data.snapshot(ctx)
	if err != nil {
		return health
	}
	members := map[string]propagation.Member{}
	for _, name := range clusters {
		c, ok := snapshot.Cluster(name)
		if !ok {
			health[name] = rollout.Health{Message: "the cluster is not registered"}
			continue
		}
		clients, err := d.data.members.Clients(name, c.Connection)
		if err != nil {
			health[name] = rollout.Health{Message: err.Error()}
			continue
		}
		members[name] = propagation.Member{Name: name, Clients: clients}
	}
	opts := propagation.Options{MaxParallel: d.data.settings.MaxParallelClusters, Timeout: d.data.settings.RequestTimeout}
	results := propagation.FanOut(ctx, sortedKeys(members), opts, func(ctx context.Context, cluster string) (map[string]any, error) {
		obj, _, err := propagation.Get(ctx, members[cluster], object)
		return obj, err
	})
	for _, res := range results {
		switch {
		case res.Err != nil:
			health[res.Cluster] = rollout.Health{Message: "cannot read the cluster: " + res.Err.Error()}
		case res.Value == nil:
			health[res.Cluster] = rollout.Health{Message: "the object is not on the cluster"}
		default:
			health[res.Cluster] = rollout.HealthOf(res.Value)
		}
	}
	return health
}
