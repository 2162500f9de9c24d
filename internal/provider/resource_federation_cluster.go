package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
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
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
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
	TokenWO                types.String `tfsdk:"token_wo"`
	TokenWOVersion         types.Int64  `tfsdk:"token_wo_version"`
	ClientCertificate      types.String `tfsdk:"client_certificate"`
	ClientKey              types.String `tfsdk:"client_key"`
	ClientKeyWO            types.String `tfsdk:"client_key_wo"`
	ClientKeyWOVersion     types.Int64  `tfsdk:"client_key_wo_version"`
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
	ReadToken              types.String `tfsdk:"read_token"`
	ReadTokenWO            types.String `tfsdk:"read_token_wo"`
	ReadTokenWOVersion     types.Int64  `tfsdk:"read_token_wo_version"`
	ReadClientCertificate  types.String `tfsdk:"read_client_certificate"`
	ReadClientKey          types.String `tfsdk:"read_client_key"`
	ReadClientKeyWO        types.String `tfsdk:"read_client_key_wo"`
	ReadClientKeyWOVersion types.Int64  `tfsdk:"read_client_key_wo_version"`
}

// clusterModels converts the resource's values to and from
// federationClusterModel without the framework's reflection.
var clusterModels modelCodec[federationClusterModel]

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
			"A new or changed registration's plan probes the member with the planned endpoint, CA and credentials when they " +
			"are known, so a wrong one fails before anything is written. Objects and preferences created in the same run " +
			"that select the cluster plan their placement as known after apply and land on it when they depend on this " +
			"resource, so one `apply` from an empty host works; those that existed before the run take it in at the next " +
			"plan, whatever order Terraform applies them in.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The cluster's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Name of the cluster in the federation (a DNS-1123 label): the name of its KubeFedCluster, used by placements and overrides. Changing it replaces the resource.",
				Validators:    []validator.String{dnsLabelValidator},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"api_endpoint": schema.StringAttribute{
				Optional:    true,
				Computed:    true,
				Description: "URL of the cluster's API server, http or https (`spec.apiEndpoint`). Required without `join`; with it, defaults to the server of the join connection.",
				Validators:  []validator.String{httpURLValidator},
			},
			"ca_bundle": schema.StringAttribute{
				Optional:    true,
				Computed:    true,
				Description: "PEM of the CA certificates that sign the cluster's serving certificate (`spec.caBundle`). Without it, the system's roots are used; with `join`, it defaults to the CA of the join connection.",
				Validators:  []validator.String{pemCertificateValidator},
			},
			"token": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				Description: "Bearer token of the identity the federation uses on the cluster, stored under the key `token` of the credential Secret, as KubeFed expects. Exclusive with `client_certificate` and `client_key`, and not set with `join`, which creates the identity and its token. " +
					"Every later run reaches the cluster with it, so it must outlive them: the plan warns when it is a JWT that has " +
					"expired or expires within 10 minutes.",
				Validators: []validator.String{nonEmptyCredential},
			},
			"token_wo": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
				Description: "The same bearer token as `token`, write-only: it goes to the credential Secret in the host and never " +
					"into the plan or the state. Terraform 1.11 or OpenTofu 1.11, or later, only; older CLIs refuse it, and take " +
					"`token`. The provider cannot tell when it changes: change `token_wo_version` with it to write the new token. " +
					"The plan warns of a JWT near its expiry as it does of `token`.",
				Validators: []validator.String{nonEmptyCredential, stringvalidator.ConflictsWith(path.MatchRoot("token"))},
			},
			"token_wo_version": schema.Int64Attribute{
				Optional: true,
				Description: "Any number, kept in the state: changing it makes the apply write `token_wo` to the credential Secret " +
					"again, e.g. after the token is rotated.",
				Validators: []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("token_wo"))},
			},
			"client_certificate": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "PEM client certificate the federation authenticates with, stored under `tls.crt` of the credential Secret. Requires `client_key`; exclusive with `token`.",
				Validators:  []validator.String{pemCertificateValidator},
			},
			"client_key": schema.StringAttribute{
				Optional:    true,
				Sensitive:   true,
				Description: "PEM private key of `client_certificate`, stored under `tls.key` of the credential Secret.",
				Validators:  []validator.String{nonEmptyCredential},
			},
			"client_key_wo": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
				Description: "The same private key as `client_key`, write-only: it goes to the credential Secret in the host and " +
					"never into the plan or the state. Terraform 1.11 or OpenTofu 1.11, or later, only; older CLIs refuse it, and " +
					"take `client_key`. The provider cannot tell when it changes: change `client_key_wo_version` with it to write " +
					"the new key.",
				Validators: []validator.String{nonEmptyCredential, stringvalidator.ConflictsWith(path.MatchRoot("client_key"))},
			},
			"client_key_wo_version": schema.Int64Attribute{
				Optional: true,
				Description: "Any number, kept in the state: changing it makes the apply write `client_key_wo` to the credential " +
					"Secret again, e.g. after the key is rotated.",
				Validators: []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("client_key_wo"))},
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
					listElements(tlsValidationValidator),
				},
			},
			"proxy_url": schema.StringAttribute{
				Optional:    true,
				Description: "URL of a proxy through which the cluster is reached (`spec.proxyURL`).",
				Validators:  []validator.String{httpURLValidator},
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
	maps.Copy(resp.Schema.Attributes, readCredentialAttributes())
}

func (r *federationClusterResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{joinCredentialsValidator{}, readKeyValidator{}}
}

func (r *federationClusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan records the planned cluster in the provider's snapshot, so that
// federated objects planned later in the run can place onto it, plans the
// Secret's name of a new cluster, and warns of a token about to expire.
func (r *federationClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.data == nil {
		return
	}
	var prior *federationClusterModel
	if !req.State.Raw.IsNull() {
		prior = &federationClusterModel{}
		resp.Diagnostics.Append(clusterModels.fromState(ctx, req.State, prior)...)
		resp.Diagnostics.Append(plannedFromStateNote.Save(ctx, resp.Private, clusterKey(prior.Name.ValueString()))...)
	}
	r.data.warnInterruptedJoins(ctx, &resp.Diagnostics)
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
	resp.Diagnostics.Append(clusterModels.fromPlan(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	warnShortLivedTokens(ctx, req.Config, &plan, time.Now(), &resp.Diagnostics)
	if r.planJoin(ctx, req, resp, &plan, prior); resp.Diagnostics.HasError() {
		return
	}
	if r.probeAtPlan(ctx, req.Config, &plan, prior, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	// A plan without changes is called too; only a change makes the
	// cluster's health unknown until apply. What the join plans counts:
	// Terraform proposed the prior values for it.
	changed := prior == nil || !resp.Plan.Raw.Equal(req.State.Raw)
	if changed && prior != nil {
		unknownHealth(ctx, resp)
	}
	if snapshot != nil && !plan.Name.IsUnknown() {
		r.planInRun(ctx, snapshot, &plan, prior, changed, &resp.Diagnostics)
	}
	if prior == nil && !plan.Name.IsUnknown() {
		name := plan.Name.ValueString()
		if r.data.checkedAtPlan(true) && !noteHolds(ctx, req.Private, plannedFromStateNote, clusterKey(name), &resp.Diagnostics) {
			r.refuseExisting(ctx, name, &resp.Diagnostics)
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), plan.Name)...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("secret_name"),
			types.StringValue(registry.SecretNameFor(name)))...)
	}
}

// planInRun records the planned registration in the run's snapshot: its
// labels and grants, for the objects planned after it, and the removal of
// its former name.
func (r *federationClusterResource) planInRun(ctx context.Context, snapshot *runstate.Snapshot, plan, prior *federationClusterModel,
	changed bool, diags *diag.Diagnostics) {
	if prior != nil && prior.Name.ValueString() != plan.Name.ValueString() {
		snapshot.PlanRemoval(prior.Name.ValueString())
	}
	labels := map[string]string{}
	labelsKnown := !plan.Labels.IsUnknown()
	if labelsKnown {
		diags.Append(plan.Labels.ElementsAs(ctx, &labels, false)...)
		if diags.HasError() {
			labelsKnown = false
		}
	}
	if !changed {
		return
	}
	name := plan.Name.ValueString()
	var before map[string]string
	if was, ok := snapshot.Cluster(name); ok && !was.Planned {
		before = was.Labels
	}
	snapshot.PlanCluster(name, labels, labelsKnown)
	grants, known := grantsOf(ctx, plan, diags)
	snapshot.PlanGrants(name, grants, known)
	if labelsKnown {
		r.warnPlannedBefore(name, before, labels, diags)
	}
}

// probeAtPlan probes the member of a new or changed registration with the
// planned endpoint, CA and credentials, when all are known and
// require_ready is set, and fails the plan when apply would refuse the
// cluster: a wrong endpoint or credential is named before the run writes
// anything. A join's token exists only once apply has made it.
func (r *federationClusterResource) probeAtPlan(ctx context.Context, config tfsdk.Config, plan, prior *federationClusterModel, diags *diag.Diagnostics) {
	if r.data.settings.ReadOnly || !plan.Join.IsNull() || !plan.RequireReady.ValueBool() || plan.Name.IsUnknown() || !connectionKnown(plan) {
		return
	}
	creds := givenCredentials(ctx, plan, config, diags)
	if diags.HasError() || creds.unknown() {
		return
	}
	if prior != nil && !connectionChanged(plan, prior) {
		return
	}
	name := plan.Name.ValueString()
	conn := connectionOf(ctx, plan, creds, diags)
	probe := r.data.members.SharedProbe(ctx, name, conn)
	if probe.Ready {
		if prior != nil {
			r.refuseOtherCluster(ctx, name, conn, diags)
		}
		return
	}
	at := probeFailureAttribute(probe.Reason, plan, creds.tokenWriteOnly)
	diags.AddAttributeError(at, fmt.Sprintf("Cluster %q is not ready", name),
		fmt.Sprintf("The plan probed the cluster with the planned endpoint, CA and credentials: %s (%s).\n\nFix %s, or set "+
			"require_ready = false to register the cluster anyway.", probe.Message, probe.Reason, at))
}

// refuseOtherCluster fails the plan of a changed registration whose planned
// endpoint and credentials reach another cluster than the one registered
// under this name: the host recorded that cluster's identity, and the
// member that answers now has another. Objects placed on the name would
// land on a cluster their plans never saw.
func (r *federationClusterResource) refuseOtherCluster(ctx context.Context, name string, conn member.Connection, diags *diag.Diagnostics) {
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		return
	}
	registered, ok := snapshot.Cluster(name)
	if !ok || registered.Identity == "" {
		return
	}
	answered, err := member.Identity(ctx, name, conn)
	if err != nil {
		tflog.Debug(ctx, "cannot read the member's identity", map[string]any{"cluster": name, "error": err.Error()})
		return
	}
	if !member.OtherCluster(registered.Identity, answered) {
		return
	}
	diags.AddAttributeError(path.Root("api_endpoint"), fmt.Sprintf("Cluster %q answers as another cluster", name),
		fmt.Sprintf("The plan probed %s with the planned endpoint, CA and credentials: it is healthy, but its kube-system namespace has "+
			"UID %s, where the cluster registered as %q had %s. Fix api_endpoint (or the credentials) to reach the same cluster. To "+
			"move the name to another cluster on purpose, destroy this registration first (terraform destroy -target=<this "+
			"resource's address>) and apply, or set require_ready = false for the apply that moves it.",
			conn.APIEndpoint, answered, name, registered.Identity))
}

// connectionKnown reports whether every setting that reaches the member is
// known at plan.
func connectionKnown(m *federationClusterModel) bool {
	for _, v := range []attr.Value{m.APIEndpoint, m.CABundle, m.Token, m.TokenWO, m.ClientCertificate, m.ClientKey,
		m.ClientKeyWO, m.DisabledTLSValidations, m.ProxyURL} {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// connectionChanged reports whether an update reaches the member otherwise
// than the registration did; a new token_wo or client_key_wo comes with a
// new version.
func connectionChanged(plan, prior *federationClusterModel) bool {
	for _, pair := range [][2]attr.Value{
		{plan.APIEndpoint, prior.APIEndpoint}, {plan.CABundle, prior.CABundle}, {plan.Token, prior.Token},
		{plan.TokenWOVersion, prior.TokenWOVersion}, {plan.ClientCertificate, prior.ClientCertificate},
		{plan.ClientKey, prior.ClientKey}, {plan.ClientKeyWOVersion, prior.ClientKeyWOVersion},
		{plan.DisabledTLSValidations, prior.DisabledTLSValidations},
		{plan.ProxyURL, prior.ProxyURL}, {plan.RequireReady, prior.RequireReady},
	} {
		if !pair[0].Equal(pair[1]) {
			return true
		}
	}
	return false
}

// probeFailureAttribute is the attribute a failed probe points at: the
// credential the member refused, else the endpoint.
func probeFailureAttribute(reason string, m *federationClusterModel, tokenWriteOnly bool) path.Path {
	switch reason {
	case member.ReasonAuthenticationFailed, member.ReasonAuthorizationFailed:
		switch {
		case tokenWriteOnly:
			return path.Root("token_wo")
		case !m.Token.IsNull():
			return path.Root("token")
		case !m.ClientCertificate.IsNull():
			return path.Root("client_certificate")
		}
	}
	return path.Root("api_endpoint")
}

// unknownHealth plans the health an update probes anew as unknown.
func unknownHealth(ctx context.Context, resp *resource.ModifyPlanResponse) {
	for _, name := range []string{"ready", "offline"} {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), types.BoolUnknown())...)
	}
	for _, name := range []string{"kubernetes_version", "probe_reason", "probe_message"} {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), types.StringUnknown())...)
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
	resp.Diagnostics.Append(clusterModels.fromPlan(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.SecretName = types.StringValue(registry.SecretNameFor(plan.Name.ValueString()))
	read := readCredentialsOf(ctx, &plan, req.Config, &resp.Diagnostics)
	r.data.claimCreate(clusterKey(plan.Name.ValueString()), "KubeFedCluster "+plan.Name.ValueString(), path.Root("name"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Join.IsNull() {
		creds := givenCredentials(ctx, &plan, req.Config, &resp.Diagnostics)
		// The host is asked whether the cluster is registered while the
		// member is probed: neither waits for the other.
		name := plan.Name.ValueString()
		refuse := func(ctx context.Context, diags *diag.Diagnostics) { r.refuseExisting(ctx, name, diags) }
		r.write(ctx, &plan, registration{creating: true, creds: creds, read: read, check: refuse}, &resp.Diagnostics)
		resp.Diagnostics.Append(creds.saveNotes(ctx, resp.Private)...)
	} else if r.refuseExisting(ctx, plan.Name.ValueString(), &resp.Diagnostics); !resp.Diagnostics.HasError() {
		wo := joinWriteOnlyOf(ctx, req.Config, &resp.Diagnostics)
		r.createJoined(ctx, &plan, wo, read, &resp.Diagnostics)
		resp.Diagnostics.Append(joinWriteOnlyNote.Save(ctx, resp.Private, wo.given())...)
	}
	resp.Diagnostics.Append(plannedFromStateNote.Forget(ctx, resp.Private)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(clusterModels.toState(ctx, &resp.State, &plan)...)
	clusterIdentity.set(ctx, resp.Identity, plan.Name, &resp.Diagnostics)
}

func (r *federationClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state federationClusterModel
	resp.Diagnostics.Append(clusterModels.fromPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(clusterModels.fromState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The Secret keeps its name, so an imported cluster keeps KubeFed's.
	plan.SecretName = state.SecretName
	creds := givenCredentials(ctx, &plan, req.Config, &resp.Diagnostics)
	wo := joinWriteOnlyOf(ctx, req.Config, &resp.Diagnostics)
	joined := !plan.Join.IsNull()
	read := readCredentialsOf(ctx, &plan, req.Config, &resp.Diagnostics)
	if joined {
		former := ""
		if !state.Join.IsNull() {
			former = state.ServiceAccount.ValueString()
		}
		tokens, _, ok := r.joinMember(ctx, &plan, wo, renewsToken(ctx, &plan, &state, &resp.Diagnostics), former, &resp.Diagnostics)
		if !ok {
			return
		}
		creds.token, read = tokens.Write, readOrJoined(read, tokens)
	}
	r.write(ctx, &plan, registration{creds: creds, read: read, hadRead: state.hasReadCredentials(), joined: joined}, &resp.Diagnostics)
	resp.Diagnostics.Append(plannedFromStateNote.Forget(ctx, resp.Private)...)
	resp.Diagnostics.Append(creds.saveNotes(ctx, resp.Private)...)
	resp.Diagnostics.Append(joinWriteOnlyNote.Save(ctx, resp.Private, wo.given())...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(clusterModels.toState(ctx, &resp.State, &plan)...)
	clusterIdentity.set(ctx, resp.Identity, plan.Name, &resp.Diagnostics)
	// A join given up, or renamed, leaves the old join's objects: the
	// registration no longer uses their token.
	if !state.Join.IsNull() && state.ServiceAccount.ValueString() != plan.ServiceAccount.ValueString() {
		err := r.unjoinMember(ctx, &state, wo)
		if err == nil {
			err = r.settleJoinRecord(ctx, &plan)
		}
		if err != nil {
			resp.Diagnostics.AddAttributeWarning(path.Root("join"), fmt.Sprintf("Cannot remove the former join of cluster %q", state.Name.ValueString()),
				fmt.Sprintf("%v\n\n%s", err, leftBehind(&state)))
		}
	}
}

// createJoined joins the member and registers it with the token of the
// join; when the join or the registration fails, the join is undone, so a
// failed create leaves nothing behind on either side (a process killed
// midway leaves the join's record, which the next plan names). The host is prepared first, so a
// host that joins itself keeps its federation namespace as the host's own.
func (r *federationClusterResource) createJoined(ctx context.Context, plan *federationClusterModel, wo joinWriteOnly, read registry.Credentials,
	diags *diag.Diagnostics) {
	if _, err := r.data.bootstrappedRegistry(ctx); err != nil {
		diags.AddError("Cannot write the cluster to the host", err.Error())
		return
	}
	tokens, touched, ok := r.joinMember(ctx, plan, wo, false, "", diags)
	if ok {
		how := registration{creating: true, creds: memberCredentials{token: tokens.Write}, read: readOrJoined(read, tokens), joined: true}
		if r.write(ctx, plan, how, diags); !diags.HasError() {
			return
		}
	}
	if touched {
		r.undoJoin(ctx, plan, wo, diags)
	}
}

func (r *federationClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state federationClusterModel
	resp.Diagnostics.Append(clusterModels.fromState(ctx, req.State, &state)...)
	clusterIdentity.set(ctx, resp.Identity, state.Name, &resp.Diagnostics)
	reg := r.data.registryFor(ctx, "Cannot read the cluster from the host", &resp.Diagnostics)
	if reg == nil {
		return
	}
	name := state.Name.ValueString()
	// A token given as token_wo, or a key as client_key_wo, stays out of the
	// state here too, as apply left it out.
	tokenWriteOnly := noteHolds(ctx, req.Private, tokenWriteOnlyNote, true, &resp.Diagnostics)
	clientKeyWriteOnly := noteHolds(ctx, req.Private, clientKeyWriteOnlyNote, true, &resp.Diagnostics)
	r.probeAsRecorded(ctx, &state, tokenWriteOnly || clientKeyWriteOnly)
	r.data.probeMembersOnce(ctx)
	cluster, err := r.recordedCluster(ctx, reg, name)
	if errors.Is(err, registry.ErrNotFound) {
		r.readUnregistered(ctx, reg, &state, resp)
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
	// state, as it stays out of the configuration; so does a token given as
	// token_wo, and a key given as client_key_wo. A read-only provider reads
	// the read credentials, which are not these.
	if state.Join.IsNull() && !r.data.settings.ReadOnly {
		if !tokenWriteOnly {
			state.Token = optionalString(state.Token, cluster.Connection.Token)
		}
		state.ClientCertificate = optionalString(state.ClientCertificate, string(cluster.Connection.ClientCertificate))
		if !clientKeyWriteOnly {
			state.ClientKey = optionalString(state.ClientKey, string(cluster.Connection.ClientKey))
		}
	}
	state.ProxyURL = optionalString(state.ProxyURL, cluster.Connection.ProxyURL)
	state.SecretName = types.StringValue(cluster.SecretName)
	state.Labels = optionalStringMap(ctx, state.Labels, cluster.Labels, &resp.Diagnostics)
	state.DisabledTLSValidations = optionalStringList(ctx, state.DisabledTLSValidations, cluster.Connection.DisabledTLSValidations, &resp.Diagnostics)
	if state.RequireReady.IsNull() {
		state.RequireReady = types.BoolValue(true)
	}

	probe := r.data.members.SharedProbe(ctx, name, cluster.Connection)
	health, err := reg.WriteHealthOver(ctx, *cluster, probe)
	switch {
	case errors.Is(err, registry.ErrReadOnly): // the run plans with the health the host recorded, without a warning
	case err != nil:
		resp.Diagnostics.AddWarning(fmt.Sprintf("Cannot record the health of cluster %q in the host", name), healthNotRecorded(name, err))
	default:
		r.data.run.RecordHealth(name, health)
	}
	setHealth(&state, health)
	if !state.Join.IsNull() && !r.data.settings.ReadOnly && probe.Reason == member.ReasonAuthenticationFailed {
		// What the join created is not all there: the plan joins again.
		state.MemberRules = types.ListNull(types.StringType)
		resp.Diagnostics.AddWarning(fmt.Sprintf("Cluster %q does not take the federation's token", name),
			probe.Message+"\n\nThe ServiceAccount or the token Secret that join created may be gone from the member; the plan "+
				"joins the cluster again, which creates them anew and registers the new token.")
	}
	resp.Diagnostics.Append(clusterModels.toState(ctx, &resp.State, &state)...)
}

// probeAsRecorded starts the run's probe of the cluster with the
// connection its state recorded, so that a refresh does not wait for the
// host's answer before it asks the member: unless something else changed
// the registration, the host holds that same connection, and the probe
// through it is this one. A cluster whose credentials the state does not
// hold (joined, or given write-only) is probed once the host has answered,
// as is every cluster of a read-only provider, with its read credentials.
func (r *federationClusterResource) probeAsRecorded(ctx context.Context, state *federationClusterModel, writeOnly bool) {
	if !state.Join.IsNull() || writeOnly || r.data.settings.ReadOnly || state.APIEndpoint.ValueString() == "" {
		return
	}
	var diags diag.Diagnostics
	conn := connectionOf(ctx, state, memberCredentials{token: state.Token.ValueString(), clientKey: state.ClientKey.ValueString()}, &diags)
	if diags.HasError() {
		return
	}
	r.data.members.StartProbe(ctx, state.Name.ValueString(), conn)
}

// connectionOf is how the cluster's settings in m, with creds, reach the
// member.
func connectionOf(ctx context.Context, m *federationClusterModel, creds memberCredentials, diags *diag.Diagnostics) member.Connection {
	conn := member.Connection{
		APIEndpoint:       m.APIEndpoint.ValueString(),
		CABundle:          []byte(m.CABundle.ValueString()),
		Token:             creds.token,
		ClientCertificate: []byte(m.ClientCertificate.ValueString()),
		ClientKey:         []byte(creds.clientKey),
		ProxyURL:          m.ProxyURL.ValueString(),
	}
	diags.Append(m.DisabledTLSValidations.ElementsAs(ctx, &conn.DisabledTLSValidations, false)...)
	return conn
}

// recordedCluster is the registration of the cluster called name: as the
// run's snapshot read it, one list of the host for every cluster of the
// run, or read by name when the snapshot has no record of it (it cannot be
// read, or the cluster was registered since).
func (r *federationClusterResource) recordedCluster(ctx context.Context, reg *registry.Registry, name string) (*registry.Cluster, error) {
	if snapshot, err := r.data.snapshot(ctx); err == nil {
		if c, ok := snapshot.Cluster(name); ok && !c.InRun {
			return &c.Cluster, nil
		}
	}
	return reg.GetCluster(ctx, name)
}

// readUnregistered reads a cluster whose KubeFedCluster is gone from the
// host, removed by hand. While its credential Secret is still there, with
// the member's token, the resource stays in the state with no endpoint, as
// the host records none: a destroy then removes the Secret, and a plan
// registers the cluster again. With no Secret left, nothing remains to
// remove and the resource leaves the state.
func (r *federationClusterResource) readUnregistered(ctx context.Context, reg *registry.Registry, state *federationClusterModel,
	resp *resource.ReadResponse) {
	name, secret := state.Name.ValueString(), state.SecretName.ValueString()
	held := false
	if secret != "" {
		var err error
		if held, err = reg.HasCredentialSecret(ctx, secret); err != nil {
			resp.Diagnostics.AddError("Cannot read the cluster from the host", err.Error())
			return
		}
	}
	if !held {
		tflog.Info(ctx, "KubeFedCluster is gone from the host; removing it from the state", map[string]any{"cluster": name})
		resp.State.RemoveResource(ctx)
		return
	}
	state.APIEndpoint = types.StringValue("")
	resp.Diagnostics.AddWarning(fmt.Sprintf("Cluster %q is no longer registered", name),
		fmt.Sprintf("KubeFedCluster %s/%s is gone from the host, but its credential Secret %s, with the cluster's token, is still "+
			"there. Destroying the resource removes the Secret; applying the configuration registers the cluster again.",
			reg.Namespace(), name, secret))
	resp.Diagnostics.Append(clusterModels.toState(ctx, &resp.State, state)...)
}

func (r *federationClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state federationClusterModel
	resp.Diagnostics.Append(clusterModels.fromState(ctx, req.State, &state)...)
	reg := r.data.registryFor(ctx, "Cannot remove the cluster from the host", &resp.Diagnostics)
	if reg == nil {
		return
	}
	writeOnly := noteHolds(ctx, req.Private, joinWriteOnlyNote, true, &resp.Diagnostics)
	proceed, left := true, false
	if !state.Join.IsNull() {
		proceed, left = r.unjoinOnDelete(ctx, &state, writeOnly, &resp.Diagnostics)
	}
	if !proceed {
		return
	}
	err := reg.DeleteCluster(ctx, state.Name.ValueString(), state.SecretName.ValueString())
	if err == nil && state.hasReadCredentials() {
		err = reg.ApplyReadCredentials(ctx, state.Name.ValueString(), registry.Credentials{})
	}
	if err == nil && left {
		// The join stays recorded, without credentials: the next plans
		// name what is left on the member until it is removed.
		err = r.recordJoin(ctx, &state, "")
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the cluster from the host", err.Error())
	}
}

// unjoinOnDelete removes the join from the member before the registration
// goes (proceed). A member that cannot be reached any more does not keep the
// registration: the warning says what is left there, and so does left.
// Neither does a join whose credentials were write-only, which a destroy is
// never given. Any other failure stops the destroy, so that it can be fixed
// and run again.
func (r *federationClusterResource) unjoinOnDelete(ctx context.Context, state *federationClusterModel, writeOnly bool,
	diags *diag.Diagnostics) (proceed, left bool) {
	if writeOnly {
		diags.AddAttributeWarning(path.Root("join"), fmt.Sprintf("Cluster %q is unjoined without reaching it", state.Name.ValueString()),
			"The join's credentials were given write-only (token_wo or client_key_wo), and Terraform gives a destroy no "+
				"configuration to read them from. The registration is removed from the host all the same. "+leftBehind(state))
		return true, true
	}
	err := r.unjoinMember(ctx, state, joinWriteOnly{})
	switch {
	case err == nil:
		return true, false
	case kube.Classify(err) == kube.FailureUnreachable:
		diags.AddAttributeWarning(path.Root("join"), fmt.Sprintf("Cluster %q is unjoined without reaching it", state.Name.ValueString()),
			fmt.Sprintf("%v\n\nThe registration is removed from the host all the same. %s", err, leftBehind(state)))
		return true, true
	}
	diags.AddAttributeError(path.Root("join"), fmt.Sprintf("Cannot unjoin cluster %q", state.Name.ValueString()),
		fmt.Sprintf("%v\n\nThe registration stays until the join's objects are removed; fix the join credentials and destroy again.", err))
	return false, false
}

// healthNotRecorded explains a refresh that could not write the probe to
// the host, as a read-only planner cannot.
func healthNotRecorded(name string, err error) string {
	return fmt.Sprintf("%v\n\nThe refresh goes on: the ready, offline and probe_* attributes of cluster %q show this probe, but "+
		"federated objects and scheduling preferences are planned with the health the host recorded last, as an apply of "+
		"this plan sees it. An identity that may patch kubefedclusters/status in the federation namespace records the "+
		"health at its next refresh; a read-only planner may not.", err, name)
}

// ImportState takes the cluster's name, as the ID or as the identity.
func (r *federationClusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name, ok := clusterIdentity.importID(ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	clusterIdentity.set(ctx, resp.Identity, types.StringValue(name), &resp.Diagnostics)
}

// registration is how write registers a cluster: as a create or an
// update, with the credentials given or the token made by a join, and with
// a check of the host (a create's refusal of a cluster registered already)
// that runs while the member is probed and must pass before anything is
// written.
type registration struct {
	creating bool
	creds    memberCredentials
	read     registry.Credentials
	hadRead  bool
	joined   bool
	check    func(context.Context, *diag.Diagnostics)
}

// write, the body Create and Update share, probes the cluster with the
// planned settings and token, refuses a cluster that is not healthy when
// require_ready says so, and only then writes the registration and its
// status: a failed create leaves nothing behind and a failed update keeps
// the old credentials.
func (r *federationClusterResource) write(ctx context.Context, plan *federationClusterModel, how registration, diags *diag.Diagnostics) {
	cluster := registry.Cluster{
		Name:       plan.Name.ValueString(),
		SecretName: plan.SecretName.ValueString(),
		Connection: connectionOf(ctx, plan, how.creds, diags),
		Read:       how.read,
		HadRead:    how.hadRead,
	}
	cluster.Grants, _ = grantsOf(ctx, plan, diags)
	diags.Append(plan.Labels.ElementsAs(ctx, &cluster.Labels, false)...)
	if diags.HasError() {
		return
	}

	probe, identity, identityErr := r.probeWhile(ctx, cluster, how, diags)
	if diags.HasError() {
		return
	}
	if probe.Ready {
		cluster.Identity = identity
	}
	if plan.RequireReady.ValueBool() && !probe.Ready {
		diags.AddAttributeError(path.Root("api_endpoint"), fmt.Sprintf("Cluster %q is not ready", cluster.Name),
			fmt.Sprintf("%s (%s).\n\nSet require_ready = false to register the cluster anyway.", probe.Message, probe.Reason))
		return
	}
	if !how.creating {
		r.confirmSameCluster(ctx, cluster.Name, identity, identityErr, plan.RequireReady.ValueBool(), diags)
	}
	if diags.HasError() {
		return
	}

	reg, err := r.data.bootstrappedRegistry(ctx)
	if err != nil {
		diags.AddError("Cannot write the cluster to the host", err.Error())
		return
	}
	register := reg.ApplyCluster
	if how.creating {
		register = reg.RegisterCluster
	}
	health, err := register(ctx, cluster, probe)
	var notRecorded *registry.HealthNotRecordedError
	switch {
	case errors.As(err, &notRecorded):
		diags.AddWarning("Cannot record the cluster's health in the host", err.Error())
	case err != nil:
		diags.AddError("Cannot write the cluster to the host", err.Error())
		return
	default:
		r.data.run.RecordHealth(cluster.Name, health)
	}
	cluster.Health = health
	if snapshot, err := r.data.snapshot(ctx); err == nil {
		snapshot.Applied(cluster)
	}
	plan.ID = plan.Name
	setHealth(plan, health)
}

// probeWhile probes the member, and reads its identity, while how's check
// of the host runs, and returns both once all are done. An identity that
// cannot be read is left empty: the registration records none.
func (r *federationClusterResource) probeWhile(ctx context.Context, c registry.Cluster, how registration,
	diags *diag.Diagnostics) (probe member.ProbeResult, identity string, identityErr error) {
	overlap.All(
		func() {
			if how.check != nil {
				how.check(ctx, diags)
			}
		},
		func() { identity, identityErr = member.Identity(ctx, c.Name, c.Connection) },
		func() { probe = r.probe(ctx, c, how.joined) },
	)
	tflog.Debug(ctx, "probed member cluster", map[string]any{
		"cluster": c.Name, "endpoint": c.Connection.APIEndpoint, "reason": probe.Reason,
	})
	return probe, identity, identityErr
}

// confirmSameCluster fails an update whose endpoint and credentials reach
// another cluster than the one whose identity the host recorded under the
// name (member.ConfirmRegistrationUpdate): the plan compares them only
// when it knows them, apply always.
func (r *federationClusterResource) confirmSameCluster(ctx context.Context, name, answered string, readErr error, requireReady bool,
	diags *diag.Diagnostics) {
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		diags.AddError("Cannot read the cluster from the host", err.Error())
		return
	}
	registered, _ := snapshot.Cluster(name)
	if err := member.ConfirmRegistrationUpdate(name, registered.Identity, answered, readErr, requireReady); err != nil {
		diags.AddAttributeError(path.Root("api_endpoint"), fmt.Sprintf("Cannot update the registration of cluster %q", name), err.Error())
	}
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
