package registry

import (
	"strings"
	"testing"
)

// The template's text is recorded and read back, unless it would take the
// record's annotations past the budget: the API server refuses records
// whose annotations pass 256 KiB.
func TestTemplateTextAnnotation(t *testing.T) {
	ft := NewFederatedType(APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}, Enabled, Disabled)
	short := "apiVersion: v1\nkind: ConfigMap\n"
	tests := []struct {
		name string
		text string
		want string
	}{
		{"a template's text is kept", short, short},
		{"no text, no annotation", "", ""},
		{"a text that fits exactly", strings.Repeat("x", templateTextBudget-len(TemplateTextAnnotation)), strings.Repeat("x", templateTextBudget-len(TemplateTextAnnotation))},
		{"a text one byte too long is left out", strings.Repeat("x", templateTextBudget-len(TemplateTextAnnotation)+1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := federatedObjectToUnstructured(ft, FederatedObject{Namespace: "web", Name: "web", TemplateText: tt.text})
			if err != nil {
				t.Fatal(err)
			}
			if got := u.GetAnnotations()[TemplateTextAnnotation]; got != tt.want {
				t.Errorf("annotation holds %d bytes, want %d", len(got), len(tt.want))
			}
			back, err := federatedObjectFromUnstructured(u)
			if err != nil {
				t.Fatal(err)
			}
			if back.TemplateText != tt.want {
				t.Errorf("read back %d bytes, want %d", len(back.TemplateText), len(tt.want))
			}
		})
	}
}
