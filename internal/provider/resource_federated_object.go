package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*federatedObjectResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*federatedObjectResource)(nil)
	_ resource.ResourceWithImportState    = (*federatedObjectResource)(nil)
	_ resource.ResourceWithValidateConfig = (*federatedObjectResource)(nil)
)

// Deletion policies.
const (
	deletionDelete = objectset.DeletionPolicyDelete
	deletionOrphan = objectset.DeletionPolicyOrphan
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

func (r *federatedObjectResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_federated_object"
}

func (r *federatedObjectResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: renderedByObjectVersion,
		Description: "A Kubernetes object federated to member clusters, KubeFed style: one template, a placement and per-cluster " +
			"overrides. The plan shows, for each placed cluster, the exact object it receives (`rendered`).",
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
				Validators:    []validator.String{dnsSubdomainValidator{}},
			},
			"template": schema.StringAttribute{
				Optional:   true,
				CustomType: templateType{},
				Description: "The object to federate: one YAML or JSON document (`yamlencode(...)`, `jsonencode(...)` or `file(...)`) " +
					"with `apiVersion`, `kind`, `metadata.name` and, for namespaced types, `metadata.namespace`. A field whose value " +
					"is `null` is left out, as if absent, so `x = cond ? v : null` works. Documents are " +
					"compared decoded: a change of formatting alone changes no `rendered` object, so no cluster is touched, and " +
					"reading a template back never shows its formatting as drift. The plan shows it in clear text: a Secret is " +
					"refused here and goes in `sensitive_template`. Exactly one of the two is set.",
				Validators: []validator.String{stringvalidator.ExactlyOneOf(path.MatchRoot("sensitive_template"))},
			},
			"sensitive_template": schema.StringAttribute{
				Optional:   true,
				Sensitive:  true,
				CustomType: templateType{},
				Description: "The object to federate, as `template`, but hidden from the CLI's output (plan, apply, `show`): required " +
					"for a Secret, and right for any object whose template holds credentials. It is stored in the state in clear " +
					"text, as every sensitive value is; `rendered` shows digests of a Secret's values.",
			},
			"placement": placementAttribute(),
			"overrides": overridesAttribute(false),
			"cluster_replicas": schema.MapAttribute{
				Optional:    true,
				ElementType: types.Int64Type,
				Description: "Replica count per cluster, normally `kubefed_replica_scheduling_preference.x.replicas`. When set, the object " +
					"is placed on these clusters (those the placement also selects, when both are set) and each cluster's object carries its count.",
				Validators: []validator.Map{clusterKeysValidator{}},
			},
			"deletion_policy": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(deletionDelete),
				Description: "`Delete` (the default) deletes the object from a cluster on destroy and when the cluster leaves the placement, " +
					"and gives an adopted one back; `Orphan` leaves it there and removes its `kubefed.io/managed` label, like KubeFed's " +
					"orphan annotation; `DeleteAdopted` deletes adopted objects too.",
				Validators: deletionPolicyValidators(),
			},
			"adopt": adoptAttribute("the object"),
			"force_conflicts": schema.BoolAttribute{
				Optional:    true,
				Computed:    true,
				Default:     booldefault.StaticBool(false),
				Description: "Take over fields that another field manager owns on a member instead of failing. Defaults to false.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{
				Create: true, Update: true, Delete: true,
				CreateDescription: "How long create may take, as a Go duration (`\"90s\"`, `\"10m\"`); defaults to 5m. The bound applies to every cluster on its own.",
				UpdateDescription: "How long update may take; defaults to 5m.",
				DeleteDescription: "How long delete may take; defaults to 5m.",
			}),
			"retain_replicas": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				Description: "Leave `spec.replicas` to the member where the object exists already, as KubeFed's `retainReplicas` does: " +
					"an autoscaler there owns it, the provider neither sets nor reads it back. New objects get the template's (or " +
					"`cluster_replicas`') count. Defaults to false.",
			},
			"ignore_fields":    ignoreFieldsAttribute(),
			"wait":             waitAttribute(),
			"rollout_strategy": rolloutStrategyAttribute(),
			"rollout_plan":     rolloutPlanAttribute(),
			// A map of objects rather than nested attributes: Terraform 1.5 and OpenTofu 1.10 crash generating
			// configuration (plan -generate-config-out) for a resource with a computed-only nested attribute.
			"cluster_health": schema.MapAttribute{
				Computed:    true,
				ElementType: healthType,
				Description: "For each cluster that holds the object, when it is a workload (a Deployment, StatefulSet or DaemonSet) " +
					"or has `spec.replicas`, how it does there, as the last refresh or apply read it: " +
					"`ready` (whether it runs as it should: rolled out, for a workload), the counts `replicas`, `ready_replicas`, " +
					"`updated_replicas` and `available_replicas`, and a one-line `message`. A refresh that only changes health " +
					"changes no plan.",
			},
			"placed_clusters": placedClustersAttribute(),
			"rendered": schema.ObjectAttribute{
				Computed:       true,
				AttributeTypes: tfvalue.RenderedType.AttrTypes,
				Description: "What each cluster receives (planned) or holds (in state, projected onto the fields the provider sets): " +
					"the object as most clusters receive it, once, and how each other cluster's differs. " + renderedParts +
					" A Secret's values show as `sha256:` digests. A cluster that is not ready at plan time keeps its previous " +
					"entry, or none. Null when no cluster receives or holds the object.",
			},
			"cluster_status": schema.MapAttribute{
				Computed:    true,
				ElementType: clusterStatusType,
				Description: "For each cluster, the outcome of the last apply: `status` in KubeFed's words (`OK`, `ClusterNotReady`, " +
					"`CreationFailed`, `UpdateFailed`, `DeletionFailed`, ...), or `Unknown` when a write was cut off in flight, " +
					"and a `message`, empty when nothing went wrong. A plan gives `OK` to a cluster it writes to or waits for that holds the " +
					"object already, and leaves to the apply one that receives it for the first time.",
			},
		},
	}
}

// The attributes a federated object and an application share, each
// defined once.

func placementAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		Description: "Which member clusters receive the object, with KubeFed's semantics: `clusters` when set (an empty list " +
			"selects none), otherwise the clusters `cluster_selector` matches (`cluster_selector = {}` matches all); without " +
			"either, none.",
		Attributes: map[string]schema.Attribute{
			"clusters": schema.ListAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Names of registered clusters.",
				Validators:  []validator.List{listElements(dnsLabelValidator), uniqueNamesValidator{}},
			},
			"cluster_selector": clusterSelectorAttribute("Used when `clusters` is not set."),
		},
	}
}

func ignoreFieldsAttribute() schema.ListAttribute {
	return schema.ListAttribute{
		Optional:    true,
		ElementType: types.StringType,
		Description: "Field paths the provider neither applies nor compares, for fields other tools own on the members, " +
			"such as `metadata.annotations[\"sidecar.istio.io/status\"]` or `spec.template.spec.containers[0].resources`. " +
			"They are left out of `rendered`.",
		Validators: []validator.List{listElements(fieldPathValidator)},
	}
}

func rolloutPlanAttribute() schema.ListAttribute {
	return schema.ListAttribute{
		Computed:    true,
		ElementType: types.ListType{ElemType: types.StringType},
		Description: "The order in which apply updates the placed clusters, computed at plan time from `rollout_strategy`: " +
			"a list of stages, each a list of cluster names, e.g. `[[\"berlin\"], [\"new-york\", \"san-francisco\"]]`. " +
			"One stage of every cluster without a strategy.",
	}
}

func placedClustersAttribute() schema.SetAttribute {
	return schema.SetAttribute{
		Computed:    true,
		ElementType: types.StringType,
		Description: "The clusters the object is placed on, computed at plan time from the registry and the placement.",
	}
}

func (r *federatedObjectResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (r *federatedObjectResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan federatedObjectModel
	resp.Diagnostics.Append(objectModels.fromPlan(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.write(ctx, &plan, nil, plan.Timeouts.Create, &resp.Diagnostics) {
		resp.Diagnostics.Append(objectModels.toState(ctx, &resp.State, &plan)...)
		objectIdentity.set(ctx, resp.Identity, plan.ID, &resp.Diagnostics)
		resp.Diagnostics.Append(r.data.noteMemberEndpoints(ctx, resp.Private, sortedKeys(tfvalue.RenderedByCluster(plan.Rendered)))...)
	}
	resp.Diagnostics.Append(forgetNotes(ctx, resp.Private, replacementNote, registeredAtReadNote, plannedFromStateNote)...)
}

func (r *federatedObjectResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior federatedObjectModel
	resp.Diagnostics.Append(objectModels.fromPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(objectModels.fromState(ctx, req.State, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.data.dialMembersAhead(ctx, req.Private)...)
	if !r.write(ctx, &plan, &prior, plan.Timeouts.Update, &resp.Diagnostics) {
		plan = prior
	}
	resp.Diagnostics.Append(objectModels.toState(ctx, &resp.State, &plan)...)
	objectIdentity.set(ctx, resp.Identity, plan.ID, &resp.Diagnostics)
	resp.Diagnostics.Append(r.data.noteMemberEndpoints(ctx, resp.Private, sortedKeys(tfvalue.RenderedByCluster(plan.Rendered)))...)
	resp.Diagnostics.Append(forgetNotes(ctx, resp.Private, replacementNote, registeredAtReadNote, plannedFromStateNote)...)
}

// write is the body Create and Update share: it applies the plan within
// the operation's timeout and reports whether anything was written.
func (r *federatedObjectResource) write(ctx context.Context, plan, prior *federatedObjectModel,
	timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), diags *diag.Diagnostics) bool {
	d, tdiags := timeout(ctx, defaultOperationTimeout)
	diags.Append(tdiags...)
	if diags.HasError() {
		return false
	}
	return r.apply(ctx, plan, prior, d, diags)
}

func (r *federatedObjectResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state federatedObjectModel
	resp.Diagnostics.Append(objectModels.fromState(ctx, req.State, &state)...)
	timeout, diags := state.Timeouts.Delete(ctx, defaultOperationTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.data.dialMembersAhead(ctx, req.Private)...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	env := r.data.objects()
	o, set := r.object(ctx, env, &state, &resp.Diagnostics)
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the registered clusters", err.Error())
	}
	if resp.Diagnostics.HasError() {
		return
	}
	defer redactDiagnostics(&resp.Diagnostics, o.Secrets)
	// The first half of a replacement leaves the object where the second
	// half re-applies it, and the host's record for it to take over.
	note, diags := replacementNote.Load(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	staying, replaced := note.stayingFor(state.ID.ValueString())
	if replaced {
		tflog.Info(ctx, "replacing the federated object in place: removing it only from the clusters that leave the placement",
			map[string]any{"id": state.ID.ValueString(), "staying": staying})
		r.data.run.MarkReplacing(o.RunKey())
	}
	addProblems(&resp.Diagnostics, env.Remove(ctx, objectset.RemoveInput{Set: set, Snapshot: snapshot,
		Held: map[string]map[string]string{o.Key.String(): tfvalue.RenderedByCluster(state.Rendered)}, Staying: staying, KeepHost: replaced}), nil)
}

// ImportState takes `<type>/<namespace>/<name>` or `<type>/<name>`, as the
// ID or as the identity; Read then fills the rest from the host's
// Federated<Kind>.
func (r *federatedObjectResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, ok := objectIdentity.importID(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	parts := strings.Split(id, "/")
	if len(parts) < 2 || len(parts) > 3 || slices.Contains(parts, "") {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("%q: write <type>/<namespace>/<name>, e.g. deployments.apps/web/web, or <type>/<name> for a cluster-scoped type.", id))
		return
	}
	objectIdentity.set(ctx, resp.Identity, types.StringValue(id), &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("type"), parts[0])...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("deletion_policy"), deletionDelete)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("force_conflicts"), false)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("retain_replicas"), false)...)
}

// priorObject is the state a plan starts from, or nil for a create.
func priorObject(ctx context.Context, state tfsdk.State, diags *diag.Diagnostics) *federatedObjectModel {
	if state.Raw.IsNull() {
		return nil
	}
	prior := &federatedObjectModel{}
	diags.Append(objectModels.fromState(ctx, state, prior)...)
	return prior
}
