package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

var (
	_ validator.String         = stringCheck{}
	_ validator.List           = tlsValidationListValidator{}
	_ resource.ConfigValidator = credentialsValidator{}
	_ validator.Map            = labelsValidator{}
)

// Validation messages, one per rule, so tests can pin them.
const (
	msgDNSLabel       = "must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit (got %q)"
	msgHTTPURL        = "must be an http or https URL with a host, such as https://203.0.113.10:6443 (got %q)"
	msgPEMCertificate = "must be PEM text with at least one CERTIFICATE block"
	msgTLSAllAlone    = `"*" disables every TLS check and must be the only element`
	msgCredNone       = "set exactly one kind of credentials: token (or token_wo), or client_certificate together with client_key (or client_key_wo) " +
		"(configuration that terraform plan -generate-config-out wrote for an imported cluster leaves them null, being " +
		"sensitive: set them to what the cluster's credential Secret in the host holds)"
	msgCredBoth  = "token (or token_wo) and client_certificate/client_key (or client_key_wo) are mutually exclusive: set only one kind of credentials"
	msgCredPair  = "client_certificate and client_key (or client_key_wo) must be set together"
	msgCredEmpty = "must not be empty: an empty credential would let the provider talk to the cluster anonymously; set the real value, " +
		"or leave the attribute out"
	msgDuration = "%q is not a positive duration; write it like \"30s\" or \"2m\""
)

// stringCheck is a string attribute's validator made of one check: it
// reports the check's error under summary, on the attribute, and leaves
// values not known yet to the apply.
type stringCheck struct {
	// describe says what the attribute accepts.
	describe string
	summary  string
	check    func(value string) error
}

func (c stringCheck) Description(context.Context) string { return c.describe }

func (c stringCheck) MarkdownDescription(ctx context.Context) string { return c.Description(ctx) }

func (c stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := c.check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, c.summary, nestedPath(req.Path)+err.Error())
	}
}

// dnsLabelValidator accepts a DNS-1123 label, which is what a cluster's name
// must be: it names a KubeFedCluster and is used in labels and hostnames.
var dnsLabelValidator = stringCheck{describe: "a DNS-1123 label", summary: "Invalid name", check: func(value string) error {
	if len(validation.IsDNS1123Label(value)) > 0 {
		return fmt.Errorf(msgDNSLabel, value)
	}
	return nil
}}

// httpURLValidator accepts an absolute http or https URL with a host.
var httpURLValidator = stringCheck{describe: "an http or https URL", summary: "Invalid URL", check: func(value string) error {
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf(msgHTTPURL, value)
	}
	return nil
}}

// pemCertificateValidator accepts PEM text holding at least one certificate.
var pemCertificateValidator = stringCheck{describe: "PEM with at least one CERTIFICATE block", summary: "Invalid PEM",
	check: func(value string) error {
		if !kube.HasPEMCertificate([]byte(value)) {
			return errors.New(msgPEMCertificate)
		}
		return nil
	}}

// nonEmptyCredential refuses an empty token or key, which would register
// a cluster the provider then reaches without credentials. A value known
// only at apply is checked then, by the probe.
var nonEmptyCredential = stringCheck{describe: "a non-empty credential", summary: "Empty credential", check: func(value string) error {
	if strings.TrimSpace(value) == "" {
		return errors.New(msgCredEmpty)
	}
	return nil
}}

// positiveDuration refuses a duration of zero or less, which would end
// every request before it starts. The type checks the syntax.
var positiveDuration = stringCheck{describe: "a positive Go duration", summary: "Invalid duration", check: func(value string) error {
	if d, err := time.ParseDuration(value); err == nil && d <= 0 {
		return fmt.Errorf(msgDuration, value)
	}
	return nil
}}

// tlsValidationValidator accepts the names of the TLS checks KubeFed can
// skip.
var tlsValidationValidator = stringvalidator.OneOf(member.TLSAll, member.TLSSubjectName, member.TLSValidityPeriod)

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
	return "exactly one of token (or token_wo), or client_certificate with client_key (or client_key_wo)"
}

func (v credentialsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (credentialsValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var token, tokenWO, cert, key, keyWO types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("token"), &token)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("token_wo"), &tokenWO)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("client_certificate"), &cert)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("client_key"), &key)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("client_key_wo"), &keyWO)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if p, msg := credentialsProblem(!token.IsNull() || !tokenWO.IsNull(), !cert.IsNull(), !key.IsNull() || !keyWO.IsNull()); msg != "" {
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
