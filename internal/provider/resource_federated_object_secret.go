package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
)

// redactDiagnostics takes the values out of every diagnostic's summary and
// detail, keeping its severity and attribute: what a member's API server
// says about a Secret may quote it.
func redactDiagnostics(diags *diag.Diagnostics, values []string) {
	if len(values) == 0 {
		return
	}
	out := make(diag.Diagnostics, 0, len(*diags))
	for _, d := range *diags {
		summary, detail := objectset.Redact(d.Summary(), values), objectset.Redact(d.Detail(), values)
		if summary == d.Summary() && detail == d.Detail() {
			out = append(out, d)
			continue
		}
		var clean diag.Diagnostic = diag.NewWarningDiagnostic(summary, detail)
		if d.Severity() == diag.SeverityError {
			clean = diag.NewErrorDiagnostic(summary, detail)
		}
		if withPath, ok := d.(diag.DiagnosticWithPath); ok {
			clean = diag.WithPath(withPath.Path(), clean)
		}
		out = append(out, clean)
	}
	*diags = out
}
