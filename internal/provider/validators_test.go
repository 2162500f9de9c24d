package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

const testCertPEM = `-----BEGIN CERTIFICATE-----
MIIBeTCCAR+gAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDEwl0ZXN0LWNh
MB4XDTI0MDEwMTAwMDAwMFoXDTM0MDEwMTAwMDAwMFowFDESMBAGA1UEAxMJdGVz
-----END CERTIFICATE-----
`

const testKeyPEM = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIO2l
-----END EC PRIVATE KEY-----
`

// stringError runs a string validator and returns its error detail, or "".
func stringError(t *testing.T, v validator.String, value types.String) string {
	t.Helper()
	resp := &validator.StringResponse{}
	v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("x"), ConfigValue: value}, resp)
	if !resp.Diagnostics.HasError() {
		return ""
	}
	return resp.Diagnostics.Errors()[0].Detail()
}

func TestDNSLabelValidator(t *testing.T) {
	for value, want := range map[string]string{
		"berlin":                "",
		"us-west-2":             "",
		"Berlin":                `must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit (got "Berlin")`,
		"-edge":                 `must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit (got "-edge")`,
		"eu.central":            `must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit (got "eu.central")`,
		"":                      `must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit (got "")`,
		strings.Repeat("a", 64): `must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit (got "` + strings.Repeat("a", 64) + `")`,
	} {
		if got := stringError(t, dnsLabelValidator{}, types.StringValue(value)); got != want {
			t.Errorf("%q: got %q, want %q", value, got, want)
		}
	}
	if got := stringError(t, dnsLabelValidator{}, types.StringUnknown()); got != "" {
		t.Errorf("unknown value rejected: %q", got)
	}
}

func TestHTTPURLValidator(t *testing.T) {
	for value, want := range map[string]string{
		"https://203.0.113.10:6443": "",
		"http://api.example.com":    "",
		"ftp://api.example.com":     `must be an http or https URL with a host, such as https://203.0.113.10:6443 (got "ftp://api.example.com")`,
		"203.0.113.10:6443":         `must be an http or https URL with a host, such as https://203.0.113.10:6443 (got "203.0.113.10:6443")`,
		"https://":                  `must be an http or https URL with a host, such as https://203.0.113.10:6443 (got "https://")`,
		"https://exa mple.com/%zz":  `must be an http or https URL with a host, such as https://203.0.113.10:6443 (got "https://exa mple.com/%zz")`,
	} {
		if got := stringError(t, httpURLValidator{}, types.StringValue(value)); got != want {
			t.Errorf("%q: got %q, want %q", value, got, want)
		}
	}
}

func TestPEMCertificateValidator(t *testing.T) {
	const want = "must be PEM text with at least one CERTIFICATE block"
	for name, tc := range map[string]struct{ value, want string }{
		"certificate":          {testCertPEM, ""},
		"key then certificate": {testKeyPEM + testCertPEM, ""},
		"key only":             {testKeyPEM, want},
		"not PEM":              {"MIIBeTCCAR+gAwIBAgIBATAK", want},
		"empty":                {"", want},
	} {
		if got := stringError(t, pemCertificateValidator{}, types.StringValue(tc.value)); got != tc.want {
			t.Errorf("%s: got %q, want %q", name, got, tc.want)
		}
	}
}

func TestTLSValidationValidators(t *testing.T) {
	for value, want := range map[string]string{
		"*":              "",
		"SubjectName":    "",
		"ValidityPeriod": "",
		"subjectname":    `must be "*", "SubjectName" or "ValidityPeriod" (got "subjectname")`,
		"Hostname":       `must be "*", "SubjectName" or "ValidityPeriod" (got "Hostname")`,
	} {
		if got := stringError(t, tlsValidationValidator{}, types.StringValue(value)); got != want {
			t.Errorf("%q: got %q, want %q", value, got, want)
		}
	}

	const alone = `"*" disables every TLS check and must be the only element`
	for name, tc := range map[string]struct {
		values []string
		want   string
	}{
		"star alone":    {[]string{"*"}, ""},
		"two checks":    {[]string{"SubjectName", "ValidityPeriod"}, ""},
		"star and more": {[]string{"SubjectName", "*"}, alone},
	} {
		elements := make([]attr.Value, 0, len(tc.values))
		for _, v := range tc.values {
			elements = append(elements, types.StringValue(v))
		}
		resp := &validator.ListResponse{}
		tlsValidationListValidator{}.ValidateList(context.Background(), validator.ListRequest{
			Path: path.Root("disabled_tls_validations"), ConfigValue: types.ListValueMust(types.StringType, elements),
		}, resp)
		got := ""
		if resp.Diagnostics.HasError() {
			got = resp.Diagnostics.Errors()[0].Detail()
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", name, got, tc.want)
		}
	}
}

func TestCredentialCombinations(t *testing.T) {
	for name, tc := range map[string]struct {
		token, cert, key bool
		wantPath         string
		want             string
	}{
		"token":               {token: true},
		"certificate and key": {cert: true, key: true},
		"nothing": {wantPath: "token", want: "set exactly one kind of credentials: token (or token_wo), or client_certificate together with client_key " +
			"(configuration that terraform plan -generate-config-out wrote for an imported cluster leaves them null, being " +
			"sensitive: set them to what the cluster's credential Secret in the host holds)"},
		"token and cert":      {token: true, cert: true, key: true, wantPath: "token", want: "token (or token_wo) and client_certificate/client_key are mutually exclusive: set only one kind of credentials"},
		"token and key":       {token: true, key: true, wantPath: "token", want: "token (or token_wo) and client_certificate/client_key are mutually exclusive: set only one kind of credentials"},
		"certificate, no key": {cert: true, wantPath: "client_key", want: "client_certificate and client_key must be set together"},
		"key, no certificate": {key: true, wantPath: "client_certificate", want: "client_certificate and client_key must be set together"},
	} {
		p, msg := credentialsProblem(tc.token, tc.cert, tc.key)
		if msg != tc.want || (tc.want != "" && p.String() != tc.wantPath) {
			t.Errorf("%s: got %q at %s, want %q at %s", name, msg, p, tc.want, tc.wantPath)
		}
	}
}
