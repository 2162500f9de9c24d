package objectset

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// ManifestList is one attribute of manifests of an application: its name
// (manifests, sensitive_manifests or manifest_objects) and its elements.
type ManifestList struct {
	Name     string
	Elements []string
	// Keys, when set, name the elements: the attribute is a map of objects
	// (manifest_objects), each element one of them as JSON.
	Keys []string
	// Sensitive lists are hidden from the CLI, so a Secret may be in one.
	Sensitive bool
}

// at is the path of element i.
func (l ManifestList) at(i int) Path {
	if l.Keys != nil {
		return Root(l.Name).AtMapKey(l.Keys[i])
	}
	return Root(l.Name).AtListIndex(i)
}

// Manifests parses the lists of an application into its objects, each with
// the element that holds it. Errors (a document that does not parse, an
// object given twice, a Secret in clear) are at their element; hooks warns
// of the Helm hooks and tests left out, at their list.
func Manifests(lists []ManifestList, opts federation.ManifestOptions) (all []federation.Manifest, at []Path, problems, hooks Problems) {
	seen := map[string]Path{}
	for _, list := range lists {
		found, err := federation.ParseManifests(list.Elements, opts)
		for _, e := range SplitErrors(err) {
			var me *federation.ManifestError
			var missing *federation.MissingNamespaceError
			where := Root(list.Name)
			if errors.As(e, &me) {
				where = list.at(me.Element)
			}
			if errors.As(e, &missing) {
				problems.AddAttributeError(where, "Missing namespace", fmt.Sprintf("%s: %v. Set default_namespace (the namespace "+
					"`helm install -n` gives), or metadata.namespace.", where, e))
				continue
			}
			problems.AddAttributeError(where, "Invalid manifest", fmt.Sprintf("%s: %v", where, e))
		}
		found, left := federation.SplitHooks(found)
		hooks.Append(hookWarnings(list, left)...)
		for _, mf := range found {
			where := list.at(mf.Element)
			unversioned := mf.Key
			unversioned.Version = ""
			if first, dup := seen[unversioned.String()]; dup {
				problems.AddAttributeError(where, "Object given twice",
					fmt.Sprintf("%s is in %s and in %s; a set holds each object once.", mf.Key.Object(), first, where))
				continue
			}
			seen[unversioned.String()] = where
			if !list.Sensitive && mf.Key.Group == "" && mf.Key.Kind == "Secret" {
				problems.AddAttributeError(where, "Secret given in "+list.Name,
					fmt.Sprintf("%s would show its values in the plan: put it in sensitive_manifests.", mf.Key.Object()))
			}
			all, at = append(all, mf), append(at, where)
		}
	}
	return all, at, problems, hooks
}

// hookWarnings names the Helm hooks and tests of a manifest list, which the
// set leaves out, and the element of each.
func hookWarnings(list ManifestList, hooks []federation.Manifest) Problems {
	if len(hooks) == 0 {
		return nil
	}
	names := federation.HookNames(hooks)
	for i, h := range hooks {
		names[i] = fmt.Sprintf("%s (%s)", names[i], list.at(h.Element))
	}
	var out Problems
	out.AddAttributeWarning(Root(list.Name), "Helm hooks and tests left out", fmt.Sprintf("Helm runs these objects at a release "+
		"event or on `helm test` instead of installing them: %s. An application has no release events: they are not federated. "+
		"Render the chart with --no-hooks (or --skip-tests) to leave them out, or remove the %s annotation to federate one.",
		strings.Join(names, ", "), federation.HookAnnotation))
	return out
}

// SplitErrors is the errors errors.Join put together.
func SplitErrors(err error) []error {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		return joined.Unwrap()
	}
	return []error{err}
}
