package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// The join: admin access to a member, used at apply only, to create there
// what `kubefedctl join` created (the federation's ServiceAccount, its
// token, a ClusterRole and its binding) and to register the cluster with
// that token, which Terraform never sees.

// joinModel is the join attribute: the provider's own connection
// attributes, then the join's own.
type joinModel struct {
	connectionModel
	TokenWO         types.String `tfsdk:"token_wo"`
	ClientKeyWO     types.String `tfsdk:"client_key_wo"`
	HostClusterName types.String `tfsdk:"host_cluster_name"`
	FederatedTypes  types.Set    `tfsdk:"federated_types"`
	TokenRotation   types.String `tfsdk:"token_rotation"`
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
		Attributes: withMemberConnection(map[string]schema.Attribute{
			"token_wo": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
				Description: "The same admin token as `token`, write-only: the join uses it at apply and it never goes into the plan " +
					"or the state. Terraform 1.11 or OpenTofu 1.11, or later, only. A destroy is given no configuration, so it cannot " +
					"unjoin with it: it removes the registration and warns of what stays on the member.",
				Validators: []validator.String{nonEmptyCredential, stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("token"))},
			},
			"client_key_wo": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
				Description: "The same private key as `client_key`, write-only: the join uses it at apply and it never goes into the " +
					"plan or the state. Terraform 1.11 or OpenTofu 1.11, or later, only. A destroy cannot unjoin with it, as with `token_wo`.",
				Validators: []validator.String{nonEmptyCredential, stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("client_key"))},
			},
			"token_rotation": schema.StringAttribute{
				Optional: true,
				Description: "A value whose change renews the federation's token: the apply replaces the token Secret on the member, " +
					"which rejects the old token from then on, and registers the cluster with the new one.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"host_cluster_name": schema.StringAttribute{
				Optional: true,
				Description: "Name of the host in the names of what join creates on the member, as kubefedctl's `--host-cluster-name`. " +
					"Defaults to the provider's `config_context`, else the host name of the host's API server, made a DNS-1123 label; " +
					"the default is taken once, when the cluster joins.",
				Validators: []validator.String{dnsLabelValidator},
			},
			"federated_types": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Names of the FederatedTypeConfigs (`kubefed_federated_type.<name>.name`) whose objects the federation may read, write and delete on the member: one rule of the ClusterRole each. Adding a type updates the ClusterRole in place. " +
					"Does not default to the enabled types: left out, none is granted, and the plan of an object of a type not listed placed on the cluster fails.",
				Validators: []validator.Set{setvalidator.ValueStringsAre(stringvalidator.RegexMatches(federatedTypeName, msgFederatedTypeRef))},
			},
		}),
	}
}

func memberRulesSchema() schema.ListAttribute {
	return schema.ListAttribute{
		Computed:    true,
		ElementType: types.StringType,
		Description: "What the ClusterRole join creates on the member grants, one rule per element, as verbs and resources " +
			"(`get/list/create/patch/delete on configmaps, namespaces`), then what the role of the join's read-only account " +
			"grants, each prefixed `read-only account: `; null without join. A change shows in the plan and updates the " +
			"ClusterRoles at apply.",
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
	for _, name := range []string{"token", "token_wo", "client_certificate", "client_key", "client_key_wo"} {
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
	exec, diags := j.Exec.config(ctx)
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
		Exec:                 exec,
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

// grantsOf is what a registration lets the federation write on the member:
// with join, the types of join.federated_types and no other; without it,
// whatever the given credentials allow, which the provider does not know.
// known is false while the join or its types are known at apply only.
func grantsOf(ctx context.Context, m *federationClusterModel, diags *diag.Diagnostics) (g registry.Grants, known bool) {
	switch {
	case m.Join.IsNull():
		return registry.Grants{}, true
	case !fullyKnown(m.Join):
		return registry.Grants{}, false
	}
	j := joinOf(ctx, m.Join, diags)
	if j == nil {
		return registry.Grants{}, false
	}
	g = registry.Grants{Limited: true, Types: []string{}}
	for _, t := range j.typeResources(ctx, diags) {
		g.Types = append(g.Types, t.String())
	}
	return g, true
}

// planJoin plans what join decides: api_endpoint and ca_bundle, from the
// join connection unless configured, and the ServiceAccount; it warns about
// what apply will create or change on the member. Without join, they are
// as configured.
func (r *federationClusterResource) planJoin(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	plan, prior *federationClusterModel) {
	var config federationClusterModel
	resp.Diagnostics.Append(clusterModels.fromConfig(ctx, req.Config, &config)...)
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
	setRules(stringList(member.JoinRuleDescriptions(j.typeResources(ctx, &resp.Diagnostics))))
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
	if prior != nil && !prior.Join.IsNull() && prior.ServiceAccount.ValueString() == account {
		// Joined already: a change of the role shows in member_rules.
		return
	}
	cluster := plan.Name.ValueString()
	diags.AddAttributeWarning(path.Root("join"), fmt.Sprintf("Cluster %q joins the federation at apply", cluster),
		joinNames(account).Creates(cluster, member.DescribeRules(member.MemberRules(j.typeResources(ctx, diags)))))
}

// joinNames are the names of a join from its planned ServiceAccount.
func joinNames(account string) member.JoinNames {
	namespace, name, _ := strings.Cut(account, "/")
	return member.JoinNamesOf(namespace, name)
}

// joinSpec is the join of m on its member and the admin configuration that
// performs it.
func (r *federationClusterResource) joinSpec(ctx context.Context, m *federationClusterModel, wo joinWriteOnly,
	diags *diag.Diagnostics) (member.Join, *rest.Config) {
	j := joinOf(ctx, m.Join, diags)
	if j == nil {
		return member.Join{}, nil
	}
	j.useWriteOnly(wo)
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

// onMember runs fn with admin clients of m's member, built from its join
// and the join's write-only credentials.
func (r *federationClusterResource) onMember(ctx context.Context, m *federationClusterModel, wo joinWriteOnly, diags *diag.Diagnostics,
	fn func(member.Join, kubernetes.Interface) error) error {
	spec, rc := r.joinSpec(ctx, m, wo, diags)
	if rc == nil {
		return errors.New("the join connection could not be built")
	}
	clients, err := r.data.factory.NewClients(rc)
	if err != nil {
		return fmt.Errorf("cluster %q: %w", spec.Cluster, err)
	}
	if clients.HTTP != nil {
		defer clients.HTTP.CloseIdleConnections()
	}
	return fn(spec, clients.Kubernetes)
}

// joinMember creates or updates on the member what join creates and
// returns the federation's and the read-only account's tokens, new ones
// when renew is set; false when it failed, with the error in diags. Before
// its first write to the member it records the join in the host, with the
// former account of a join that moves; touched says it got that far.
func (r *federationClusterResource) joinMember(ctx context.Context, m *federationClusterModel, wo joinWriteOnly, renew bool, former string,
	diags *diag.Diagnostics) (tokens member.Tokens, touched, ok bool) {
	err := r.onMember(ctx, m, wo, diags, func(spec member.Join, client kubernetes.Interface) error {
		if err := r.recordJoin(ctx, m, former); err != nil {
			return err
		}
		touched = true
		var err error
		spec.RenewToken = renew
		tokens, err = spec.Apply(ctx, client)
		return err
	})
	if err != nil && !diags.HasError() {
		diags.AddAttributeError(path.Root("join"), fmt.Sprintf("Cannot join cluster %q", m.Name.ValueString()), err.Error())
	}
	return tokens, touched, err == nil
}

// recordJoin records m's join in the host (registry.JoinRecord): its
// account, and former while the join moves from that one.
func (r *federationClusterResource) recordJoin(ctx context.Context, m *federationClusterModel, former string) error {
	reg, err := r.data.bootstrappedRegistry(ctx)
	if err != nil {
		return err
	}
	rec := registry.JoinRecord{Cluster: m.Name.ValueString(), Endpoint: m.APIEndpoint.ValueString(),
		ServiceAccounts: []string{m.ServiceAccount.ValueString()}}
	if former != "" && former != rec.ServiceAccounts[0] {
		rec.ServiceAccounts = append(rec.ServiceAccounts, former)
	}
	return reg.RecordJoin(ctx, m.SecretName.ValueString(), rec)
}

// settleJoinRecord records only m's join once a former one is removed, or
// takes the record off when m no longer joins.
func (r *federationClusterResource) settleJoinRecord(ctx context.Context, m *federationClusterModel) error {
	if !m.Join.IsNull() {
		return r.recordJoin(ctx, m, "")
	}
	reg, err := r.data.bootstrappedRegistry(ctx)
	if err != nil {
		return err
	}
	return reg.ForgetJoin(ctx, m.Name.ValueString(), m.SecretName.ValueString())
}

// undoJoin removes what the join of a create that failed made on the
// member, then its record, with a context of its own: a create cut off by
// an interrupt still cleans up. What cannot be removed is named.
func (r *federationClusterResource) undoJoin(ctx context.Context, m *federationClusterModel, wo joinWriteOnly, diags *diag.Diagnostics) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), member.DefaultTokenTimeout)
	defer cancel()
	err := r.unjoinMember(ctx, m, wo)
	if err == nil {
		var reg *registry.Registry
		if reg, err = r.data.bootstrappedRegistry(ctx); err == nil {
			err = reg.DiscardJoin(ctx, m.Name.ValueString(), m.SecretName.ValueString())
		}
	}
	if err != nil {
		diags.AddAttributeError(path.Root("join"), fmt.Sprintf("Cannot undo the join of cluster %q", m.Name.ValueString()),
			fmt.Sprintf("The create failed, and removing what the join created failed too: %v\n\n%s", err, leftBehind(m)))
	}
}

// unjoinMember removes from the member what join created.
func (r *federationClusterResource) unjoinMember(ctx context.Context, m *federationClusterModel, wo joinWriteOnly) error {
	var diags diag.Diagnostics
	err := r.onMember(ctx, m, wo, &diags, func(spec member.Join, client kubernetes.Interface) error {
		return spec.Remove(ctx, client)
	})
	if diags.HasError() {
		return diagError(diags)
	}
	return err
}

// leftBehind says what an unjoin that failed leaves on the member.
func leftBehind(m *federationClusterModel) string {
	return joinNames(m.ServiceAccount.ValueString()).LeftBehind(m.Name.ValueString())
}

// renewsToken: the join's account stays, and token_rotation is new.
func renewsToken(ctx context.Context, plan, prior *federationClusterModel, diags *diag.Diagnostics) bool {
	planned, before := joinOf(ctx, plan.Join, diags), joinOf(ctx, prior.Join, diags)
	if planned == nil || before == nil || plan.ServiceAccount.ValueString() != prior.ServiceAccount.ValueString() {
		return false
	}
	return member.RenewsToken(before.TokenRotation.ValueString(), planned.TokenRotation.ValueString())
}
