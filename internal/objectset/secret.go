package objectset

import (
	"fmt"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
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

// IsSecretType reports whether a federated type federates core Secrets.
func IsSecretType(target registry.APIResource) bool {
	return target.Group == "" && target.Kind == "Secret"
}

// SecretTemplateProblem says why an object may not be given as template,
// the attribute the plan shows: its type federates Secrets, or its
// template is one. It is empty when the object may. Unknown parts are
// passed as empty strings.
func SecretTemplateProblem(typeName, apiVersion, kind string) string {
	switch {
	case typeName == secretTypeName:
		return fmt.Sprintf(msgSecretInTemplate, "type "+secretTypeName+" federates Secrets")
	case apiVersion == "v1" && kind == "Secret":
		return fmt.Sprintf(msgSecretInTemplate, "the template is a Secret")
	}
	return ""
}

// SecretOverrideProblems are the patches of a Secret's overrides that
// would write its values, each at its value, with the message that says
// what to do instead.
func SecretOverrideProblems(rules []federation.OverrideRule) Problems {
	var problems Problems
	for i, rule := range rules {
		for j, p := range rule.Patches {
			if p.Op == federation.OpRemove || !federation.WritesSecretValues(p.Path) {
				continue
			}
			at := Root("overrides").AtListIndex(i).AtName("patches").AtListIndex(j)
			problems.AddAttributeError(at.AtName("value"), "Secret value in an override", fmt.Sprintf(msgSecretOverride, at, p.Path))
		}
	}
	return problems
}
