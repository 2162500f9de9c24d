package provider

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	providerschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// How to reach a cluster is said twice in the schema, with the same
// attributes: in the provider block, for the host, and in a cluster's
// join, for a member. Each attribute is defined once below, with what
// differs between the two uses (the wording, the validation).

// connectionModel is the connection attributes both uses share; the
// provider block and join each embed it and add their own.
type connectionModel struct {
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
}

type execModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Command    types.String `tfsdk:"command"`
	Args       types.List   `tfsdk:"args"`
	Env        types.Map    `tfsdk:"env"`
}

// defaultExecAPIVersion is the ExecCredential version of an exec that names
// none.
const defaultExecAPIVersion = "client.authentication.k8s.io/v1"

// config is the credential plugin as kube runs it; nil without one.
func (e *execModel) config(ctx context.Context) (*kube.ExecConfig, diag.Diagnostics) {
	if e == nil {
		return nil, nil
	}
	var diags diag.Diagnostics
	exec := &kube.ExecConfig{APIVersion: stringOr(e.APIVersion, defaultExecAPIVersion), Command: e.Command.ValueString()}
	diags.Append(e.Args.ElementsAs(ctx, &exec.Args, false)...)
	diags.Append(e.Env.ElementsAs(ctx, &exec.Env, false)...)
	return exec, diags
}

// settingKind is the Terraform type of a connection attribute.
type settingKind int

const (
	stringSetting settingKind = iota
	boolSetting
	stringListSetting
	stringMapSetting
)

// connectionSetting is one connection attribute and how each use has it.
type connectionSetting struct {
	name         string
	kind         settingKind
	host, member settingUse
}

// settingUse is a connection attribute as one use has it. validators are
// for string attributes.
type settingUse struct {
	description string
	required    bool
	sensitive   bool
	validators  []validator.String
}

// connectionSettings are the attributes of the provider block and join
// that say where the cluster is and how to log in; exec's are apart.
func connectionSettings() []connectionSetting {
	return []connectionSetting{
		{name: "config_path", kind: stringSetting,
			host: settingUse{description: "Path to a kubeconfig file for the host cluster. Can be set with KUBE_CONFIG_PATH.",
				validators: []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("config_paths"))}},
			member: settingUse{description: "Path to a kubeconfig file with admin access to the member."}},
		{name: "config_context", kind: stringSetting,
			host:   settingUse{description: "Context of the kubeconfig to use; its current context when unset. Can be set with KUBE_CTX."},
			member: settingUse{description: "Context of the kubeconfig to use; its current context when unset."}},
		{name: "host", kind: stringSetting,
			host: settingUse{description: "URL of the host cluster's API server, e.g. `https://127.0.0.1:6443`. Overrides the kubeconfig. " +
				"Can be set with KUBE_HOST."},
			member: settingUse{description: "URL of the member's API server. Overrides the kubeconfig.",
				validators: []validator.String{httpURLValidator}}},
		{name: "token", kind: stringSetting,
			host: settingUse{description: "Bearer token for the host cluster. Can be set with KUBE_TOKEN.", sensitive: true},
			member: settingUse{description: "Bearer token of an admin of the member.", sensitive: true,
				validators: []validator.String{nonEmptyCredential}}},
		{name: "cluster_ca_certificate", kind: stringSetting,
			host: settingUse{description: "PEM-encoded CA certificate that signed the host API server's certificate. " +
				"Can be set with KUBE_CLUSTER_CA_CERT_DATA."},
			member: settingUse{description: "PEM-encoded CA certificate that signed the member API server's certificate.",
				validators: []validator.String{pemCertificateValidator}}},
		{name: "client_certificate", kind: stringSetting,
			host: settingUse{description: "PEM-encoded client certificate for TLS client authentication. Can be set with KUBE_CLIENT_CERT_DATA."},
			member: settingUse{description: "PEM-encoded client certificate of an admin of the member.",
				validators: []validator.String{pemCertificateValidator}}},
		{name: "client_key", kind: stringSetting,
			host: settingUse{description: "PEM-encoded private key of client_certificate. Can be set with KUBE_CLIENT_KEY_DATA.", sensitive: true},
			member: settingUse{description: "PEM-encoded private key of client_certificate.", sensitive: true,
				validators: []validator.String{nonEmptyCredential}}},
		{name: "insecure", kind: boolSetting,
			host: settingUse{description: "Skip TLS verification of the host API server. Defaults to false; setting it true gives a warning. " +
				"Can be set with KUBE_INSECURE."},
			member: settingUse{description: "Skip TLS verification of the member's API server while joining."}},
		{name: "tls_server_name", kind: stringSetting,
			host: settingUse{description: "Server name to verify the host API server's certificate against, when it differs from the host name. " +
				"Can be set with KUBE_TLS_SERVER_NAME."},
			member: settingUse{description: "Server name to verify the member's certificate against, when it differs from the host name."}},
		{name: "proxy_url", kind: stringSetting,
			host: settingUse{description: "URL of a proxy for requests to the host cluster. Can be set with KUBE_PROXY_URL."},
			member: settingUse{description: "URL of a proxy for the join's requests to the member.",
				validators: []validator.String{httpURLValidator}}},
	}
}

// execSettings are the attributes of exec. The provider block checks its
// command when it configures, join requires it in the schema.
func execSettings() []connectionSetting {
	return []connectionSetting{
		{name: "api_version", kind: stringSetting,
			host:   settingUse{description: "API version of the ExecCredential, e.g. `client.authentication.k8s.io/v1`."},
			member: settingUse{description: "API version of the ExecCredential; `client.authentication.k8s.io/v1` when unset."}},
		{name: "command", kind: stringSetting,
			host:   settingUse{description: "Command to run."},
			member: settingUse{description: "Command to run.", required: true}},
		{name: "args", kind: stringListSetting,
			host:   settingUse{description: "Arguments of the command."},
			member: settingUse{description: "Arguments of the command."}},
		{name: "env", kind: stringMapSetting,
			host:   settingUse{description: "Environment variables set for the command."},
			member: settingUse{description: "Environment variables set for the command.", sensitive: true}},
	}
}

const execDescription = "A credential plugin that prints an ExecCredential for the %s, as in a kubeconfig's exec section (e.g. `aws eks get-token`)."

// withHostConnection adds to the provider block's own attributes the
// connection attributes, exec apart: the provider block has it as a block.
func withHostConnection(own map[string]providerschema.Attribute) map[string]providerschema.Attribute {
	maps.Copy(own, hostAttributes(connectionSettings()))
	return own
}

// hostExecBlock is the provider block's exec.
func hostExecBlock() providerschema.SingleNestedBlock {
	return providerschema.SingleNestedBlock{
		Description: fmt.Sprintf(execDescription, "host cluster"),
		Attributes:  hostAttributes(execSettings()),
	}
}

// withMemberConnection adds to join's own attributes the connection
// attributes, exec included.
func withMemberConnection(own map[string]resourceschema.Attribute) map[string]resourceschema.Attribute {
	maps.Copy(own, memberAttributes(connectionSettings()))
	own["exec"] = resourceschema.SingleNestedAttribute{
		Optional:    true,
		Description: fmt.Sprintf(execDescription, "member"),
		Attributes:  memberAttributes(execSettings()),
	}
	return own
}

func hostAttributes(settings []connectionSetting) map[string]providerschema.Attribute {
	attrs := make(map[string]providerschema.Attribute, len(settings))
	for _, s := range settings {
		u := s.host
		switch s.kind {
		case boolSetting:
			attrs[s.name] = providerschema.BoolAttribute{Optional: !u.required, Required: u.required, Sensitive: u.sensitive,
				Description: u.description}
		case stringListSetting:
			attrs[s.name] = providerschema.ListAttribute{Optional: !u.required, Required: u.required, Sensitive: u.sensitive,
				Description: u.description, ElementType: types.StringType}
		case stringMapSetting:
			attrs[s.name] = providerschema.MapAttribute{Optional: !u.required, Required: u.required, Sensitive: u.sensitive,
				Description: u.description, ElementType: types.StringType}
		default:
			attrs[s.name] = providerschema.StringAttribute{Optional: !u.required, Required: u.required, Sensitive: u.sensitive,
				Description: u.description, Validators: u.validators}
		}
	}
	return attrs
}

func memberAttributes(settings []connectionSetting) map[string]resourceschema.Attribute {
	attrs := make(map[string]resourceschema.Attribute, len(settings))
	for _, s := range settings {
		u := s.member
		switch s.kind {
		case boolSetting:
			attrs[s.name] = resourceschema.BoolAttribute{Optional: !u.required, Required: u.required, Sensitive: u.sensitive,
				Description: u.description}
		case stringListSetting:
			attrs[s.name] = resourceschema.ListAttribute{Optional: !u.required, Required: u.required, Sensitive: u.sensitive,
				Description: u.description, ElementType: types.StringType}
		case stringMapSetting:
			attrs[s.name] = resourceschema.MapAttribute{Optional: !u.required, Required: u.required, Sensitive: u.sensitive,
				Description: u.description, ElementType: types.StringType}
		default:
			attrs[s.name] = resourceschema.StringAttribute{Optional: !u.required, Required: u.required, Sensitive: u.sensitive,
				Description: u.description, Validators: u.validators}
		}
	}
	return attrs
}
