package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

var (
	_ resource.ResourceWithConfigure   = (*federatedObjectResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*federatedObjectResource)(nil)
	_ resource.ResourceWithImportState = (*federatedObjectResource)(nil)
)

// Deletion policies.
const (
	deletionDelete = "Delete"
	deletionOrphan = "Orphan"
)

// defaultOperationTimeout bounds create, update and delete when timeouts
// does not say otherwise.
const defaultOperationTimeout = 5 * time.Minute

// NewFederatedObjectResource returns the kubefed_federated_object resource.
func NewFederatedObjectResource() resource.Resource {
	return &federatedObjectResource{}
}

type federatedObjectResource struct {
	data *providerData
}

type federatedObjectModel struct {
	ID              types.String    `tfsdk:"id"`
	Type            types.String    `tfsdk:"type"`
	Template        templateValue   `tfsdk:"template"`
	Placement       *placementModel `tfsdk:"placement"`
	Overrides       []overrideModel `tfsdk:"overrides"`
	ClusterReplicas types.Map       `tfsdk:"cluster_replicas"`
	DeletionPolicy  types.String    `tfsdk:"deletion_policy"`
	ForceConflicts  types.Bool      `tfsdk:"force_conflicts"`
	Timeouts        *timeoutsModel  `tfsdk:"timeouts"`
	PlacedClusters  types.Set       `tfsdk:"placed_clusters"`
	Rendered        types.Map       `tfsdk:"rendered"`
	ClusterStatus   types.Map       `tfsdk:"cluster_status"`
}

type placementModel struct {
	Clusters        types.List            `tfsdk:"clusters"`
	ClusterSelector *clusterSelectorModel `tfsdk:"cluster_selector"`
}

type overrideModel struct {
	Cluster         types.String          `tfsdk:"cluster"`
	ClusterSelector *clusterSelectorModel `tfsdk:"cluster_selector"`
	Patches         []patchModel          `tfsdk:"patches"`
}

type patchModel struct {
	Op    types.String `tfsdk:"op"`
	Path  types.String `tfsdk:"path"`
	Value types.String `tfsdk:"value"`
}

type timeoutsModel struct {
	Create types.String `tfsdk:"create"`
	Update types.String `tfsdk:"update"`
	Delete types.String `tfsdk:"delete"`
}

// clusterStatusType is one entry of cluster_status.
var clusterStatusType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"status":  types.StringType,
	"message": types.StringType,
}}

func (r *federatedObjectResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_federated_object"
}

func (r *federatedObjectResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	duration := []validator.String{stringvalidator.RegexMatches(durationPattern, "must be a Go duration such as \"30s\" or \"10m\"")}
	resp.Schema = schema.Schema{
		Description: "A Kubernetes object federated to member clusters, KubeFed style: one template, a placement and per-cluster " +
			"overrides. The plan shows, for each placed cluster, the exact object it receives (`rendered`); apply writes a " +
			"`Federated<Kind>` (types.kubefed.io/v1beta1) to the host and server-side applies each rendered object to its cluster, " +
			"in parallel. Override rules that target clusters by label selector, which KubeFed lacks, are stored in the " +
			"`" + registry.SelectorOverridesAnnotation + "` annotation of the `Federated<Kind>`, which KubeFed ignores.\n\n" +
			"What a member's API server warns about an object (a deprecated field, a value it will not honour, a policy the object " +
			"breaks) is shown as a warning of the plan, from the dry run, and of the apply, naming the cluster.\n\n" +
			"A failure on one cluster never stops the others, and the state records what each cluster holds. When a create fails " +
			"on some clusters, Terraform marks the object tainted and plans to replace it; this provider, like on `-replace`, " +
			"replaces it in place: the members' objects are not deleted first, the object is re-applied over them, and it is removed " +
			"only from clusters that leave the placement. A change of `type`, name or namespace is another object: the old one is " +
			"deleted everywhere.\n\n" +
			"Refresh reads each object back projected onto the fields the provider sets. What the API server stores in another " +
			"form without a change of meaning reads back as it was written, so it never shows as drift: a quantity in its " +
			"canonical form (`1000m` as `1`, `1024Mi` as `1Gi`, a number as a string), a zero value the server leaves out " +
			"(`false`, `0`, `\"\"`, `{}`, `[]`), and a Secret's `stringData`, which the server moves into `data`.\n\n" +
			"The apply does what the plan showed. When someone else registers a cluster between plan and apply, an object that " +
			"existed before the run leaves it out of that apply, with a warning, and the next plan places it there; an object " +
			"created by the apply has no earlier read to go by, so Terraform stops the apply as inconsistent and a new plan takes the " +
			"cluster in. An object placed by a selector should depend on the " +
			"`kubefed_federation_cluster` resources of its configuration (a reference or `depends_on`): then a cluster registered in " +
			"the same run is placed in that run. Without that, Terraform may plan the object before the cluster but apply it after, " +
			"and stop the apply as inconsistent.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "`<type>/<namespace>/<name>`, or `<type>/<name>` for cluster-scoped types.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"type": schema.StringAttribute{
				Required:      true,
				Description:   "Name of the FederatedTypeConfig of the object's type, e.g. `deployments.apps` (normally `kubefed_federated_type.x.name`).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"template": schema.StringAttribute{
				Required:   true,
				CustomType: templateType{},
				Description: "The object to federate: one YAML or JSON document (`yamlencode(...)`, `jsonencode(...)` or `file(...)`) " +
					"with `apiVersion`, `kind`, `metadata.name` and, for namespaced types, `metadata.namespace`. Documents are " +
					"compared decoded: a change of formatting alone changes no `rendered` object, so no cluster is touched, and " +
					"reading a template back never shows its formatting as drift.",
			},
			"cluster_replicas": schema.MapAttribute{
				Optional:    true,
				ElementType: types.Int64Type,
				Description: "Replica count per cluster, normally `kubefed_replica_scheduling_preference.x.replicas`. When set, the object " +
					"is placed on these clusters (those the placement also selects, when both are set) and each cluster's object carries its count.",
			},
			"deletion_policy": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(deletionDelete),
				Description: "`Delete` (the default) deletes the object from a cluster on destroy and when the cluster leaves the placement; " +
					"`Orphan` leaves it there and removes its `kubefed.io/managed` label, like KubeFed's orphan annotation.",
				Validators: []validator.String{stringvalidator.OneOf(deletionDelete, deletionOrphan)},
			},
			"force_conflicts": schema.BoolAttribute{
				Optional:    true,
				Computed:    true,
				Default:     booldefault.StaticBool(false),
				Description: "Take over fields that another field manager owns on a member instead of failing. Defaults to false.",
			},
			"placed_clusters": schema.SetAttribute{
				Computed:    true,
				ElementType: types.StringType,
				Description: "The clusters the object is placed on, computed at plan time from the registry and the placement.",
			},
			"rendered": schema.MapAttribute{
				Computed:    true,
				ElementType: types.StringType,
				Description: "For each cluster, the canonical JSON of the object it receives (planned) or holds (in state, projected onto " +
					"the fields the provider sets). A Secret's values show as `sha256:` digests. A cluster that is not ready at plan " +
					"time keeps its previous entry, or none.",
			},
			"cluster_status": schema.MapNestedAttribute{
				Computed: true,
				Description: "For each cluster, the outcome of the last apply: `status` in KubeFed's words (`OK`, `ClusterNotReady`, " +
					"`CreationFailed`, `UpdateFailed`, `DeletionFailed`, `Orphaned`, ...) and a `message`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"status":  schema.StringAttribute{Computed: true, Description: "Propagation status, in KubeFed's words."},
					"message": schema.StringAttribute{Computed: true, Description: "What went wrong, empty when nothing did."},
				}},
			},
		},
		Blocks: map[string]schema.Block{
			"placement": schema.SingleNestedBlock{
				Description: "Which member clusters receive the object, with KubeFed's semantics: `clusters` when set (an empty list " +
					"selects none), otherwise the clusters `cluster_selector` matches (an empty block matches all); without either, none.",
				Attributes: map[string]schema.Attribute{
					"clusters": schema.ListAttribute{
						Optional:    true,
						ElementType: types.StringType,
						Description: "Names of registered clusters.",
					},
				},
				Blocks: map[string]schema.Block{"cluster_selector": clusterSelectorResourceBlock()},
			},
			"overrides": schema.ListNestedBlock{
				Description: "Per-cluster changes, applied in order after the template (and the replica count): each rule targets " +
					"one `cluster` by name or the clusters its `cluster_selector` matches.",
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"cluster": schema.StringAttribute{Optional: true, Description: "Name of the cluster the rule targets."},
						"patches": schema.ListNestedAttribute{
							Required:    true,
							Description: "RFC 6902 operations applied to the cluster's object.",
							NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
								"op":    schema.StringAttribute{Optional: true, Description: "`add`, `replace` (the default) or `remove`."},
								"path":  schema.StringAttribute{Required: true, Description: "JSON pointer, e.g. `/spec/replicas`."},
								"value": schema.StringAttribute{Optional: true, Description: "The value as JSON text, e.g. `jsonencode(5)`; unset for `remove`."},
							}},
						},
					},
					Blocks: map[string]schema.Block{"cluster_selector": clusterSelectorResourceBlock()},
				},
			},
			"timeouts": schema.SingleNestedBlock{
				Description: "How long create, update and delete may take, as Go durations; each defaults to 5m. The bound applies to every cluster on its own.",
				Attributes: map[string]schema.Attribute{
					"create": schema.StringAttribute{Optional: true, Description: "Timeout of create.", Validators: duration},
					"update": schema.StringAttribute{Optional: true, Description: "Timeout of update.", Validators: duration},
					"delete": schema.StringAttribute{Optional: true, Description: "Timeout of delete.", Validators: duration},
				},
			},
		},
	}
}

func (r *federatedObjectResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if req.ProviderData != nil {
		r.data = req.ProviderData.(*providerData)
	}
}

func (r *federatedObjectResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan federatedObjectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, &plan, nil, timeoutOf(plan.Timeouts, func(t *timeoutsModel) types.String { return t.Create }), &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(forgetReplacement(ctx, resp.Private)...)
	resp.Diagnostics.Append(forgetSeen(ctx, resp.Private)...)
}

func (r *federatedObjectResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state federatedObjectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, &plan, &state, timeoutOf(plan.Timeouts, func(t *timeoutsModel) types.String { return t.Update }), &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(forgetReplacement(ctx, resp.Private)...)
	resp.Diagnostics.Append(forgetSeen(ctx, resp.Private)...)
}

// apply carries out the plan: the changed clusters get their rendered
// object, the clusters that left get theirs removed, in parallel; then the
// host's Federated<Kind> records the spec and each cluster's status. plan
// becomes the new state and records exactly what each cluster holds.
func (r *federatedObjectResource) apply(ctx context.Context, plan, prior *federatedObjectModel, timeout time.Duration, diags *diagnostics) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reg, err := r.data.bootstrappedRegistry(ctx)
	if err != nil {
		diags.AddError("Cannot write the federated object", err.Error())
		return
	}
	in, inDiags := r.inputs(ctx, plan, true)
	diags.Append(inDiags...)
	if diags.HasError() {
		return
	}
	snapshot, err := r.data.clusterSnapshot(ctx)
	if err != nil {
		diags.AddError("Cannot read the registered clusters", err.Error())
		return
	}
	if plan.Rendered.IsUnknown() || plan.PlacedClusters.IsUnknown() {
		// The plan left these to apply because an input was unknown then;
		// now every input is known.
		out := r.desired(ctx, in, snapshot, nil, false, diags)
		if diags.HasError() {
			return
		}
		plan.PlacedClusters = stringSet(out.placed)
		plan.Rendered = stringMap(out.rendered)
	}
	plan.ID = types.StringValue(in.id)

	placed := setStrings(plan.PlacedClusters)
	want := mapStrings(plan.Rendered)
	had := map[string]string{}
	priorStatus := map[string]clusterStatus{}
	if prior != nil {
		had = mapStrings(prior.Rendered)
		priorStatus = statusMap(prior.ClusterStatus)
	}
	opts := r.options(plan.ForceConflicts.ValueBool(), timeout)
	orphan := plan.DeletionPolicy.ValueString() == deletionOrphan

	type job struct {
		apply   bool
		payload []byte
	}
	jobs := map[string]job{}
	status := map[string]clusterStatus{}
	for cluster, display := range want {
		if had[cluster] == display {
			continue
		}
		payload, err := in.payload(snapshot, cluster, display)
		if err != nil {
			status[cluster] = clusterStatus{Status: propagation.StatusUpdateFailed, Message: err.Error()}
			continue
		}
		jobs[cluster] = job{apply: true, payload: payload}
	}
	for cluster := range had {
		if _, stays := want[cluster]; !stays && !slices.Contains(placed, cluster) {
			jobs[cluster] = job{}
		}
	}

	var members []propagation.Member
	for _, cluster := range slices.Sorted(maps.Keys(jobs)) {
		m, err := r.member(snapshot, cluster)
		if errors.Is(err, errNotRegistered) && !jobs[cluster].apply {
			diags.AddWarning(fmt.Sprintf("Cluster %q is no longer registered", cluster),
				fmt.Sprintf("%s stays on cluster %q: the cluster left the registry, so the provider cannot reach it to remove it.", in.object, cluster))
			delete(had, cluster)
			continue
		}
		if err != nil {
			status[cluster] = clusterStatus{Status: failedStatus(jobs[cluster].apply, had[cluster] != ""), Message: err.Error()}
			continue
		}
		members = append(members, m)
	}
	results := propagation.FanOut(ctx, members, opts, func(ctx context.Context, m propagation.Member) propagation.Result {
		j := jobs[m.Name]
		if j.apply {
			return propagation.Apply(ctx, m, in.object, j.payload, had[m.Name] != "", opts)
		}
		return propagation.Remove(ctx, m, in.object, orphan, opts)
	})

	// The new state: what each cluster holds now.
	now := maps.Clone(had)
	for cluster, display := range want {
		if had[cluster] == display {
			status[cluster] = carriedStatus(priorStatus, cluster)
		}
	}
	for _, res := range results {
		addServerWarnings(diags, in.object, res)
		if res.Err != nil {
			status[res.Cluster] = clusterStatus{Status: res.Status, Message: res.Err.Error()}
			continue
		}
		if jobs[res.Cluster].apply {
			now[res.Cluster] = want[res.Cluster]
			status[res.Cluster] = clusterStatus{Status: propagation.StatusOK}
		} else {
			delete(now, res.Cluster)
		}
	}
	for _, cluster := range placed {
		if _, ok := want[cluster]; !ok {
			status[cluster] = clusterStatus{Status: propagation.StatusClusterNotReady,
				Message: "the cluster was not ready when the plan was made; the next plan after it recovers places the object"}
		}
	}
	plan.Rendered = stringMap(now)
	plan.ClusterStatus = statusValue(status, diags)

	hostStatus := map[string]string{}
	for cluster, s := range status {
		hostStatus[cluster] = s.Status
	}
	host := in.hostObject(hostStatus)
	if err := reg.ApplyFederatedObject(ctx, in.ft, host, host.Namespace != "" && r.data.hostNamespaceEnsured(host.Namespace)); err != nil {
		diags.AddError("Cannot write the federated object to the host", err.Error())
	}

	var failed []string
	for _, cluster := range slices.Sorted(maps.Keys(status)) {
		s := status[cluster]
		if s.Message != "" && s.Status != propagation.StatusOK && s.Status != propagation.StatusClusterNotReady {
			failed = append(failed, fmt.Sprintf("cluster %q (%s): %s", cluster, s.Status, s.Message))
		}
	}
	if len(failed) > 0 {
		diags.AddError(fmt.Sprintf("Propagation of %s failed on %d cluster(s)", in.object, len(failed)),
			strings.Join(failed, "\n")+"\n\nThe other clusters were updated; the state records what each cluster holds, "+
				"so the next plan shows only the remaining work.")
	}
}

func (r *federatedObjectResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state federatedObjectModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reg, err := r.data.registry(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the federated object from the host", err.Error())
		return
	}
	importing := state.Template.IsNull()
	if importing {
		if !r.importFromHost(ctx, reg, &state, &resp.Diagnostics) {
			if !resp.Diagnostics.HasError() {
				resp.State.RemoveResource(ctx)
			}
			return
		}
	}
	in, diags := r.inputs(ctx, &state, true)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	hostNamespace, hostName := registry.FederatedObjectLocation(in.ft, in.identity.Namespace, in.identity.Name)
	if _, err := reg.GetFederatedObject(ctx, in.ft, hostNamespace, hostName); errors.Is(err, registry.ErrNotFound) {
		tflog.Info(ctx, "the federated object is gone from the host; removing it from the state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	} else if err != nil {
		resp.Diagnostics.AddError("Cannot read the federated object from the host", err.Error())
		return
	}
	snapshot, err := r.data.clusterSnapshot(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the registered clusters", err.Error())
		return
	}

	held := mapStrings(state.Rendered)
	if importing {
		// Nothing was applied by this state yet: the live objects are
		// projected onto what the placement would send them.
		out := r.desired(ctx, in, snapshot, nil, false, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		held = out.rendered
		state.PlacedClusters = stringSet(out.placed)
	}
	now := r.readMembers(ctx, in, snapshot, held, &resp.Diagnostics)
	state.Rendered = stringMap(now)
	if !importing {
		resp.Diagnostics.Append(noteSeen(ctx, resp.Private, snapshot.Names())...)
	}
	if state.ClusterStatus.IsNull() || state.ClusterStatus.IsUnknown() {
		status := map[string]clusterStatus{}
		for cluster := range now {
			status[cluster] = clusterStatus{Status: propagation.StatusOK}
		}
		state.ClusterStatus = statusValue(status, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// readMembers fetches the object from each cluster in held, in parallel,
// and returns what each holds, projected onto what was applied there. An
// object deleted out of band drops out, so the plan re-creates it; an
// unreachable cluster keeps its entry, with a warning.
func (r *federatedObjectResource) readMembers(ctx context.Context, in *objectInputs, snapshot *registry.Snapshot, held map[string]string, diags *diagnostics) map[string]string {
	now := map[string]string{}
	applied := map[string]map[string]any{}
	var members []propagation.Member
	for _, cluster := range slices.Sorted(maps.Keys(held)) {
		obj, err := decodeObject(held[cluster])
		m, merr := r.member(snapshot, cluster)
		if err != nil || merr != nil {
			now[cluster] = held[cluster]
			if merr != nil && !errors.Is(merr, errNotRegistered) {
				diags.AddWarning(fmt.Sprintf("Cannot read %s on cluster %q", in.object, cluster), merr.Error())
			}
			continue
		}
		applied[cluster] = obj
		members = append(members, m)
	}
	opts := r.options(false, r.data.settings.RequestTimeout)
	results := propagation.FanOut(ctx, members, opts, func(ctx context.Context, m propagation.Member) propagation.Result {
		return propagation.Read(ctx, m, in.object, applied[m.Name], opts)
	})
	for _, res := range results {
		switch {
		case res.Err != nil:
			now[res.Cluster] = held[res.Cluster]
			diags.AddWarning(fmt.Sprintf("Cluster %q could not be read", res.Cluster),
				"The state keeps what the cluster last held. "+res.Err.Error())
		case res.Found:
			display, err := in.canonical(res.Live)
			if err != nil {
				now[res.Cluster] = held[res.Cluster]
				diags.AddWarning(fmt.Sprintf("Cannot compare %s on cluster %q", in.object, res.Cluster), err.Error())
				continue
			}
			now[res.Cluster] = display
		}
	}
	return now
}

func (r *federatedObjectResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state federatedObjectModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout := timeoutOf(state.Timeouts, func(t *timeoutsModel) types.String { return t.Delete })
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reg, err := r.data.registry(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the federated object", err.Error())
		return
	}
	in, diags := r.inputs(ctx, &state, false)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	snapshot, err := r.data.clusterSnapshot(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the registered clusters", err.Error())
		return
	}
	// The first half of a replacement leaves the object where the second
	// half re-applies it, and the host's record for it to take over.
	staying, replaced := replacedBy(ctx, req.Private, state.ID.ValueString())
	if replaced {
		tflog.Info(ctx, "replacing the federated object in place: removing it only from the clusters that leave the placement",
			map[string]any{"id": state.ID.ValueString(), "staying": staying})
	}
	var members []propagation.Member
	for _, cluster := range slices.Sorted(maps.Keys(mapStrings(state.Rendered))) {
		if slices.Contains(staying, cluster) {
			continue
		}
		m, err := r.member(snapshot, cluster)
		if errors.Is(err, errNotRegistered) {
			resp.Diagnostics.AddWarning(fmt.Sprintf("Cluster %q is no longer registered", cluster),
				fmt.Sprintf("%s stays on cluster %q: the cluster left the registry.", in.object, cluster))
			continue
		}
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("Cannot remove %s from cluster %q", in.object, cluster), err.Error())
			continue
		}
		members = append(members, m)
	}
	opts := r.options(false, timeout)
	orphan := state.DeletionPolicy.ValueString() == deletionOrphan
	results := propagation.FanOut(ctx, members, opts, func(ctx context.Context, m propagation.Member) propagation.Result {
		return propagation.Remove(ctx, m, in.object, orphan, opts)
	})
	if err := propagation.Errors(results); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Cannot remove %s from every cluster", in.object), err.Error())
	}
	if resp.Diagnostics.HasError() || replaced {
		return
	}
	hostNamespace, hostName := registry.FederatedObjectLocation(in.ft, in.identity.Namespace, in.identity.Name)
	if err := reg.DeleteFederatedObject(ctx, in.ft, hostNamespace, hostName); err != nil {
		resp.Diagnostics.AddError("Cannot remove the federated object from the host", err.Error())
	}
}

// ImportState takes `<type>/<namespace>/<name>` or `<type>/<name>`; Read
// then fills the rest from the host's Federated<Kind>.
func (r *federatedObjectResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	parts := strings.Split(req.ID, "/")
	if len(parts) < 2 || len(parts) > 3 || slices.Contains(parts, "") {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("%q: write <type>/<namespace>/<name>, e.g. deployments.apps/web/web, or <type>/<name> for a cluster-scoped type.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("type"), parts[0])...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("deletion_policy"), deletionDelete)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("force_conflicts"), false)...)
}

// options are the propagation settings of one operation.
func (r *federatedObjectResource) options(force bool, timeout time.Duration) propagation.Options {
	return propagation.Options{
		FieldManager: r.data.settings.FieldManager,
		Force:        force,
		MaxParallel:  r.data.settings.MaxParallelClusters,
		Timeout:      timeout,
	}
}

var errNotRegistered = errors.New("the cluster is not registered")

// member returns the cached clients of a registered cluster.
func (r *federatedObjectResource) member(snapshot *registry.Snapshot, cluster string) (propagation.Member, error) {
	c, ok := snapshot.Cluster(cluster)
	if !ok {
		return propagation.Member{}, fmt.Errorf("cluster %q: %w", cluster, errNotRegistered)
	}
	if c.Connection.APIEndpoint == "" {
		return propagation.Member{}, fmt.Errorf("cluster %q has no API endpoint yet; it is registered in this run", cluster)
	}
	clients, err := r.data.memberClients(cluster, c.Connection)
	if err != nil {
		return propagation.Member{}, err
	}
	return propagation.Member{Name: cluster, Clients: clients}, nil
}

func failedStatus(apply, existed bool) string {
	switch {
	case !apply:
		return propagation.StatusDeletionFailed
	case existed:
		return propagation.StatusUpdateFailed
	default:
		return propagation.StatusCreationFailed
	}
}

func carriedStatus(prior map[string]clusterStatus, cluster string) clusterStatus {
	if s, ok := prior[cluster]; ok && s.Status != propagation.StatusClusterNotReady {
		return s
	}
	return clusterStatus{Status: propagation.StatusOK}
}

func timeoutOf(t *timeoutsModel, pick func(*timeoutsModel) types.String) time.Duration {
	if t == nil {
		return defaultOperationTimeout
	}
	v := pick(t)
	if v.IsNull() || v.IsUnknown() {
		return defaultOperationTimeout
	}
	d, err := time.ParseDuration(v.ValueString())
	if err != nil || d <= 0 {
		return defaultOperationTimeout
	}
	return d
}
