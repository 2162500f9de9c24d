package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// secretTypeName is the FederatedTypeConfig name of core Secrets.
const secretTypeName = "secrets"

// Messages of the rules that keep a Secret's values out of plans.
const (
	msgSecretInTemplate = "%s: a Secret's values would show in clear text in the plan and in terraform show, because template " +
		"is not a sensitive attribute. Give the Secret as sensitive_template instead (rename the attribute): the CLI hides it, " +
		"and rendered shows digests of its values."
	msgSecretOverride = "%s writes the Secret's values at %q, and override values show in clear text in the plan. Put the " +
		"values in sensitive_template; a Secret whose values differ per cluster is one kubefed_federated_object per value, " +
		"each with its own name and placement."
)

// isSecretType reports whether a federated type federates core Secrets.
func isSecretType(target registry.APIResource) bool {
	return target.Group == "" && target.Kind == "Secret"
}

// secretTemplateProblem says why an object may not be given as template,
// the attribute the plan shows: its type federates Secrets, or its
// template is one. It is empty when the object may. Unknown parts are
// passed as empty strings.
func secretTemplateProblem(typeName, apiVersion, kind string) string {
	switch {
	case typeName == secretTypeName:
		return fmt.Sprintf(msgSecretInTemplate, "type "+secretTypeName+" federates Secrets")
	case apiVersion == "v1" && kind == "Secret":
		return fmt.Sprintf(msgSecretInTemplate, "the template is a Secret")
	}
	return ""
}

// overrideProblem is a patch that may not be written, and why.
type overrideProblem struct {
	at      path.Path
	message string
}

// secretOverrideProblems are the patches of a Secret's overrides that
// would write its values, with the message that says what to do instead.
func secretOverrideProblems(rules []federation.OverrideRule) []overrideProblem {
	var problems []overrideProblem
	for i, rule := range rules {
		for j, p := range rule.Patches {
			if p.Op == federation.OpRemove || !federation.WritesSecretValues(p.Path) {
				continue
			}
			at := path.Root("overrides").AtListIndex(i).AtName("patches").AtListIndex(j)
			problems = append(problems, overrideProblem{at: at.AtName("value"), message: fmt.Sprintf(msgSecretOverride, at, p.Path)})
		}
	}
	return problems
}

// addSecretOverrideProblems reports secretOverrideProblems at their values.
func addSecretOverrideProblems(diags *diag.Diagnostics, rules []federation.OverrideRule) {
	for _, p := range secretOverrideProblems(rules) {
		diags.AddAttributeError(p.at, "Secret value in an override", p.message)
	}
}

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
