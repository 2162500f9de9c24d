package federation

import (
	"strings"
	"testing"
)

func TestTemplateErrorsSpeakTheTemplatesLanguage(t *testing.T) {
	tests := []struct {
		name, template string
		want, not      string
	}{
		{"JSON with a trailing comma", `{"apiVersion": "v1", "kind": "ConfigMap",}`, "invalid JSON at line 1", "yaml"},
		{"JSON on several lines", "{\n  \"apiVersion\": \"v1\",\n  \"kind\" \"ConfigMap\"\n}", "invalid JSON at line 3", "yaml"},
		{"YAML stays YAML", "kind: [unclosed", "yaml", "JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRenderer(RenderSpec{Template: tt.template})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), tt.not) {
				t.Errorf("error %v: want %q, not %q", err, tt.want, tt.not)
			}
		})
	}
}
