package federation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// NameProblems says what the host or a member would refuse in the name
// and namespace of a template, or returns nil. The Federated<Kind>
// that holds the object is a custom resource of the same name, so the name
// must be a DNS-1123 subdomain whatever the kind; a Namespace's and a
// Service's names are labels.
func (id Identity) NameProblems() []string {
	var problems []string
	if id.Namespace != "" {
		if errs := validation.IsDNS1123Label(id.Namespace); len(errs) > 0 {
			problems = append(problems, fmt.Sprintf("metadata.namespace %q is not a DNS-1123 label: %s", id.Namespace, strings.Join(errs, "; ")))
		}
	}
	check, form := validation.IsDNS1123Subdomain, "a DNS-1123 subdomain"
	switch {
	case id.APIVersion == "v1" && id.Kind == "Namespace":
		check, form = validation.IsDNS1123Label, "a DNS-1123 label, as a Namespace's name must be"
	case id.APIVersion == "v1" && id.Kind == "Service":
		check, form = validation.IsDNS1035Label, "a DNS-1035 label, as a Service's name must be"
	}
	if errs := check(id.Name); len(errs) > 0 {
		problems = append(problems, fmt.Sprintf("metadata.name %q is not %s: %s", id.Name, form, strings.Join(errs, "; ")))
	}
	return problems
}

// DuplicateNames returns the names that occur more than once, each once,
// in the order of their second occurrence.
func DuplicateNames(names []string) []string {
	count := map[string]int{}
	var out []string
	for _, name := range names {
		count[name]++
		if count[name] == 2 {
			out = append(out, name)
		}
	}
	return out
}

// TemplateHasNamespace decides an object's scope from its template alone,
// for those that know no federated type: a namespace means a namespaced
// object.
func TemplateHasNamespace(template string) bool {
	var object struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	return yaml.Unmarshal([]byte(template), &object) == nil && object.Metadata.Namespace != ""
}
