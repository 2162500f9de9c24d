package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

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
