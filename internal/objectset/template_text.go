package objectset

import (
	"maps"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// TemplateFromHost is the template a Federated<Kind> carries, completed
// with what KubeFed leaves out of it (apiVersion, kind, name and
// namespace), as text: the configuration's own text when the record holds
// it (registry.TemplateTextAnnotation) and it still means the host's
// template, otherwise jsonencode's form of it. Terraform plans a change of
// a configured attribute whose text differs, whatever it means, so an
// import must give back the configuration's text: its own, or the one that
// `template = jsonencode(...)` writes.
func TemplateFromHost(ft registry.FederatedType, namespace, name string, host registry.FederatedObject) (string, error) {
	return templateText(host.TemplateText, ft.Target.Namespaced, completedTemplate(ft, namespace, name, host.Template), host.Template)
}

// templateText is recorded when it means the object the host records
// (completed, the host's template with its identity; hostTemplate, the
// template as the host holds it), and jsonencode's form of completed
// otherwise: a text that no longer matches (the record was edited since)
// or none (KubeFed or kubectl wrote the record).
func templateText(recorded string, namespaced bool, completed, hostTemplate map[string]any) (string, error) {
	if recorded != "" && meansHostTemplate(recorded, namespaced, completed, hostTemplate) {
		return recorded, nil
	}
	return federation.JSONEncodeForm(completed)
}

// meansHostTemplate reports whether text, read as the provider reads a
// template (YAML or JSON, nulls left out, server-owned fields dropped),
// is the object the host records: the same identity, and the same host
// template, numbers compared by value, keys in any order.
func meansHostTemplate(text string, namespaced bool, completed, hostTemplate map[string]any) bool {
	r, err := federation.NewRenderer(federation.RenderSpec{Template: text, Namespaced: namespaced})
	if err != nil {
		return false
	}
	meta, _ := completed["metadata"].(map[string]any)
	namespace, _ := meta["namespace"].(string)
	want := federation.Identity{APIVersion: completed["apiVersion"].(string), Kind: completed["kind"].(string),
		Name: meta["name"].(string), Namespace: namespace}
	if hostTemplate == nil {
		hostTemplate = map[string]any{}
	}
	return r.Identity() == want && sameJSON(r.HostTemplate(), hostTemplate)
}

// completedTemplate is the host's template with what KubeFed derives from
// the type and the record: apiVersion, kind, name and namespace.
func completedTemplate(ft registry.FederatedType, namespace, name string, hostTemplate map[string]any) map[string]any {
	template := maps.Clone(hostTemplate)
	if template == nil {
		template = map[string]any{}
	}
	template["apiVersion"] = ft.Target.APIVersion()
	template["kind"] = ft.Target.Kind
	meta, _ := template["metadata"].(map[string]any)
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["name"] = name
	if ft.Target.Namespaced {
		meta["namespace"] = namespace
	}
	template["metadata"] = meta
	return template
}
