package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
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
		if got := stringError(t, dnsLabelValidator, types.StringValue(value)); got != want {
			t.Errorf("%q: got %q, want %q", value, got, want)
		}
	}
	if got := stringError(t, dnsLabelValidator, types.StringUnknown()); got != "" {
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
		if got := stringError(t, httpURLValidator, types.StringValue(value)); got != want {
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
		if got := stringError(t, pemCertificateValidator, types.StringValue(tc.value)); got != tc.want {
			t.Errorf("%s: got %q, want %q", name, got, tc.want)
		}
	}
}

func TestTLSValidationValidators(t *testing.T) {
	for value, want := range map[string]string{
		"*":              "",
		"SubjectName":    "",
		"ValidityPeriod": "",
		"subjectname":    `Attribute x value must be one of: ["*" "SubjectName" "ValidityPeriod"], got: "subjectname"`,
		"Hostname":       `Attribute x value must be one of: ["*" "SubjectName" "ValidityPeriod"], got: "Hostname"`,
	} {
		if got := stringError(t, tlsValidationValidator, types.StringValue(value)); got != want {
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
		"nothing": {wantPath: "token", want: "set exactly one kind of credentials: token (or token_wo), or client_certificate together with client_key (or client_key_wo) " +
			"(configuration that terraform plan -generate-config-out wrote for an imported cluster leaves them null, being " +
			"sensitive: set them to what the cluster's credential Secret in the host holds)"},
		"token and cert":      {token: true, cert: true, key: true, wantPath: "token", want: "token (or token_wo) and client_certificate/client_key (or client_key_wo) are mutually exclusive: set only one kind of credentials"},
		"token and key":       {token: true, key: true, wantPath: "token", want: "token (or token_wo) and client_certificate/client_key (or client_key_wo) are mutually exclusive: set only one kind of credentials"},
		"certificate, no key": {cert: true, wantPath: "client_key", want: "client_certificate and client_key (or client_key_wo) must be set together"},
		"key, no certificate": {key: true, wantPath: "client_certificate", want: "client_certificate and client_key (or client_key_wo) must be set together"},
	} {
		p, msg := credentialsProblem(tc.token, tc.cert, tc.key)
		if msg != tc.want || (tc.want != "" && p.String() != tc.wantPath) {
			t.Errorf("%s: got %q at %s, want %q at %s", name, msg, p, tc.want, tc.wantPath)
		}
	}
}

func TestStringCheck(t *testing.T) {
	refuseB := stringCheck{describe: "not b", summary: "Invalid b", check: func(value string) error {
		if value == "b" {
			return errors.New(`must not be "b"`)
		}
		return nil
	}}
	for _, tc := range []struct {
		name        string
		at          path.Path
		value       types.String
		wantSummary string
		wantDetail  string
	}{
		{name: "a value the check takes", at: path.Root("x"), value: types.StringValue("a")},
		{name: "null is left alone", at: path.Root("x"), value: types.StringNull()},
		{name: "unknown is left to the apply", at: path.Root("x"), value: types.StringUnknown()},
		{name: "a top-level attribute: the CLI shows its line", at: path.Root("x"), value: types.StringValue("b"),
			wantSummary: "Invalid b", wantDetail: `must not be "b"`},
		{name: "a nested attribute is named", at: path.Root("join").AtName("x"), value: types.StringValue("b"),
			wantSummary: "Invalid b", wantDetail: `join.x: must not be "b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &validator.StringResponse{}
			refuseB.ValidateString(context.Background(), validator.StringRequest{Path: tc.at, ConfigValue: tc.value}, resp)
			var summary, detail string
			if errs := resp.Diagnostics.Errors(); len(errs) > 0 {
				summary, detail = errs[0].Summary(), errs[0].Detail()
				if got := errs[0].(diag.DiagnosticWithPath).Path(); !got.Equal(tc.at) {
					t.Errorf("error at %s, want %s", got, tc.at)
				}
			}
			if summary != tc.wantSummary || detail != tc.wantDetail {
				t.Errorf("got %q: %q, want %q: %q", summary, detail, tc.wantSummary, tc.wantDetail)
			}
		})
	}
	if got := refuseB.Description(context.Background()); got != "not b" {
		t.Errorf("description %q", got)
	}
}

func TestNonEmptyCredential(t *testing.T) {
	const empty = "must not be empty: an empty credential would let the provider talk to the cluster anonymously; " +
		"set the real value, or leave the attribute out"
	for value, want := range map[string]string{"token": "", "": empty, " \n": empty} {
		if got := stringError(t, nonEmptyCredential, types.StringValue(value)); got != want {
			t.Errorf("%q: got %q, want %q", value, got, want)
		}
	}
}

func TestJSONPointerAndFieldPathValidators(t *testing.T) {
	for _, tc := range []struct {
		name      string
		v         validator.String
		value     string
		wantError string
	}{
		{"pointer", jsonPointerValidator, "/spec/replicas", ""},
		{"pointer without its leading slash", jsonPointerValidator, "spec/replicas", `write a JSON pointer such as "/spec/replicas"`},
		{"field path", fieldPathValidator, `metadata.annotations["example.com/x"]`, ""},
		{"field path with an empty segment", fieldPathValidator, "spec..replicas", "spec..replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := stringError(t, tc.v, types.StringValue(tc.value))
			if (tc.wantError == "") != (got == "") || !strings.Contains(got, tc.wantError) {
				t.Errorf("%q: got %q, want an error with %q", tc.value, got, tc.wantError)
			}
		})
	}
}

// The empty selector selects every cluster; no selector, none of its own;
// labels written without match_labels are an error, never the empty one.
func TestSelectorOf(t *testing.T) {
	everyCluster, err := selectorOf(dynamicOf(t, map[string]any{}), "cluster_selector")
	if err != nil || everyCluster == nil || len(everyCluster.MatchLabels) > 0 || len(everyCluster.MatchExpressions) > 0 {
		t.Errorf("{} = %v, %v; want the empty selector", everyCluster, err)
	}
	if s, err := selectorOf(types.DynamicNull(), "cluster_selector"); s != nil || err != nil {
		t.Errorf("null = %v, %v; want no selector", s, err)
	}
	eu, err := selectorOf(dynamicOf(t, map[string]any{"match_labels": map[string]any{"region": "eu"}}), "cluster_selector")
	if err != nil || eu.MatchLabels["region"] != "eu" {
		t.Errorf("match_labels = %v, %v", eu, err)
	}
	_, err = selectorOf(dynamicOf(t, map[string]any{"region": "eu"}), "placement.cluster_selector")
	if err == nil || !strings.Contains(err.Error(), `placement.cluster_selector has no attribute "region"`) {
		t.Errorf("a label outside match_labels: %v", err)
	}
	var resp validator.DynamicResponse
	selectorValidator{}.ValidateDynamic(context.Background(), validator.DynamicRequest{Path: path.Root("placement").AtName("cluster_selector"),
		ConfigValue: dynamicOf(t, map[string]any{"region": "eu"})}, &resp)
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), "Write labels under match_labels") {
		t.Errorf("the validator says %v", resp.Diagnostics)
	}
}

func dynamicOf(t *testing.T, form any) types.Dynamic {
	t.Helper()
	v, err := tfvalue.Dynamic(form)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
