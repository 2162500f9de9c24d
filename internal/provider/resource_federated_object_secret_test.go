package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
)

func TestSecretTemplateProblem(t *testing.T) {
	tests := []struct {
		name                       string
		typeName, apiVersion, kind string
		refused                    bool
	}{
		{name: "a Secret template", typeName: "secrets", apiVersion: "v1", kind: "Secret", refused: true},
		{name: "the type known, the template not yet", typeName: "secrets", refused: true},
		{name: "the template known, the type not yet", apiVersion: "v1", kind: "Secret", refused: true},
		{name: "a ConfigMap", typeName: "configmaps", apiVersion: "v1", kind: "ConfigMap"},
		{name: "a custom kind called Secret", typeName: "secrets.example.com", apiVersion: "example.com/v1", kind: "Secret"},
		{name: "nothing known yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := secretTemplateProblem(tt.typeName, tt.apiVersion, tt.kind)
			if refused := msg != ""; refused != tt.refused {
				t.Fatalf("refused = %v, want %v (%q)", refused, tt.refused, msg)
			}
			if tt.refused && !strings.Contains(msg, "sensitive_template") {
				t.Errorf("the message does not name the attribute to use: %q", msg)
			}
		})
	}
}

func TestSecretOverrideProblems(t *testing.T) {
	rules := []federation.OverrideRule{
		{Cluster: "berlin", Patches: []federation.Patch{
			{Path: "/metadata/labels/tier", Value: `"gold"`},
			{Path: "/data/password", Value: `"aHVudGVyMg=="`},
		}},
		{Cluster: "new-york", Patches: []federation.Patch{
			{Op: federation.OpRemove, Path: "/stringData/token"},
			{Op: federation.OpAdd, Path: "/stringData", Value: `{"token":"x"}`},
		}},
	}
	got := secretOverrideProblems(rules)
	want := []path.Path{
		path.Root("overrides").AtListIndex(0).AtName("patches").AtListIndex(1).AtName("value"),
		path.Root("overrides").AtListIndex(1).AtName("patches").AtListIndex(1).AtName("value"),
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if !got[i].at.Equal(want[i]) {
			t.Errorf("problem %d at %s, want %s", i, got[i].at, want[i])
		}
		if !strings.Contains(got[i].message, "sensitive_template") {
			t.Errorf("problem %d does not say where the values go: %q", i, got[i].message)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct {
		name, text string
		values     []string
		want       string
	}{
		{name: "a value quoted by a server", text: `data[password]: Invalid value: "hunter2!"`, values: []string{"hunter2!"},
			want: `data[password]: Invalid value: "(sensitive value)"`},
		{name: "the longer value first", text: "aHVudGVyMg== and hunter2", values: []string{"hunter2", "aHVudGVyMg=="},
			want: "(sensitive value) and (sensitive value)"},
		{name: "short values are left alone", text: "a value of abc", values: []string{"abc"}, want: "a value of abc"},
		{name: "no values", text: "nothing to hide", want: "nothing to hide"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := objectset.Redact(tt.text, tt.values); got != tt.want {
				t.Errorf("redact() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRedactDiagnostics(t *testing.T) {
	at := path.Root("sensitive_template")
	var diags diag.Diagnostics
	diags.AddAttributeError(at, "Cluster \"berlin\" rejects the object", `value "hunter2!" is too long`)
	diags.AddWarning("Cluster \"berlin\" warns", "hunter2! is deprecated")
	diags.AddWarning("Unrelated", "nothing secret")
	redactDiagnostics(&diags, []string{"hunter2!"})
	for _, d := range diags {
		if strings.Contains(d.Detail(), "hunter2!") {
			t.Errorf("%q still shows the value: %q", d.Summary(), d.Detail())
		}
	}
	withPath, ok := diags[0].(diag.DiagnosticWithPath)
	if !ok || !withPath.Path().Equal(at) || diags[0].Severity() != diag.SeverityError {
		t.Errorf("the first diagnostic lost its severity or attribute: %#v", diags[0])
	}
	if diags[1].Severity() != diag.SeverityWarning || diags[2].Detail() != "nothing secret" {
		t.Errorf("the warnings changed: %#v", diags[1:])
	}
}
