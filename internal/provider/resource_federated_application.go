package provider

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
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

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*federatedApplicationResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*federatedApplicationResource)(nil)
	_ resource.ResourceWithImportState    = (*federatedApplicationResource)(nil)
	_ resource.ResourceWithValidateConfig = (*federatedApplicationResource)(nil)
)

// NewFederatedApplicationResource returns the kubefed_federated_application
// resource.
func NewFederatedApplicationResource() resource.Resource {
	return &federatedApplicationResource{}
}

// federatedApplicationResource federates a set of objects as one: the
// pipeline that plans, writes, waits for and records a
// kubefed_federated_object (objectset) takes the whole set, and rolls it out
// together, cluster stage by cluster stage, in dependency order on each
// cluster.
type federatedApplicationResource struct {
	data *providerData
}

func (r *federatedApplicationResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_federated_application"
}

func (r *federatedApplicationResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (r *federatedApplicationResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, Description: "The application's name.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": schema.StringAttribute{
			Required: true,
			Description: "The application's name, unique in the federation: every host record of its objects carries it as the " +
				"label `kubefed.terraform.io/application`, and `terraform import` takes it.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{dnsLabelValidator},
		},
		"manifests": schema.ListAttribute{
			Optional:    true,
			ElementType: types.StringType,
			Description: "The objects of the application: each element one or more YAML or JSON documents separated by `---` lines, " +
				"so `yamlencode(...)`, `file(...)` and the output of `helm template` work as they are. Empty and comment-only " +
				"documents are skipped; a `List` stands for its items. Each object needs `apiVersion`, `kind`, `metadata.name` and, " +
				"for namespaced kinds, `metadata.namespace` or `default_namespace`; each object appears once. Helm's hooks and " +
				"tests (annotation `helm.sh/hook`) are left out, with a warning. A field whose value is `null` is left " +
				"out, as in `kubefed_federated_object`'s `template`. A Secret goes in `sensitive_manifests`.",
		},
		"default_namespace": schema.StringAttribute{
			Optional: true,
			Description: "The namespace of the objects of a namespaced kind that name none, as `helm install -n` gives it: " +
				"`rendered` shows them in it. Objects that name a namespace keep theirs; cluster-scoped kinds get none.",
			Validators: []validator.String{dnsLabelValidator},
		},
		"sensitive_manifests": schema.ListAttribute{
			Optional:    true,
			Sensitive:   true,
			ElementType: types.StringType,
			Description: "Objects as in `manifests`, hidden from the CLI's output: required for Secrets. `rendered` shows digests of a Secret's values.",
		},
		"manifest_objects": schema.DynamicAttribute{
			Optional: true,
			Description: "Objects of the application given as values rather than text: an object or map whose values are " +
				"Kubernetes objects, as `yamldecode(file(...))` or `provider::kubefed::decode_manifests(...)` give them, under keys " +
				"of your choosing. A plan shows a change of one of them as the fields that change, where the CLI prints a changed " +
				"element of `manifests` whole. Used with `manifests` and `sensitive_manifests` or instead of them; a field whose value " +
				"is `null` is left out; a Secret goes in `sensitive_manifests`.",
		},
		"overrides": overridesAttribute(true),
		"replicas_object": schema.SingleNestedAttribute{
			Optional: true,
			Description: "The Deployment, StatefulSet or ReplicaSet `cluster_replicas` sets the replicas of, when the set holds " +
				"several; with one, that one.",
			Attributes: objectRefAttributes(),
		},
		"cluster_replicas": schema.MapAttribute{
			Optional:    true,
			ElementType: types.Int64Type,
			Description: "Replica count per cluster, normally `kubefed_replica_scheduling_preference.x.replicas`, for the set's " +
				"workload (`replicas_object`). When set, the application is placed on these clusters (those the placement also " +
				"selects, when both are set).",
			Validators: []validator.Map{clusterKeysValidator{}},
		},
		"deletion_policy": schema.StringAttribute{
			Optional: true, Computed: true, Default: stringdefault.StaticString(deletionDelete),
			Description: "`Delete` (the default) deletes the objects from a cluster on destroy, when the cluster leaves the " +
				"placement and when an object leaves `manifests`, and gives adopted ones back; `Orphan` leaves them there and removes " +
				"their `kubefed.io/managed` label; `DeleteAdopted` deletes adopted objects too.",
			Validators: deletionPolicyValidators(),
		},
		"adopt": adoptAttribute("an object of the set"),
		"adopt_objects": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: objectRefAttributes()},
			Description: "The objects of the set to adopt, as `adopt = true` does for all of them: each names one object, as " +
				"`overrides[*].object` does. The plan refuses any other object a cluster holds already.",
			Validators: []validator.List{listvalidator.ConflictsWith(path.MatchRoot("adopt"))}},
		"force_conflicts": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			Description: "Take over fields that another field manager owns on a member instead of failing. Defaults to false."},
		"retain_replicas": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			Description: "Leave `spec.replicas` of the set's workloads to the members where they exist already, as on " +
				"`kubefed_federated_object`. Defaults to false."},
		"timeouts": timeouts.Attributes(ctx, timeouts.Opts{
			Create: true, Update: true, Delete: true,
			CreateDescription: "How long create may take, as a Go duration; defaults to 5m.",
			UpdateDescription: "How long update may take; defaults to 5m.",
			DeleteDescription: "How long delete may take; defaults to 5m.",
		}),
		"objects": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			Description: "The keys of the set's objects (`<group>/<version>/<Kind>/<namespace>/<name>`, no namespace part for " +
				"cluster-scoped ones), in the order each cluster receives them."},
		"rendered": schema.MapAttribute{Computed: true, ElementType: tfvalue.RenderedType,
			Description: "For each object key, what each cluster receives (planned) or holds (in state), as `rendered` of a " +
				"federated object: the object as most clusters receive it, once, and how each other cluster's differs. " + renderedParts},
		"cluster_status": schema.MapAttribute{Computed: true, ElementType: types.MapType{ElemType: clusterStatusType},
			Description: "For each cluster, for each object key, the outcome of the last apply, as `cluster_status` of a federated " +
				"object. A plan gives `OK` to an object a cluster holds already and the apply writes to or waits for there, and leaves to " +
				"the apply only an object a cluster receives for the first time."},
		"cluster_health": schema.MapAttribute{Computed: true, ElementType: types.MapType{ElemType: healthType},
			Description: "For each cluster, for each object key of a workload (a Deployment, StatefulSet or DaemonSet) or of an " +
				"object with `spec.replicas`, how it does there, as `cluster_health` of a federated object."},
		"host_records": schema.MapAttribute{Computed: true, ElementType: types.StringType,
			Description: "For each object key, how the host's `Federated<Kind>` record of the object compares with what the " +
				"configuration writes: `current`, or, after a refresh, `missing` or `differs: ` and the parts that differ, or " +
				"`not written` after an apply that could not write it. A plan sets each to `current`; the apply rewrites the records."},
		"rollout_strategy": applicationRolloutStrategyAttribute(),
	}
	attrs["placement"] = placementAttribute()
	attrs["ignore_fields"] = ignoreFieldsAttribute()
	attrs["wait"] = waitAttribute()
	attrs["placed_clusters"] = placedClustersAttribute()
	attrs["rollout_plan"] = rolloutPlanAttribute()
	resp.Schema = schema.Schema{
		Version: renderedByObjectVersion,
		Description: "A set of Kubernetes objects federated as one application: one placement, per-object and per-cluster " +
			"overrides, one staged rollout of the whole set in dependency order, pruning of objects that leave the set. " +
			"Each object is recorded in the host as KubeFed's `Federated<Kind>`, labelled with the application's name.",
		Attributes: attrs,
	}
}

// objectRefAttributes name one object of a set.
func objectRefAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"kind":        schema.StringAttribute{Required: true, Description: "The object's kind, e.g. `Deployment`."},
		"name":        schema.StringAttribute{Required: true, Description: "The object's name."},
		"namespace":   schema.StringAttribute{Optional: true, Description: "The object's namespace, when several objects share kind and name."},
		"api_version": schema.StringAttribute{Optional: true, Description: "The object's apiVersion, when needed to tell objects apart."},
	}
}

// applicationRolloutStrategyAttribute is rollout_strategy with what a
// failed stage does to the set.
func applicationRolloutStrategyAttribute() schema.SingleNestedAttribute {
	a := rolloutStrategyAttribute()
	a.Description = "Update clusters in stages, the whole set on each cluster of a stage: a stage passes when every waited " +
		"object passed on every one of its clusters. Objects removed from the set are removed after the last stage."
	a.Attributes = maps.Clone(a.Attributes)
	a.Attributes["on_failure"] = schema.StringAttribute{
		Optional: true,
		Description: "What a failed stage leaves: `stop` (the default) stops the rollout, so later stages keep every object as it " +
			"was; `rollback` also gives the failed stage's clusters back the set the state recorded before the apply (objects " +
			"the apply added are removed, changed ones written as they were).",
		Validators: []validator.String{stringvalidator.OneOf(objectset.OnFailureStop, objectset.OnFailureRollback)},
	}
	return a
}

// ImportState takes the application's name; Read rebuilds the set from
// the host's records labelled with it.
func (r *federatedApplicationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, ok := applicationIdentity.importID(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	if err := dnsLabelValidator.check(id); err != nil {
		resp.Diagnostics.AddError("Invalid import ID", "The import ID is the application's name: "+err.Error())
		return
	}
	applicationIdentity.set(ctx, resp.Identity, types.StringValue(id), &resp.Diagnostics)
	for name, v := range map[string]attr.Value{
		"id": types.StringValue(id), "name": types.StringValue(id),
		"deletion_policy": types.StringValue(deletionDelete), "force_conflicts": types.BoolValue(false),
		"retain_replicas": types.BoolValue(false),
	} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
}
