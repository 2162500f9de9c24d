package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

var (
	_ resource.ResourceWithConfigure   = (*federatedTypeResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*federatedTypeResource)(nil)
	_ resource.ResourceWithImportState = (*federatedTypeResource)(nil)
)

// NewFederatedTypeResource returns the kubefed_federated_type resource.
func NewFederatedTypeResource() resource.Resource {
	return &federatedTypeResource{}
}

type federatedTypeResource struct {
	data *providerData
}

type federatedTypeModel struct {
	ID                  types.String `tfsdk:"id"`
	TargetAPIVersion    types.String `tfsdk:"target_api_version"`
	TargetKind          types.String `tfsdk:"target_kind"`
	TargetPlural        types.String `tfsdk:"target_plural"`
	Namespaced          types.Bool   `tfsdk:"namespaced"`
	Propagation         types.String `tfsdk:"propagation"`
	StatusCollection    types.String `tfsdk:"status_collection"`
	Name                types.String `tfsdk:"name"`
	Plural              types.String `tfsdk:"plural"`
	FederatedAPIVersion types.String `tfsdk:"federated_api_version"`
	FederatedKind       types.String `tfsdk:"federated_kind"`
}

func (r *federatedTypeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_federated_type"
}

func (r *federatedTypeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	enabledDisabled := []validator.String{stringvalidator.OneOf(registry.Enabled, registry.Disabled)}
	resp.Schema = schema.Schema{
		Description: "Enables federation of a Kubernetes type, as `kubefedctl enable` does: a `FederatedTypeConfig` " +
			"(core.kubefed.io/v1beta1) named `<plural>.<group>` in the federation namespace of the host, and the " +
			"`Federated<Kind>` CRD (types.kubefed.io/v1beta1) whose objects carry a template, a placement and overrides. " +
			"The plural and scope of the type are resolved at plan time through the host's discovery. Destroy refuses " +
			"while `Federated<Kind>` objects remain, because removing the CRD would delete them, and otherwise returns " +
			"once the CRD is gone (within a minute), so that the type can be enabled again at once.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:    true,
				Description: "The FederatedTypeConfig's name.",
			},
			"target_api_version": schema.StringAttribute{
				Required:      true,
				Description:   "API version of the type to federate, e.g. `apps/v1`, or `v1` for the core group.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"target_kind": schema.StringAttribute{
				Required:      true,
				Description:   "Kind of the type to federate, e.g. `Deployment`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"target_plural": schema.StringAttribute{
				Optional:      true,
				Description:   "Plural resource name of the type, e.g. `deployments`. Needed, with `namespaced`, for a type the host does not serve (a CRD installed only on the members); otherwise discovered.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{stringvalidator.RegexMatches(pluralPattern,
					"must be a resource's plural name: lowercase letters, digits and '-', such as \"widgets\"")},
			},
			"namespaced": schema.BoolAttribute{
				Optional:      true,
				Computed:      true,
				Description:   "Whether the type is namespaced. Discovered from the host when not set.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"propagation": schema.StringAttribute{
				Optional:    true,
				Computed:    true,
				Default:     stringdefault.StaticString(registry.Enabled),
				Description: "`Enabled` (the default) pushes objects of the type to the member clusters; `Disabled` keeps them in the host only.",
				Validators:  enabledDisabled,
			},
			"status_collection": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString(registry.Disabled),
				Description: "`Enabled` or `Disabled` (the default): with `Enabled`, each apply of an object of this type records every " +
					"cluster's own status of it in the host's `Federated<Kind>` (`status.clusters[].remoteStatus`, as KubeFed does), so " +
					"`kubectl get federated<kind> -o yaml` on the host shows it as of that apply.",
				Validators: enabledDisabled,
			},
			"name": schema.StringAttribute{
				Computed:    true,
				Description: "Name of the FederatedTypeConfig: `<plural>.<group>`, or `<plural>` for the core group.",
			},
			"plural": schema.StringAttribute{
				Computed:    true,
				Description: "Plural resource name of the type, as given or discovered.",
			},
			"federated_api_version": schema.StringAttribute{
				Computed:    true,
				Description: "API version of the federated type: `types.kubefed.io/v1beta1`.",
			},
			"federated_kind": schema.StringAttribute{
				Computed:    true,
				Description: "Kind of the federated type: `Federated<Kind>`.",
			},
		},
	}
}

func (r *federatedTypeResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan resolves the type's plural and scope, so that the names of the
// FederatedTypeConfig and the federated type are in the plan.
func (r *federatedTypeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.data == nil || req.Plan.Raw.IsNull() {
		return
	}
	r.data.warnInterruptedJoins(ctx, &resp.Diagnostics)
	var plan federatedTypeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// namespaced is computed, so only its configured value says whether
	// the user set it.
	var configNamespaced types.Bool
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("namespaced"), &configNamespaced)...)
	if resp.Diagnostics.HasError() || plan.TargetAPIVersion.IsUnknown() || plan.TargetKind.IsUnknown() ||
		plan.TargetPlural.IsUnknown() || configNamespaced.IsUnknown() {
		return
	}
	namespaced := configNamespaced.ValueBoolPointer()
	if (plan.TargetPlural.IsNull() || namespaced == nil) && !r.data.hostKnown() {
		resp.Diagnostics.AddWarning("The type is resolved at apply",
			"The host cannot be contacted before apply, so the plural and scope of "+plan.TargetKind.ValueString()+
				" are not known yet. Set target_plural and namespaced to know them now.")
		return
	}
	target, err := r.resolve(ctx, plan.TargetAPIVersion.ValueString(), plan.TargetKind.ValueString(), plan.TargetPlural.ValueString(), namespaced)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("target_kind"), "Cannot resolve the type to federate", err.Error())
		return
	}
	ft := registry.NewFederatedType(target, plan.Propagation.ValueString(), plan.StatusCollection.ValueString())
	setTypeComputed(&plan, ft)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(plannedFromStateNote.Save(ctx, resp.Private, typeKey(ft.Name()))...)
	} else if r.data.checkedAtPlan(true) && !noteHolds(ctx, req.Private, plannedFromStateNote, typeKey(ft.Name()), &resp.Diagnostics) {
		r.refuseExisting(ctx, ft.Name(), &resp.Diagnostics)
	}
	// Objects planned after this type see it as planned, so that one run can
	// enable a type, or turn its propagation off, and plan its objects.
	r.data.run.PlanType(ft)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *federatedTypeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan federatedTypeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if !plan.Name.IsUnknown() {
		r.data.claimCreate(typeKey(plan.Name.ValueString()), "FederatedTypeConfig "+plan.Name.ValueString(), path.Root("target_kind"), &resp.Diagnostics)
		r.refuseExisting(ctx, plan.Name.ValueString(), &resp.Diagnostics)
	}
	if r.write(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		typeIdentity.set(ctx, resp.Identity, plan.ID, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(plannedFromStateNote.Forget(ctx, resp.Private)...)
}

func (r *federatedTypeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan federatedTypeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if r.write(ctx, &plan, &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		typeIdentity.set(ctx, resp.Identity, plan.ID, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(plannedFromStateNote.Forget(ctx, resp.Private)...)
}

func (r *federatedTypeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state federatedTypeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	typeIdentity.set(ctx, resp.Identity, state.ID, &resp.Diagnostics)
	reg := r.data.registryFor(ctx, "Cannot read the federated type from the host", &resp.Diagnostics)
	if reg == nil {
		return
	}
	ft, err := reg.GetType(ctx, state.ID.ValueString())
	if errors.Is(err, registry.ErrNotFound) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the federated type from the host", err.Error())
		return
	}
	state.TargetAPIVersion = types.StringValue(ft.Target.APIVersion())
	state.TargetKind = types.StringValue(ft.Target.Kind)
	if !state.TargetPlural.IsNull() {
		state.TargetPlural = types.StringValue(ft.Target.Plural)
	}
	state.Propagation = types.StringValue(ft.Propagation)
	state.StatusCollection = types.StringValue(ft.StatusCollection)
	setTypeComputed(&state, *ft)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	r.data.prefetchObjectsOf(ctx, *ft)
}

func (r *federatedTypeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state federatedTypeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	reg := r.data.registryFor(ctx, "Cannot remove the federated type from the host", &resp.Diagnostics)
	if reg == nil {
		return
	}
	if err := reg.DeleteType(ctx, typeFromModel(&state)); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Cannot remove the federated type %s", state.Name.ValueString()), err.Error())
	}
}

// ImportState takes the FederatedTypeConfig's name, as the ID or as the
// identity.
func (r *federatedTypeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name, ok := typeIdentity.importID(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
	typeIdentity.set(ctx, resp.Identity, types.StringValue(name), &resp.Diagnostics)
}

func (r *federatedTypeResource) resolve(ctx context.Context, apiVersion, kind, plural string, namespaced *bool) (registry.APIResource, error) {
	reg, err := r.data.registry(ctx)
	if err != nil {
		return registry.APIResource{}, err
	}
	target, err := reg.ResolveTarget(apiVersion, kind, plural, namespaced)
	if errors.Is(err, registry.ErrUnresolvedType) {
		return target, fmt.Errorf("%w; check target_api_version and target_kind, or, for a type the host does not serve "+
			"(a CRD installed only on the members), set target_plural and namespaced", err)
	}
	return target, err
}

// write is the body Create and Update share: it writes the planned type
// and fills its computed attributes, reporting whether it did.
func (r *federatedTypeResource) write(ctx context.Context, plan *federatedTypeModel, diags *diag.Diagnostics) bool {
	if diags.HasError() {
		return false
	}
	reg, err := r.data.bootstrappedRegistry(ctx)
	if err != nil {
		diags.AddError("Cannot write the federated type to the host", err.Error())
		return false
	}
	// Resolved again because the plan may have left it to apply.
	target, err := r.resolve(ctx, plan.TargetAPIVersion.ValueString(), plan.TargetKind.ValueString(), plan.TargetPlural.ValueString(), plan.Namespaced.ValueBoolPointer())
	if err != nil {
		diags.AddAttributeError(path.Root("target_kind"), "Cannot resolve the type to federate", err.Error())
		return false
	}
	ft := registry.NewFederatedType(target, plan.Propagation.ValueString(), plan.StatusCollection.ValueString())
	if err := reg.ApplyType(ctx, ft); err != nil {
		diags.AddError("Cannot write the federated type to the host", err.Error())
		return false
	}
	setTypeComputed(plan, ft)
	return true
}

// pluralPattern is the shape of a resource's plural name (DNS-1035 label).
var pluralPattern = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// typeKey names a type among the run's replacements.
func typeKey(name string) string { return "FederatedTypeConfig/" + name }

// refuseExisting fails a create of a type the host has enabled.
func (r *federatedTypeResource) refuseExisting(ctx context.Context, name string, diags *diag.Diagnostics) {
	lookup := func(ctx context.Context) error {
		reg, err := r.data.registry(ctx)
		if err == nil {
			_, err = reg.GetType(ctx, name)
		}
		return err
	}
	refuseExisting(ctx, lookup, fmt.Sprintf("FederatedTypeConfig %s/%s", r.data.settings.FederationNamespace, name), name, path.Root("target_kind"), diags)
}

func setTypeComputed(m *federatedTypeModel, ft registry.FederatedType) {
	m.ID = types.StringValue(ft.Name())
	m.Name = types.StringValue(ft.Name())
	m.Plural = types.StringValue(ft.Target.Plural)
	m.Namespaced = types.BoolValue(ft.Target.Namespaced)
	m.FederatedAPIVersion = types.StringValue(ft.Federated.APIVersion())
	m.FederatedKind = types.StringValue(ft.Federated.Kind)
}

func typeFromModel(m *federatedTypeModel) registry.FederatedType {
	gv, _ := k8sschema.ParseGroupVersion(m.TargetAPIVersion.ValueString())
	return registry.FederatedType{
		Target: registry.APIResource{Group: gv.Group, Version: gv.Version, Kind: m.TargetKind.ValueString(), Plural: m.Plural.ValueString()},
		Federated: registry.APIResource{
			Group: registry.FederatedGroup, Version: registry.FederatedVersion,
			Kind: m.FederatedKind.ValueString(), Plural: "federated" + m.Plural.ValueString(),
		},
	}
}
