package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// providerModel is the provider block. Connection attribute names and their
// environment variables are those of the hashicorp/kubernetes provider.
type providerModel struct {
	connectionModel
	ConfigPaths           types.List   `tfsdk:"config_paths"`
	ConfigContextAuthInfo types.String `tfsdk:"config_context_auth_info"`
	ConfigContextCluster  types.String `tfsdk:"config_context_cluster"`

	FederationNamespace types.String         `tfsdk:"federation_namespace"`
	FieldManager        types.String         `tfsdk:"field_manager"`
	MaxParallelClusters types.Int64          `tfsdk:"max_parallel_clusters"`
	RequestsPerCluster  types.Int64          `tfsdk:"max_requests_per_cluster"`
	RequestTimeout      timetypes.GoDuration `tfsdk:"request_timeout"`
	QPS                 types.Int64          `tfsdk:"qps"`
	Burst               types.Int64          `tfsdk:"burst"`
	PlanValidation      types.String         `tfsdk:"plan_validation"`
	ReadOnly            types.Bool           `tfsdk:"read_only"`
	ReadCredentials     types.String         `tfsdk:"read_credentials_namespace"`
}

// settings is the provider configuration resolved to plain values.
type settings struct {
	Connection          kube.Config
	FederationNamespace string
	FieldManager        string
	MaxParallelClusters int
	RequestTimeout      time.Duration
	// PlanValidation is PlanValidationServer or PlanValidationClient.
	PlanValidation string
	// ReadOnly plans with the clusters' read credentials and refuses every
	// apply; ReadCredentialsNamespace is where those are kept.
	ReadOnly                 bool
	ReadCredentialsNamespace string
}

// How plans validate rendered objects: with a server-side dry run on each
// member, or with the provider's own checks alone.
const (
	PlanValidationServer = "server"
	PlanValidationClient = "client"
)

func (p *kubefedProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Federates Kubernetes objects across member clusters, KubeFed style, computing at plan time " +
			"what each cluster receives. The connection settings point at the host cluster, which stores the federation's " +
			"registry, type configurations, federated objects and replica scheduling preferences.",
		Attributes: withHostConnection(map[string]schema.Attribute{
			"config_paths": schema.ListAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Description: "Paths to kubeconfig files, merged as kubectl merges those of KUBECONFIG: the first file to define a name wins. " +
					"Can be set with KUBE_CONFIG_PATHS, a list separated like KUBECONFIG (`:` on Unix).",
			},
			"config_context_auth_info": schema.StringAttribute{
				Optional:    true,
				Description: "User of the kubeconfig to use instead of the context's (kubectl's `--user`). Can be set with KUBE_CTX_AUTH_INFO.",
			},
			"config_context_cluster": schema.StringAttribute{
				Optional:    true,
				Description: "Cluster of the kubeconfig to use instead of the context's (kubectl's `--cluster`). Can be set with KUBE_CTX_CLUSTER.",
			},
			"federation_namespace": schema.StringAttribute{
				Optional:    true,
				Description: "Namespace of the host cluster that holds the federation's registry and type configurations. Defaults to `" + DefaultFederationNamespace + "`, KubeFed's.",
				Validators:  []validator.String{dnsLabelValidator},
			},
			"field_manager": schema.StringAttribute{
				Optional:    true,
				Description: "Field manager name of the provider's server-side applies. Defaults to `" + DefaultFieldManager + "`.",
				Validators:  []validator.String{stringvalidator.LengthBetween(1, 128)},
			},
			"max_parallel_clusters": schema.Int64Attribute{
				Optional:    true,
				Description: "How many member clusters one object's work reaches at once. Unset, all of them.",
				Validators:  []validator.Int64{int64validator.AtLeast(1)},
			},
			"max_requests_per_cluster": schema.Int64Attribute{
				Optional: true,
				Description: fmt.Sprintf("How many requests wait for an answer from one cluster at once (the host included), shared "+
					"by every resource of the run. Defaults to %d.", kube.DefaultRequestsInFlight),
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"request_timeout": schema.StringAttribute{
				Optional:    true,
				CustomType:  timetypes.GoDurationType{},
				Description: "Timeout of each request to a cluster, as a Go duration such as `30s` or `1m`. Defaults to `30s`.",
				Validators:  []validator.String{positiveDuration},
			},
			"qps": schema.Int64Attribute{
				Optional: true,
				Description: "A client-side rate limit, in requests per second, for each cluster. Unset, there is none, as in " +
					"controller-runtime: the API server's priority and fairness shares its capacity among clients.",
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"plan_validation": schema.StringAttribute{
				Optional: true,
				Description: "How plans validate the object each member receives: `server` (the default) also sends it to the member " +
					"as a server-side dry-run apply, in parallel, so that schema and admission errors show at plan time; `client` " +
					"keeps to the provider's own checks and contacts no member while planning.",
				Validators: []validator.String{stringvalidator.OneOf(PlanValidationServer, PlanValidationClient)},
			},
			"read_only": schema.BoolAttribute{
				Optional: true,
				Description: "Plan only, with the clusters' read credentials and `plan_validation = \"client\"`, never reading a credential " +
					"Secret; every apply and destroy fails before its first request. Can be set with KUBEFED_READ_ONLY.",
			},
			"read_credentials_namespace": schema.StringAttribute{
				Optional: true,
				Description: "Namespace of the host that holds the clusters' read credentials, `<name>-read-credentials`, and no " +
					"other credential. Defaults to `" + registry.DefaultReadCredentialsNamespace + "`; must differ from `federation_namespace`.",
				Validators: []validator.String{dnsLabelValidator},
			},
			"burst": schema.Int64Attribute{
				Optional:    true,
				Description: "Requests allowed at once above `qps`, for each cluster. Defaults to twice `qps`; needs `qps`.",
				Validators: []validator.Int64{
					int64validator.AtLeast(1),
					int64validator.AlsoRequires(path.MatchRoot("qps")),
				},
			},
		}),
		Blocks: map[string]schema.Block{"exec": hostExecBlock()},
	}
}

// hasUnknownConnection reports whether a connection setting is not known yet.
func (m providerModel) hasUnknownConnection() bool {
	for _, v := range []interface{ IsUnknown() bool }{
		m.ConfigPath, m.ConfigPaths, m.ConfigContext, m.ConfigContextAuthInfo, m.ConfigContextCluster, m.Host, m.Token, m.ClusterCACertificate,
		m.ClientCertificate, m.ClientKey, m.Insecure, m.TLSServerName, m.ProxyURL,
	} {
		if v.IsUnknown() {
			return true
		}
	}
	if m.Exec != nil {
		return m.Exec.APIVersion.IsUnknown() || m.Exec.Command.IsUnknown() ||
			m.Exec.Args.IsUnknown() || m.Exec.Env.IsUnknown()
	}
	return false
}

// settings resolves the model, falling back to environment variables and
// defaults.
func (m providerModel) settings() (settings, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := settings{
		Connection: kube.Config{
			ConfigContext:         envString(m.ConfigContext, "KUBE_CTX"),
			ConfigContextAuthInfo: envString(m.ConfigContextAuthInfo, "KUBE_CTX_AUTH_INFO"),
			ConfigContextCluster:  envString(m.ConfigContextCluster, "KUBE_CTX_CLUSTER"),
			Host:                  envString(m.Host, "KUBE_HOST"),
			Token:                 envString(m.Token, "KUBE_TOKEN"),
			ClusterCACertificate:  envString(m.ClusterCACertificate, "KUBE_CLUSTER_CA_CERT_DATA"),
			ClientCertificate:     envString(m.ClientCertificate, "KUBE_CLIENT_CERT_DATA"),
			ClientKey:             envString(m.ClientKey, "KUBE_CLIENT_KEY_DATA"),
			TLSServerName:         envString(m.TLSServerName, "KUBE_TLS_SERVER_NAME"),
			ProxyURL:              envString(m.ProxyURL, "KUBE_PROXY_URL"),
			AllowInCluster:        true,
			QPS:                   float32(int64Or(m.QPS, 0)),
			Burst:                 int(int64Or(m.Burst, 2*int64Or(m.QPS, 0))),
			RequestsInFlight:      int(int64Or(m.RequestsPerCluster, kube.DefaultRequestsInFlight)),
		},
		FederationNamespace:      stringOr(m.FederationNamespace, DefaultFederationNamespace),
		FieldManager:             stringOr(m.FieldManager, DefaultFieldManager),
		MaxParallelClusters:      int(int64Or(m.MaxParallelClusters, 0)),
		RequestTimeout:           DefaultRequestTimeout,
		PlanValidation:           stringOr(m.PlanValidation, PlanValidationServer),
		ReadCredentialsNamespace: stringOr(m.ReadCredentials, registry.DefaultReadCredentialsNamespace),
	}
	m.readOnly(&s, &diags)
	s.Connection.ConfigPath, s.Connection.ConfigPaths = m.kubeconfigPaths(&diags)
	insecure, err := envBool(m.Insecure, "KUBE_INSECURE")
	if err != nil {
		diags.AddAttributeError(path.Root("insecure"), "Invalid insecure setting", err.Error())
	}
	s.Connection.Insecure = insecure

	if !m.RequestTimeout.IsNull() && !m.RequestTimeout.IsUnknown() {
		timeout, d := m.RequestTimeout.ValueGoDuration()
		diags.Append(d...)
		s.RequestTimeout = timeout
	}
	s.Connection.Timeout = s.RequestTimeout

	exec, execDiags := m.Exec.config(context.Background())
	diags.Append(execDiags...)
	if exec != nil && exec.Command == "" {
		diags.AddAttributeError(path.Root("exec").AtName("command"), "Missing exec command",
			"The exec block needs a command that prints an ExecCredential.")
	}
	s.Connection.Exec = exec
	return s, diags
}

// readOnly resolves read_only into s: a read-only plan validates on the
// client, as its credentials may not write to a member even in a dry run;
// and the read credentials are kept apart from the write credentials.
func (m providerModel) readOnly(s *settings, diags *diag.Diagnostics) {
	readOnly, err := envBool(m.ReadOnly, "KUBEFED_READ_ONLY")
	if err != nil {
		diags.AddAttributeError(path.Root("read_only"), "Invalid read_only setting", err.Error())
	}
	if s.ReadOnly = readOnly; readOnly {
		s.PlanValidation = PlanValidationClient
	}
	if s.ReadCredentialsNamespace == s.FederationNamespace {
		diags.AddAttributeError(path.Root("read_credentials_namespace"), "Read credentials beside write credentials",
			fmt.Sprintf("read_credentials_namespace is the federation namespace %q, whose Secrets hold the clusters' write "+
				"credentials: a planner that may read the read credentials could read those too. Name another namespace.",
				s.FederationNamespace))
	}
}

// kubeconfigPaths resolves config_path and config_paths as the
// hashicorp/kubernetes provider does: the attributes, else KUBE_CONFIG_PATH,
// else KUBE_CONFIG_PATHS, whose empty entries are skipped as KUBECONFIG's are.
func (m providerModel) kubeconfigPaths(diags *diag.Diagnostics) (string, []string) {
	var paths []string
	if !m.ConfigPaths.IsNull() && !m.ConfigPaths.IsUnknown() {
		diags.Append(m.ConfigPaths.ElementsAs(context.Background(), &paths, false)...)
	}
	switch {
	case !m.ConfigPath.IsNull() && !m.ConfigPath.IsUnknown(), len(paths) > 0:
		return m.ConfigPath.ValueString(), paths
	case os.Getenv("KUBE_CONFIG_PATH") != "":
		return os.Getenv("KUBE_CONFIG_PATH"), nil
	default:
		return "", slices.DeleteFunc(filepath.SplitList(os.Getenv("KUBE_CONFIG_PATHS")), func(p string) bool { return p == "" })
	}
}

func stringOr(v types.String, fallback string) string {
	if v.IsNull() || v.IsUnknown() || v.ValueString() == "" {
		return fallback
	}
	return v.ValueString()
}

func int64Or(v types.Int64, fallback int64) int64 {
	if v.IsNull() || v.IsUnknown() {
		return fallback
	}
	return v.ValueInt64()
}
