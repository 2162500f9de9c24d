package provider

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

var (
	_ validator.String         = dnsLabelValidator{}
	_ validator.String         = httpURLValidator{}
	_ validator.String         = pemCertificateValidator{}
	_ validator.String         = tlsValidationValidator{}
	_ validator.List           = tlsValidationListValidator{}
	_ resource.ConfigValidator = credentialsValidator{}
	_ validator.String         = nonEmptyCredential{}
	_ validator.Map            = labelsValidator{}
)

// Validation messages, one per rule, so tests can pin them.
const (
	msgDNSLabel       = "must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit (got %q)"
	msgHTTPURL        = "must be an http or https URL with a host, such as https://203.0.113.10:6443 (got %q)"
	msgPEMCertificate = "must be PEM text with at least one CERTIFICATE block"
	msgTLSValidation  = `must be "*", "SubjectName" or "ValidityPeriod" (got %q)`
	msgTLSAllAlone    = `"*" disables every TLS check and must be the only element`
	msgCredNone       = "set exactly one kind of credentials: token (or token_wo), or client_certificate together with client_key " +
		"(configuration that terraform plan -generate-config-out wrote for an imported cluster leaves them null, being " +
		"sensitive: set them to what the cluster's credential Secret in the host holds)"
	msgCredBoth  = "token (or token_wo) and client_certificate/client_key are mutually exclusive: set only one kind of credentials"
	msgCredPair  = "client_certificate and client_key must be set together"
	msgCredEmpty = "is empty: an empty credential would let the provider talk to the cluster anonymously; set the real value, or leave the attribute out"
)

// dnsLabelValidator accepts a DNS-1123 label, which is what a cluster's name
// must be: it names a KubeFedCluster and is used in labels and hostnames.
type dnsLabelValidator struct{}

func (dnsLabelValidator) Description(context.Context) string {
	return "a DNS-1123 label"
}

func (v dnsLabelValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (dnsLabelValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	if len(validation.IsDNS1123Label(value)) > 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid name", nestedPath(req.Path)+fmt.Sprintf(msgDNSLabel, value))
	}
}

// httpURLValidator accepts an absolute http or https URL with a host.
type httpURLValidator struct{}

func (httpURLValidator) Description(context.Context) string { return "an http or https URL" }

func (v httpURLValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (httpURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid URL", fmt.Sprintf(msgHTTPURL, value))
	}
}

// pemCertificateValidator accepts PEM text holding at least one certificate.
type pemCertificateValidator struct{}

func (pemCertificateValidator) Description(context.Context) string {
	return "PEM with at least one CERTIFICATE block"
}

func (v pemCertificateValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (pemCertificateValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if !hasPEMCertificate([]byte(req.ConfigValue.ValueString())) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid PEM", msgPEMCertificate)
	}
}

func hasPEMCertificate(data []byte) bool {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return false
		}
		if block.Type == "CERTIFICATE" {
			return true
		}
	}
}

// tlsValidationValidator accepts the names of the TLS checks KubeFed can
// skip.
type tlsValidationValidator struct{}

func (tlsValidationValidator) Description(context.Context) string {
	return `one of "*", "SubjectName", "ValidityPeriod"`
}

func (v tlsValidationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (tlsValidationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	if !slices.Contains([]string{member.TLSAll, member.TLSSubjectName, member.TLSValidityPeriod}, value) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid TLS validation", fmt.Sprintf(msgTLSValidation, value))
	}
}

// tlsValidationListValidator requires "*" to stand alone, as KubeFed does.
type tlsValidationListValidator struct{}

func (tlsValidationListValidator) Description(context.Context) string {
	return `"*" only alone`
}

func (v tlsValidationListValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (tlsValidationListValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	elements := req.ConfigValue.Elements()
	if len(elements) < 2 {
		return
	}
	for _, e := range elements {
		if s, ok := e.(types.String); ok && !s.IsUnknown() && s.ValueString() == member.TLSAll {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid disabled_tls_validations", msgTLSAllAlone)
			return
		}
	}
}

// credentialsValidator requires exactly one kind of member credentials.
// Unknown values count as set: they will be, at apply.
type credentialsValidator struct{}

func (credentialsValidator) Description(context.Context) string {
	return "exactly one of token, or client_certificate with client_key"
}

func (v credentialsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (credentialsValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var token, tokenWO, cert, key types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("token"), &token)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("token_wo"), &tokenWO)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("client_certificate"), &cert)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("client_key"), &key)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if p, msg := credentialsProblem(!token.IsNull() || !tokenWO.IsNull(), !cert.IsNull(), !key.IsNull()); msg != "" {
		resp.Diagnostics.AddAttributeError(p, "Invalid credentials", msg)
	}
}

// credentialsProblem says what is wrong with a combination of set
// credential attributes, and where, or returns an empty message.
func credentialsProblem(token, cert, key bool) (path.Path, string) {
	switch {
	case token && (cert || key):
		return path.Root("token"), msgCredBoth
	case cert != key:
		if cert {
			return path.Root("client_key"), msgCredPair
		}
		return path.Root("client_certificate"), msgCredPair
	case !token && !cert:
		return path.Root("token"), msgCredNone
	}
	return path.Empty(), ""
}

// nonEmptyCredential refuses an empty token or key, which would register
// a cluster the provider then reaches without credentials. A value known
// only at apply is checked then, by the probe.
type nonEmptyCredential struct{}

func (nonEmptyCredential) Description(context.Context) string { return "a non-empty credential" }

func (v nonEmptyCredential) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (nonEmptyCredential) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if strings.TrimSpace(req.ConfigValue.ValueString()) == "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Empty credential", req.Path.String()+" "+msgCredEmpty)
	}
}

// nestedPath names an attribute inside another one, which the CLI cannot
// point at in the configuration, as a prefix of a message; a top-level
// attribute's line is shown by the CLI, so it needs none.
func nestedPath(p path.Path) string {
	if len(p.Steps()) < 2 {
		return ""
	}
	return p.String() + ": "
}

// labelsValidator checks a map of Kubernetes labels: qualified names as
// keys, label values as values.
type labelsValidator struct{}

func (labelsValidator) Description(context.Context) string { return "Kubernetes labels" }

func (v labelsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (labelsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for key, v := range req.ConfigValue.Elements() {
		value, ok := v.(types.String)
		if !ok || value.IsUnknown() {
			continue
		}
		problems := append(validation.IsQualifiedName(key), validation.IsValidLabelValue(value.ValueString())...)
		if len(problems) > 0 {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(key), "Invalid label",
				fmt.Sprintf("%s[%q] = %q: %s", req.Path, key, value.ValueString(), strings.Join(problems, "; ")))
		}
	}
}
