package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// read_only plans on the client, whatever plan_validation says; the read
// credentials may not share the write credentials' namespace.
func TestSettings_readOnly(t *testing.T) {
	cases := []struct {
		name           string
		model          providerModel
		env            string
		wantReadOnly   bool
		wantValidation string
		wantNamespace  string
		wantError      string
	}{
		{name: "off by default", wantValidation: PlanValidationServer, wantNamespace: "kube-federation-read"},
		{name: "read-only plans on the client", model: providerModel{ReadOnly: types.BoolValue(true),
			PlanValidation: types.StringValue(PlanValidationServer)},
			wantReadOnly: true, wantValidation: PlanValidationClient, wantNamespace: "kube-federation-read"},
		{name: "from the environment", env: "true", wantReadOnly: true, wantValidation: PlanValidationClient,
			wantNamespace: "kube-federation-read"},
		{name: "the attribute over the environment", env: "true", model: providerModel{ReadOnly: types.BoolValue(false)},
			wantValidation: PlanValidationServer, wantNamespace: "kube-federation-read"},
		{name: "a namespace of its own", model: providerModel{ReadCredentials: types.StringValue("planners")},
			wantValidation: PlanValidationServer, wantNamespace: "planners"},
		{name: "not the federation namespace", model: providerModel{ReadCredentials: types.StringValue("kube-federation-system")},
			wantError: "Read credentials beside write credentials"},
		{name: "an environment that is no boolean", env: "sure", wantError: "Invalid read_only setting"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBEFED_READ_ONLY", tc.env)
			tc.model.Host = types.StringValue("https://h")
			s, diags := tc.model.settings()
			if tc.wantError != "" {
				if !diags.HasError() || diags.Errors()[0].Summary() != tc.wantError {
					t.Fatalf("diagnostics %v, want the error %q", diags, tc.wantError)
				}
				return
			}
			if diags.HasError() {
				t.Fatal(diags)
			}
			if s.ReadOnly != tc.wantReadOnly || s.PlanValidation != tc.wantValidation || s.ReadCredentialsNamespace != tc.wantNamespace {
				t.Errorf("read-only %v, validation %q, namespace %q; want %v, %q, %q", s.ReadOnly, s.PlanValidation,
					s.ReadCredentialsNamespace, tc.wantReadOnly, tc.wantValidation, tc.wantNamespace)
			}
		})
	}
}
