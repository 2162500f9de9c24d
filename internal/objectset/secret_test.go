package objectset

import (
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
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
			msg := SecretTemplateProblem(tt.typeName, tt.apiVersion, tt.kind)
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
	got := SecretOverrideProblems(rules)
	want := []Path{
		Root("overrides").AtListIndex(0).AtName("patches").AtListIndex(1).AtName("value"),
		Root("overrides").AtListIndex(1).AtName("patches").AtListIndex(1).AtName("value"),
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].At.String() != want[i].String() {
			t.Errorf("problem %d at %s, want %s", i, got[i].At, want[i])
		}
		if !strings.Contains(got[i].Detail, "sensitive_template") {
			t.Errorf("problem %d does not say where the values go: %q", i, got[i].Detail)
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
			if got := Redact(tt.text, tt.values); got != tt.want {
				t.Errorf("redact() = %q, want %q", got, tt.want)
			}
		})
	}
}
