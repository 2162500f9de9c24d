package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

var (
	_ resource.ResourceWithConfigure        = (*federationClusterResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*federationClusterResource)(nil)
	_ resource.ResourceWithImportState      = (*federationClusterResource)(nil)
	_ resource.ResourceWithConfigValidators = (*federationClusterResource)(nil)
)

// NewFederationClusterResource returns the kubefed_federation_cluster resource.
func NewFederationClusterResource() resource.Resource {
	return &federationClusterResource{}
}

type federationClusterResource struct {
	data *providerData
}

type federationClusterModel struct {
	ID                     types.String `tfsdk:"id"`
	Name                   types.String `tfsdk:"name"`
	APIEndpoint            types.String `tfsdk:"api_endpoint"`
	CABundle               types.String `tfsdk:"ca_bundle"`
	Token                  types.String `tfsdk:"token"`
	ClientCertificate      types.String `tfsdk:"client_certificate"`
	ClientKey              types.String `tfsdk:"client_key"`
	Labels                 types.Map    `tfsdk:"labels"`
	DisabledTLSValidations types.List   `tfsdk:"disabled_tls_validations"`
	ProxyURL               types.String `tfsdk:"proxy_url"`
	RequireReady           types.Bool   `tfsdk:"require_ready"`
	SecretName             types.String `tfsdk:"secret_name"`
	Ready                  types.Bool   `tfsdk:"ready"`
	Offline                types.Bool   `tfsdk:"offline"`
	KubernetesVersion      types.String `tfsdk:"kubernetes_version"`
	ProbeReason            types.String `tfsdk:"probe_reason"`
	ProbeMessage           types.String `tfsdk:"probe_message"`
	Join                   types.Object `tfsdk:"join"`
	ServiceAccount         types.String `tfsdk:"service_account"`
	MemberRules            types.List   `tfsdk:"member_rules"`
}

func (r *federationClusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_federation_cluster"
}

func (r *federationClusterResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Registers a member cluster in the federation, as `kubefedctl join` does: a `KubeFedCluster` " +
			"(core.kubefed.io/v1beta1) and a Secret with its credentials in the federation namespace of the host. " +
			"Create, update and every refresh probe the cluster's `/healthz` and record the answer in the KubeFedCluster's " +
			"status conditions (Ready, Offline), so `terraform plan` shows a cluster that went down.\n\n" +
			"With `join`, the provider first does on the member what `kubefedctl join` did, with admin credentials used at apply " +
			"only: it creates the federation's ServiceAccount, a long-lived token and a least-privilege ClusterRole there, and " +
			"registers the cluster with that token, which never appears in the configuration or the plan; destroy removes them " +
			"again, as `kubefedctl unjoin`. Without `join`, the credentials are given: `token`, or `client_certificate` and " +
			"`client_key`.\n\n" +
			"Clusters registered in the same run are visible to the federated objects planned after them: each plan of this " +
			"resource records the cluster's name and labels in the provider, and objects planned later (because they reference " +
			"this resource or list it in `depends_on`) place onto it, so one `apply` from an empty host works. The limit: an " +
			"object whose plan does not depend on the cluster resources may be planned first and then does not see clusters " +
			"registered in the same run; it places onto them on the next run.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The cluster's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Name of the cluster in the federation (a DNS-1123 label): the name of its KubeFedCluster, used by placements and overrides. Changing it replaces the resource.",
				Validators:    []validator.String{dnsLabelValidator{}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"api_endpoint": schema.StringAttribute{
				Optional:    true,
				Computed:    true,
				Description: "URL of the cluster's API server, http or https (`spec.apiEndpoint`). Required without `join`; with it, defaults to the server of the join connection.",
				Validators:  []validator.String{httpURLValidator{}},
			},
			"ca_bundle": schema.StringAttribute{
				Optional:    true,
				Computed:    true,
				Description: "PEM of the CA certificates that sign the cluster's serving certificate (`spec.caBundle`). Without it, the system's roots are used; with `join`, it defaults to the CA of the join connection.",
				Validators:  []validator.String{pemCertificateValidator{}},
			},
			"token": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "Bearer token of the identity the federation uses on the cluster, stored under the key `token` of the credential Secret, as KubeFed expects. Exclusive with `client_certificate` and `client_key`, and not set with `join`, which creates the identity and its token.",
				Validators:  []validator.String{nonEmptyCredential{}},
			},
			"client_certificate": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "PEM client certificate the federation authenticates with, stored under `tls.crt` of the credential Secret. Requires `client_key`; exclusive with `token`.",
				Validators:  []validator.String{pemCertificateValidator{}},
			},
			"client_key": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "PEM private key of `client_certificate`, stored under `tls.key` of the credential Secret.",
				Validators:  []validator.String{nonEmptyCredential{}},
			},
			"labels": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Labels of the KubeFedCluster: what `cluster_selector`s match.",
				Validators:  []validator.Map{labelsValidator{}},
			},
			"disabled_tls_validations": schema.ListAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "TLS checks to skip when talking to the cluster (`spec.disabledTLSValidations`): `\"SubjectName\"`, `\"ValidityPeriod\"`, or `\"*\"` alone for all of them.",
				Validators: []validator.List{
					tlsValidationListValidator{},
					listElements(tlsValidationValidator{}),
				},
			},
			"proxy_url": schema.StringAttribute{
				Optional:    true,
				Description: "URL of a proxy through which the cluster is reached (`spec.proxyURL`).",
				Validators:  []validator.String{httpURLValidator{}},
			},
			"require_ready": schema.BoolAttribute{
				Optional:    true,
				Computed:    true,
				Default:     booldefault.StaticBool(true),
				Description: "Whether create and update fail, with the probe's answer, when the cluster is not healthy. Defaults to true; set false to register a cluster that is not up yet.",
			},
			"secret_name": schema.StringAttribute{
				Computed:      true,
				Description:   "Name of the Secret holding the credentials (`spec.secretRef.name`): `<name>-credentials` for clusters registered here, KubeFed's own name for imported ones.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"ready": schema.BoolAttribute{
				Computed:    true,
				Description: "Whether the last probe found the cluster healthy (`/healthz` answered `ok`).",
			},
			"offline": schema.BoolAttribute{
				Computed:    true,
				Description: "Whether the last probe could not reach the cluster at all.",
			},
			"kubernetes_version": schema.StringAttribute{
				Computed:    true,
				Description: "Kubernetes version of the cluster, as last probed (`status.kubernetesVersion`).",
			},
			"probe_reason": schema.StringAttribute{
				Computed:    true,
				Description: "Reason of the last probe's Ready condition: `ClusterReady`, `ClusterNotReady`, `ClusterNotReachable`, `ClusterAuthenticationFailed` or `ClusterAuthorizationFailed`.",
			},
			"probe_message": schema.StringAttribute{
				Computed:    true,
				Description: "Message of the last probe's Ready condition: what the cluster answered, or why it could not be reached.",
			},
			"join":            joinSchema(),
			"service_account": serviceAccountSchema(),
			"member_rules":    memberRulesSchema(),
		},
	}
}

func (r *federationClusterResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{joinCredentialsValidator{}}
}

func (r *federationClusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan records the planned cluster in the provider's snapshot, so that
// federated objects planned later in the run can place onto it, and plans
// the Secret's name of a new cluster.
func (r *federationClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.data == nil {
		return
	}
	var prior *federationClusterModel
	if !req.State.Raw.IsNull() {
		prior = &federationClusterModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, prior)...)
		resp.Diagnostics.Append(notePlannedFromState(ctx, resp.Private, clusterKey(prior.Name.ValueString()))...)
	}
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		// The cluster's own plan does not need the snapshot; refresh reports
		// an unreachable host with its own diagnostic.
		tflog.Warn(ctx, "cannot read the registered clusters", map[string]any{"error": err.Error()})
	}
	if req.Plan.Raw.IsNull() {
		if snapshot != nil && prior != nil {
			snapshot.PlanRemoval(prior.Name.ValueString())
		}
		return
	}
	var plan federationClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.planJoin(ctx, req, resp, &plan, prior); resp.Diagnostics.HasError() {
		return
	}
	if snapshot != nil && !plan.Name.IsUnknown() {
		if prior != nil && prior.Name.ValueString() != plan.Name.ValueString() {
			snapshot.PlanRemoval(prior.Name.ValueString())
		}
		labels := map[string]string{}
		labelsKnown := !plan.Labels.IsUnknown()
		if labelsKnown {
			resp.Diagnostics.Append(plan.Labels.ElementsAs(ctx, &labels, false)...)
			if resp.Diagnostics.HasError() {
				labelsKnown = false
			}
		}
		// A plan without changes is called too; only a change makes the
		// cluster's health unknown until apply.
		if prior == nil || !req.Plan.Raw.Equal(req.State.Raw) {
			name := plan.Name.ValueString()
			var before map[string]string
			if was, ok := snapshot.Cluster(name); ok && !was.Planned {
				before = was.Labels
			}
			snapshot.PlanCluster(name, labels, labelsKnown)
			if labelsKnown {
				r.warnPlannedBefore(name, before, labels, &resp.Diagnostics)
			}
		}
	}
	if prior == nil && !plan.Name.IsUnknown() {
		name := plan.Name.ValueString()
		if r.data.checkedAtPlan(true) && !plannedFromState(ctx, req.Private, clusterKey(name)) {
			r.refuseExisting(ctx, name, &resp.Diagnostics)
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), plan.Name)...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("secret_name"),
			types.StringValue(registry.SecretNameFor(name)))...)
	}
}

// clusterKey names a cluster registration among the run's replacements.
func clusterKey(name string) string { return "KubeFedCluster/" + name }

// refuseExisting fails a create of a cluster the host has registered.
func (r *federationClusterResource) refuseExisting(ctx context.Context, name string, diags *diag.Diagnostics) {
	lookup := func(ctx context.Context) error {
		reg, err := r.data.registry(ctx)
		if err == nil {
			_, err = reg.GetCluster(ctx, name)
		}
		return err
	}
	refuseExisting(ctx, lookup, fmt.Sprintf("KubeFedCluster %s/%s", r.data.settings.FederationNamespace, name), name, path.Root("name"), diags)
}

// warnPlannedBefore names the selector-placed objects planned before this
// cluster whose placement of it its planned labels change.
func (r *federationClusterResource) warnPlannedBefore(name string, before, after map[string]string, diags *diag.Diagnostics) {
	missed := r.data.run.Missed(name, before, after)
	if len(missed) == 0 {
		return
	}
	diags.AddAttributeWarning(path.Root("labels"), "Federated objects planned before this cluster",
		fmt.Sprintf("Terraform planned the federated object(s) %s before cluster %q: their label selectors were matched "+
			"without this cluster's planned labels. Make them depend on this kubefed_federation_cluster (depends_on) so "+
			"that it is planned and registered first; otherwise the apply may stop as inconsistent.",
			strings.Join(missed, ", "), name))
}

func (r *federationClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan federationClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.SecretName = types.StringValue(registry.SecretNameFor(plan.Name.ValueString()))
	r.data.claimCreate(clusterKey(plan.Name.ValueString()), "KubeFedCluster "+plan.Name.ValueString(), path.Root("name"), &resp.Diagnostics)
	if r.refuseExisting(ctx, plan.Name.ValueString(), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	if plan.Join.IsNull() {
		r.write(ctx, &plan, true, "", &resp.Diagnostics)
	} else {
		r.createJoined(ctx, &plan, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(forgetPlannedFromState(ctx, resp.Private)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *federationClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state federationClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The Secret keeps its name, so an imported cluster keeps KubeFed's.
	plan.SecretName = state.SecretName
	token := ""
	if !plan.Join.IsNull() {
		var ok bool
		if token, ok = r.joinMember(ctx, &plan, &resp.Diagnostics); !ok {
			return
		}
	}
	r.write(ctx, &plan, false, token, &resp.Diagnostics)
	resp.Diagnostics.Append(forgetPlannedFromState(ctx, resp.Private)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	// A join given up, or renamed, leaves the old join's objects: the
	// registration no longer uses their token.
	if !state.Join.IsNull() && state.ServiceAccount.ValueString() != plan.ServiceAccount.ValueString() {
		if err := r.unjoinMember(ctx, &state); err != nil {
			resp.Diagnostics.AddAttributeWarning(path.Root("join"), fmt.Sprintf("Cannot remove the former join of cluster %q", state.Name.ValueString()),
				fmt.Sprintf("%v\n\n%s", err, leftBehind(&state)))
		}
	}
}

// createJoined joins the member and registers it with the token of the
// join; when the registration fails, the join is undone, so a failed create
// leaves nothing behind on either side. The host is prepared first, so a
// host that joins itself keeps its federation namespace as the host's own.
func (r *federationClusterResource) createJoined(ctx context.Context, plan *federationClusterModel, diags *diag.Diagnostics) {
	if _, err := r.data.bootstrappedRegistry(ctx); err != nil {
		diags.AddError("Cannot write the cluster to the host", err.Error())
		return
	}
	token, ok := r.joinMember(ctx, plan, diags)
	if !ok {
		return
	}
	if r.write(ctx, plan, true, token, diags); !diags.HasError() {
		return
	}
	if err := r.unjoinMember(ctx, plan); err != nil {
		diags.AddAttributeError(path.Root("join"), fmt.Sprintf("Cannot undo the join of cluster %q", plan.Name.ValueString()),
			fmt.Sprintf("The registration failed, and removing what the join created failed too: %v\n\n%s", err, leftBehind(plan)))
	}
}

func (r *federationClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state federationClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reg, err := r.data.registry(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the cluster from the host", err.Error())
		return
	}
	name := state.Name.ValueString()
	cluster, err := reg.GetCluster(ctx, name)
	if errors.Is(err, registry.ErrNotFound) {
		tflog.Info(ctx, "KubeFedCluster is gone from the host; removing it from the state", map[string]any{"cluster": name})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the cluster from the host", err.Error())
		return
	}

	state.ID = types.StringValue(name)
	state.APIEndpoint = types.StringValue(cluster.Connection.APIEndpoint)
	state.CABundle = optionalString(state.CABundle, string(cluster.Connection.CABundle))
	// A joined cluster's token is the join's business: it stays out of the
	// state, as it stays out of the configuration.
	if state.Join.IsNull() {
		state.Token = optionalString(state.Token, cluster.Connection.Token)
		state.ClientCertificate = optionalString(state.ClientCertificate, string(cluster.Connection.ClientCertificate))
		state.ClientKey = optionalString(state.ClientKey, string(cluster.Connection.ClientKey))
	}
	state.ProxyURL = optionalString(state.ProxyURL, cluster.Connection.ProxyURL)
	state.SecretName = types.StringValue(cluster.SecretName)
	state.Labels = optionalStringMap(ctx, state.Labels, cluster.Labels, &resp.Diagnostics)
	state.DisabledTLSValidations = optionalStringList(ctx, state.DisabledTLSValidations, cluster.Connection.DisabledTLSValidations, &resp.Diagnostics)
	if state.RequireReady.IsNull() {
		state.RequireReady = types.BoolValue(true)
	}

	probe := r.data.members.Probe(ctx, name, cluster.Connection)
	health, err := reg.WriteHealth(ctx, name, probe)
	if err != nil {
		resp.Diagnostics.AddWarning(fmt.Sprintf("Cannot record the health of cluster %q in the host", name), healthNotRecorded(name, err))
	} else {
		r.data.run.RecordHealth(name, health)
	}
	setHealth(&state, health)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *federationClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state federationClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reg, err := r.data.registry(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the cluster from the host", err.Error())
		return
	}
	if !state.Join.IsNull() && !r.unjoinOnDelete(ctx, &state, &resp.Diagnostics) {
		return
	}
	if err := reg.DeleteCluster(ctx, state.Name.ValueString(), state.SecretName.ValueString()); err != nil {
		resp.Diagnostics.AddError("Cannot remove the cluster from the host", err.Error())
	}
}

// unjoinOnDelete removes the join from the member before the registration
// goes. A member that cannot be reached any more does not keep the
// registration: the warning says what is left there. Any other failure
// stops the destroy, so that it can be fixed and run again.
func (r *federationClusterResource) unjoinOnDelete(ctx context.Context, state *federationClusterModel, diags *diag.Diagnostics) bool {
	err := r.unjoinMember(ctx, state)
	switch {
	case err == nil:
		return true
	case kube.Classify(err) == kube.FailureUnreachable:
		diags.AddAttributeWarning(path.Root("join"), fmt.Sprintf("Cluster %q is unjoined without reaching it", state.Name.ValueString()),
			fmt.Sprintf("%v\n\nThe registration is removed from the host all the same. %s", err, leftBehind(state)))
		return true
	}
	diags.AddAttributeError(path.Root("join"), fmt.Sprintf("Cannot unjoin cluster %q", state.Name.ValueString()),
		fmt.Sprintf("%v\n\nThe registration stays until the join's objects are removed; fix the join credentials and destroy again.", err))
	return false
}

// healthNotRecorded explains a refresh that could not write the probe to
// the host, as a read-only planner cannot.
func healthNotRecorded(name string, err error) string {
	return fmt.Sprintf("%v\n\nThe refresh goes on: the ready, offline and probe_* attributes of cluster %q show this probe, but "+
		"federated objects and scheduling preferences are planned with the health the host recorded last, as an apply of "+
		"this plan sees it. An identity that may patch kubefedclusters/status in the federation namespace records the "+
		"health at its next refresh; a read-only planner may not.", err, name)
}

func (r *federationClusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
}

// write, the body Create and Update share, probes the cluster with the
// planned settings, refuses a cluster that is not healthy when
// require_ready says so, and only then writes the registration and its
// status: a failed create leaves nothing behind and a failed update keeps
// the old credentials.
func (r *federationClusterResource) write(ctx context.Context, plan *federationClusterModel, creating bool, joinToken string, diags *diag.Diagnostics) {
	token := plan.Token.ValueString()
	if joinToken != "" {
		token = joinToken
	}
	cluster := registry.Cluster{
		Name:       plan.Name.ValueString(),
		SecretName: plan.SecretName.ValueString(),
		Connection: member.Connection{
			APIEndpoint:       plan.APIEndpoint.ValueString(),
			CABundle:          []byte(plan.CABundle.ValueString()),
			Token:             token,
			ClientCertificate: []byte(plan.ClientCertificate.ValueString()),
			ClientKey:         []byte(plan.ClientKey.ValueString()),
			ProxyURL:          plan.ProxyURL.ValueString(),
		},
	}
	diags.Append(plan.Labels.ElementsAs(ctx, &cluster.Labels, false)...)
	diags.Append(plan.DisabledTLSValidations.ElementsAs(ctx, &cluster.Connection.DisabledTLSValidations, false)...)
	if diags.HasError() {
		return
	}

	probe := r.probe(ctx, cluster, joinToken != "")
	tflog.Debug(ctx, "probed member cluster", map[string]any{
		"cluster": cluster.Name, "endpoint": cluster.Connection.APIEndpoint, "reason": probe.Reason,
	})
	if plan.RequireReady.ValueBool() && !probe.Ready {
		diags.AddAttributeError(path.Root("api_endpoint"), fmt.Sprintf("Cluster %q is not ready", cluster.Name),
			fmt.Sprintf("%s (%s).\n\nSet require_ready = false to register the cluster anyway.", probe.Message, probe.Reason))
		return
	}

	reg, err := r.data.bootstrappedRegistry(ctx)
	if err != nil {
		diags.AddError("Cannot write the cluster to the host", err.Error())
		return
	}
	register := reg.ApplyCluster
	if creating {
		register = reg.RegisterCluster
	}
	if err := register(ctx, cluster); err != nil {
		diags.AddError("Cannot write the cluster to the host", err.Error())
		return
	}
	health, err := reg.WriteHealth(ctx, cluster.Name, probe)
	if err != nil {
		diags.AddWarning("Cannot record the cluster's health in the host", err.Error())
	} else {
		r.data.run.RecordHealth(cluster.Name, health)
	}
	cluster.Health = health
	if snapshot, err := r.data.snapshot(ctx); err == nil {
		snapshot.Applied(cluster)
	}
	plan.ID = plan.Name
	setHealth(plan, health)
}

// joinSettle bounds how long a probe may find a token just joined not
// accepted yet: the member's API server learns of the new Secret and
// binding through its caches, within moments.
const joinSettle = 10 * time.Second

// probe probes the member; right after a join it asks again for a few
// seconds while the member does not take the new token yet.
func (r *federationClusterResource) probe(ctx context.Context, c registry.Cluster, joined bool) member.ProbeResult {
	probe := r.data.members.Probe(ctx, c.Name, c.Connection)
	deadline := time.Now().Add(joinSettle)
	for joined && !probe.Ready && !probe.Offline && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
		probe = r.data.members.Probe(ctx, c.Name, c.Connection)
	}
	return probe
}

func setHealth(m *federationClusterModel, h registry.ClusterHealth) {
	m.Ready = types.BoolValue(h.Ready)
	m.Offline = types.BoolValue(h.Offline)
	m.KubernetesVersion = types.StringValue(h.KubernetesVersion)
	m.ProbeReason = types.StringValue(h.Reason)
	m.ProbeMessage = types.StringValue(h.Message)
}

// The join: admin access to a member, used at apply only, to create there
// what `kubefedctl join` created (the federation's ServiceAccount, its
// token, a ClusterRole and its binding) and to register the cluster with
// that token, which Terraform never sees.

// joinModel is the join attribute: the provider's own connection
// attributes, then the join's own.
type joinModel struct {
	ConfigPath           types.String `tfsdk:"config_path"`
	ConfigContext        types.String `tfsdk:"config_context"`
	Host                 types.String `tfsdk:"host"`
	Token                types.String `tfsdk:"token"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	Insecure             types.Bool   `tfsdk:"insecure"`
	TLSServerName        types.String `tfsdk:"tls_server_name"`
	ProxyURL             types.String `tfsdk:"proxy_url"`
	Exec                 *execModel   `tfsdk:"exec"`
	HostClusterName      types.String `tfsdk:"host_cluster_name"`
	FederatedTypes       types.Set    `tfsdk:"federated_types"`
}

// Validation messages of join, one per rule, so tests can pin them.
const (
	msgJoinCredentials = "%s is not set with join: join creates the federation's ServiceAccount on the member and registers " +
		"the cluster with its token. Remove %s, or remove join to register the cluster with credentials of your own"
	msgJoinEndpoint = "api_endpoint is required without join: set it to the URL of the cluster's API server, or set join " +
		"so that it defaults to the server of the join connection"
	msgJoinNoCluster    = "join names no cluster: set config_path (and config_context), or host with credentials"
	msgFederatedTypeRef = "must be the name of a FederatedTypeConfig, `<plural>.<group>` or `<plural>` for the core group, " +
		"as kubefed_federated_type's name attribute gives it"
)

var federatedTypeName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func joinSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		Description: "Joins the cluster as `kubefedctl join` does, with admin access to it used at apply only: apply creates there the " +
			"federation namespace (unless it exists), a ServiceAccount `<name>-<host_cluster_name>` with a long-lived token Secret, " +
			"and a ClusterRole and ClusterRoleBinding `kubefed-controller-manager:<service account>` that grant what the federation " +
			"needs and no more; the cluster is registered with that token. Destroy removes them again. The connection " +
			"attributes are the provider's, for the member.",
		Attributes: map[string]schema.Attribute{
			"config_path": schema.StringAttribute{
				Optional:    true,
				Description: "Path to a kubeconfig file with admin access to the member.",
			},
			"config_context": schema.StringAttribute{
				Optional:    true,
				Description: "Context of the kubeconfig to use; its current context when unset.",
			},
			"host": schema.StringAttribute{
				Optional:    true,
				Description: "URL of the member's API server. Overrides the kubeconfig.",
				Validators:  []validator.String{httpURLValidator{}},
			},
			"token": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "Bearer token of an admin of the member.",
				Validators:  []validator.String{nonEmptyCredential{}},
			},
			"cluster_ca_certificate": schema.StringAttribute{
				Optional:    true,
				Description: "PEM-encoded CA certificate that signed the member API server's certificate.",
				Validators:  []validator.String{pemCertificateValidator{}},
			},
			"client_certificate": schema.StringAttribute{
				Optional:    true,
				Description: "PEM-encoded client certificate of an admin of the member.",
				Validators:  []validator.String{pemCertificateValidator{}},
			},
			"client_key": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "PEM-encoded private key of client_certificate.",
				Validators:  []validator.String{nonEmptyCredential{}},
			},
			"insecure": schema.BoolAttribute{
				Optional:    true,
				Description: "Skip TLS verification of the member's API server while joining.",
			},
			"tls_server_name": schema.StringAttribute{
				Optional:    true,
				Description: "Server name to verify the member's certificate against, when it differs from the host name.",
			},
			"proxy_url": schema.StringAttribute{
				Optional:    true,
				Description: "URL of a proxy for the join's requests to the member.",
				Validators:  []validator.String{httpURLValidator{}},
			},
			"exec": schema.SingleNestedAttribute{
				Optional:    true,
				Description: "A credential plugin that prints an ExecCredential for the member, as in a kubeconfig's exec section (e.g. `aws eks get-token`).",
				Attributes: map[string]schema.Attribute{
					"api_version": schema.StringAttribute{
						Optional:    true,
						Description: "API version of the ExecCredential; `client.authentication.k8s.io/v1` when unset.",
					},
					"command": schema.StringAttribute{
						Required:    true,
						Description: "Command to run.",
					},
					"args": schema.ListAttribute{
						Optional:    true,
						ElementType: types.StringType,
						Description: "Arguments of the command.",
					},
					"env": schema.MapAttribute{
						Optional:    true,
						Sensitive:   true,
						ElementType: types.StringType,
						Description: "Environment variables set for the command.",
					},
				},
			},
			"host_cluster_name": schema.StringAttribute{
				Optional: true,
				Description: "Name of the host in the names of what join creates on the member, as kubefedctl's `--host-cluster-name`. " +
					"Defaults to the provider's `config_context`, else the host name of the host's API server, made a DNS-1123 label; " +
					"the default is taken once, when the cluster joins.",
				Validators: []validator.String{dnsLabelValidator{}},
			},
			"federated_types": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Names of the FederatedTypeConfigs (`kubefed_federated_type.<name>.name`) whose objects the federation may read, write and delete on the member: one rule of the ClusterRole each. Adding a type updates the ClusterRole in place.",
				Validators:  []validator.Set{setvalidator.ValueStringsAre(stringvalidator.RegexMatches(federatedTypeName, msgFederatedTypeRef))},
			},
		},
	}
}

func memberRulesSchema() schema.ListAttribute {
	return schema.ListAttribute{
		Computed:    true,
		ElementType: types.StringType,
		Description: "What the ClusterRole join creates on the member grants, one rule per element, as verbs and resources " +
			"(`get/list/create/patch/delete on configmaps, namespaces`); null without join. A change shows in the plan and " +
			"updates the ClusterRole at apply.",
	}
}

func serviceAccountSchema() schema.StringAttribute {
	return schema.StringAttribute{
		Computed: true,
		Description: "`<namespace>/<name>` of the ServiceAccount join created on the member, whose token the cluster is registered " +
			"with; null without join.",
	}
}

// joinCredentialsValidator checks the credentials with and without join:
// without it, api_endpoint and exactly one kind of credentials are needed;
// with it, the join provides them and the user sets neither.
type joinCredentialsValidator struct{}

func (joinCredentialsValidator) Description(context.Context) string {
	return "api_endpoint and exactly one kind of credentials, or join and no credentials"
}

func (v joinCredentialsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (joinCredentialsValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var join types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("join"), &join)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if join.IsNull() {
		credentialsValidator{}.ValidateResource(ctx, req, resp)
		var endpoint types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("api_endpoint"), &endpoint)...)
		if endpoint.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root("api_endpoint"), "Missing api_endpoint", msgJoinEndpoint)
		}
		return
	}
	for _, name := range []string{"token", "client_certificate", "client_key"} {
		var v types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(name), &v)...)
		if !v.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Credentials set with join", fmt.Sprintf(msgJoinCredentials, name, name))
		}
	}
	if join.IsUnknown() {
		return
	}
	var configPath, host types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("join").AtName("config_path"), &configPath)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("join").AtName("host"), &host)...)
	if configPath.IsNull() && host.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("join"), "Join names no cluster", msgJoinNoCluster)
	}
}

// joinOf reads the join attribute; nil when it is null or not known.
func joinOf(ctx context.Context, v types.Object, diags *diag.Diagnostics) *joinModel {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	var j joinModel
	diags.Append(v.As(ctx, &j, basetypes.ObjectAsOptions{})...)
	if diags.HasError() {
		return nil
	}
	return &j
}

// connection is the join's connection as the provider block's would be,
// with the provider's rate limit, timeout and user agent.
func (j *joinModel) connection(ctx context.Context, s settings) (kube.Config, diag.Diagnostics) {
	var diags diag.Diagnostics
	cfg := kube.Config{
		ConfigPath:           j.ConfigPath.ValueString(),
		ConfigContext:        j.ConfigContext.ValueString(),
		Host:                 j.Host.ValueString(),
		Token:                j.Token.ValueString(),
		ClusterCACertificate: j.ClusterCACertificate.ValueString(),
		ClientCertificate:    j.ClientCertificate.ValueString(),
		ClientKey:            j.ClientKey.ValueString(),
		Insecure:             j.Insecure.ValueBool(),
		TLSServerName:        j.TLSServerName.ValueString(),
		ProxyURL:             j.ProxyURL.ValueString(),
		QPS:                  s.Connection.QPS,
		Burst:                s.Connection.Burst,
		Timeout:              s.RequestTimeout,
		UserAgent:            s.Connection.UserAgent,
	}
	if j.Exec != nil {
		cfg.Exec = &kube.ExecConfig{
			APIVersion: stringOr(j.Exec.APIVersion, "client.authentication.k8s.io/v1"),
			Command:    j.Exec.Command.ValueString(),
		}
		diags.Append(j.Exec.Args.ElementsAs(ctx, &cfg.Exec.Args, false)...)
		diags.Append(j.Exec.Env.ElementsAs(ctx, &cfg.Exec.Env, false)...)
	}
	return cfg, diags
}

// typeResources are the federated types the member's ClusterRole covers.
func (j *joinModel) typeResources(ctx context.Context, diags *diag.Diagnostics) []member.TypeResource {
	var names []string
	diags.Append(j.FederatedTypes.ElementsAs(ctx, &names, false)...)
	slices.Sort(names)
	out := make([]member.TypeResource, 0, len(names))
	for _, n := range names {
		out = append(out, member.TypeResourceOf(n))
	}
	return out
}

// planJoin plans what join decides: api_endpoint and ca_bundle, from the
// join connection unless configured, and the ServiceAccount; it warns about
// what apply will create or change on the member. Without join, they are
// as configured.
func (r *federationClusterResource) planJoin(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	plan, prior *federationClusterModel) {
	var config federationClusterModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	set := func(name string, v types.String) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), v)...)
	}
	setRules := func(v types.List) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("member_rules"), v)...)
	}
	if plan.Join.IsNull() {
		set("api_endpoint", config.APIEndpoint)
		set("ca_bundle", config.CABundle)
		set("service_account", types.StringNull())
		setRules(types.ListNull(types.StringType))
		return
	}
	j := joinOf(ctx, plan.Join, &resp.Diagnostics)
	if j == nil || !fullyKnown(plan.Join) {
		resp.Diagnostics.AddAttributeWarning(path.Root("join"), "The join is planned at apply",
			"Some attributes of join are known only at apply, so the cluster's endpoint, CA, ServiceAccount and member rules are too.")
		set("service_account", types.StringUnknown())
		setRules(types.ListUnknown(types.StringType))
		return
	}
	setRules(describeRules(member.MemberRules(j.typeResources(ctx, &resp.Diagnostics))))
	if config.APIEndpoint.IsNull() || config.CABundle.IsNull() {
		endpoint, ca, err := r.joinEndpoint(ctx, j)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("join"), "Cannot read the join connection",
				fmt.Sprintf("Cluster %q: %v", plan.Name.ValueString(), err))
			return
		}
		if config.APIEndpoint.IsNull() {
			set("api_endpoint", types.StringValue(endpoint))
		}
		if config.CABundle.IsNull() {
			set("ca_bundle", optionalString(types.StringNull(), string(ca)))
		}
	}
	account := r.plannedServiceAccount(j, plan.Name, prior)
	set("service_account", account)
	if !account.IsUnknown() {
		r.warnJoin(ctx, plan, prior, j, account.ValueString(), &resp.Diagnostics)
	}
}

// joinEndpoint is the server and CA the join connection reaches the member
// with; reading them contacts nothing.
func (r *federationClusterResource) joinEndpoint(ctx context.Context, j *joinModel) (string, []byte, error) {
	cfg, diags := j.connection(ctx, r.data.settings)
	if diags.HasError() {
		return "", nil, diagError(diags)
	}
	rc, err := cfg.RESTConfig()
	if err != nil {
		return "", nil, err
	}
	return member.Endpoint(rc)
}

// plannedServiceAccount is `<namespace>/<name>-<host>`. A cluster joined
// already keeps its account unless host_cluster_name is set, so a change of
// the provider's context does not rename what exists on the member.
func (r *federationClusterResource) plannedServiceAccount(j *joinModel, name types.String, prior *federationClusterModel) types.String {
	if name.IsUnknown() || j.HostClusterName.IsUnknown() {
		return types.StringUnknown()
	}
	if j.HostClusterName.IsNull() && prior != nil && prior.ServiceAccount.ValueString() != "" {
		return prior.ServiceAccount
	}
	host := j.HostClusterName.ValueString()
	if host == "" {
		var ok bool
		if host, ok = r.defaultHostName(); !ok {
			return types.StringUnknown()
		}
	}
	names := member.NewJoinNames(r.data.settings.FederationNamespace, name.ValueString(), host)
	return types.StringValue(names.Namespace + "/" + names.ServiceAccount)
}

// defaultHostName names the host after the provider's context, else after
// its API server's host name; false while neither is known.
func (r *federationClusterResource) defaultHostName() (string, bool) {
	if c := r.data.settings.Connection.ConfigContext; c != "" {
		return member.HostClusterName(c), true
	}
	if r.data.hostConfig == nil {
		return "", false
	}
	u, err := url.Parse(r.data.hostConfig.Host)
	if err != nil || u.Hostname() == "" {
		return member.HostClusterName(r.data.hostConfig.Host), true
	}
	return member.HostClusterName(u.Hostname()), true
}

// warnJoin says what apply will create on a member that joins: a plan
// shows attributes, not the objects of another cluster.
func (r *federationClusterResource) warnJoin(ctx context.Context, plan, prior *federationClusterModel, j *joinModel, account string,
	diags *diag.Diagnostics) {
	names := joinNames(account)
	rules := member.DescribeRules(member.MemberRules(j.typeResources(ctx, diags)))
	cluster := plan.Name.ValueString()
	if prior != nil && !prior.Join.IsNull() && prior.ServiceAccount.ValueString() == account {
		// Joined already: a change of the role shows in member_rules.
		return
	}
	diags.AddAttributeWarning(path.Root("join"), fmt.Sprintf("Cluster %q joins the federation at apply", cluster),
		fmt.Sprintf("With the join credentials, apply creates on cluster %q: namespace %s (unless it exists), ServiceAccount %s/%s "+
			"with its token Secret %s, and ClusterRole and ClusterRoleBinding %s, granting: %s. The cluster is registered "+
			"with that token; the join credentials are not written to the host.",
			cluster, names.Namespace, names.Namespace, names.ServiceAccount, names.TokenSecret, names.ClusterRole, rules))
}

// describeRules is member_rules: what each rule grants.
func describeRules(rules []rbacv1.PolicyRule) types.List {
	described := make([]attr.Value, 0, len(rules))
	for _, r := range rules {
		described = append(described, types.StringValue(member.DescribeRule(r)))
	}
	return types.ListValueMust(types.StringType, described)
}

// joinNames are the names of a join from its planned ServiceAccount.
func joinNames(account string) member.JoinNames {
	namespace, name, _ := strings.Cut(account, "/")
	return member.JoinNamesOf(namespace, name)
}

// joinSpec is the join of m on its member and the admin configuration that
// performs it.
func (r *federationClusterResource) joinSpec(ctx context.Context, m *federationClusterModel, diags *diag.Diagnostics) (member.Join, *rest.Config) {
	j := joinOf(ctx, m.Join, diags)
	if j == nil {
		return member.Join{}, nil
	}
	spec := member.Join{
		Cluster:      m.Name.ValueString(),
		Names:        joinNames(m.ServiceAccount.ValueString()),
		Types:        j.typeResources(ctx, diags),
		FieldManager: r.data.settings.FieldManager,
	}
	cfg, d := j.connection(ctx, r.data.settings)
	diags.Append(d...)
	if diags.HasError() {
		return spec, nil
	}
	rc, err := cfg.RESTConfig()
	if err != nil {
		diags.AddAttributeError(path.Root("join"), fmt.Sprintf("Cannot join cluster %q", spec.Cluster), err.Error())
		return spec, nil
	}
	return spec, rc
}

// onMember runs fn with admin clients of m's member, built from its join.
func (r *federationClusterResource) onMember(ctx context.Context, m *federationClusterModel, diags *diag.Diagnostics,
	fn func(member.Join, kubernetes.Interface) error) error {
	spec, rc := r.joinSpec(ctx, m, diags)
	if rc == nil {
		return errors.New("the join connection could not be built")
	}
	clients, err := r.data.factory.NewClients(rc)
	if err != nil {
		return fmt.Errorf("cluster %q: %w", spec.Cluster, err)
	}
	defer clients.HTTP.CloseIdleConnections()
	return fn(spec, clients.Kubernetes)
}

// joinMember creates or updates on the member what join creates and
// returns the federation's token; false when it failed, with the error in
// diags.
func (r *federationClusterResource) joinMember(ctx context.Context, m *federationClusterModel, diags *diag.Diagnostics) (string, bool) {
	var token string
	err := r.onMember(ctx, m, diags, func(spec member.Join, client kubernetes.Interface) error {
		var err error
		token, err = spec.Apply(ctx, client)
		return err
	})
	if err != nil && !diags.HasError() {
		diags.AddAttributeError(path.Root("join"), fmt.Sprintf("Cannot join cluster %q", m.Name.ValueString()), err.Error())
	}
	return token, err == nil
}

// unjoinMember removes from the member what join created.
func (r *federationClusterResource) unjoinMember(ctx context.Context, m *federationClusterModel) error {
	var diags diag.Diagnostics
	err := r.onMember(ctx, m, &diags, func(spec member.Join, client kubernetes.Interface) error {
		return spec.Remove(ctx, client)
	})
	if diags.HasError() {
		return diagError(diags)
	}
	return err
}

// leftBehind says what an unjoin that failed leaves on the member.
func leftBehind(m *federationClusterModel) string {
	n := joinNames(m.ServiceAccount.ValueString())
	return fmt.Sprintf("Remove by hand, on cluster %q: ClusterRoleBinding and ClusterRole %s, Secret %s/%s and ServiceAccount %s/%s. "+
		"Until then the ServiceAccount's token keeps the rights of the ClusterRole.",
		m.Name.ValueString(), n.ClusterRole, n.Namespace, n.TokenSecret, n.Namespace, n.ServiceAccount)
}
