package federation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Identity names the object a template describes.
type Identity struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
}

// serverOwned are metadata fields the API server sets; a template copied
// from `kubectl get -o yaml` carries them, and sending them back would be
// rejected or silently ignored.
var serverOwned = []string{
	"resourceVersion",
	"uid",
	"creationTimestamp",
	"generation",
	"managedFields",
	"selfLink",
	"deletionTimestamp",
	"deletionGracePeriodSeconds",
}

// parsedTemplate is a template read and checked once, in the forms the
// engine needs.
type parsedTemplate struct {
	// obj is the object to render, with canonical numbers.
	obj map[string]any
	// host is the template as KubeFed stores it in a Federated<Kind>.
	host     map[string]any
	id       Identity
	warnings []string
}

// parseTemplate reads one YAML or JSON document, drops server-owned fields
// and checks the fields that identify the object.
func parseTemplate(text string, namespaced bool) (parsedTemplate, error) {
	doc, err := singleDocument(text)
	if err != nil {
		return parsedTemplate{}, err
	}
	v, err := decodeDocument(doc)
	if err != nil {
		return parsedTemplate{}, fmt.Errorf("template: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return parsedTemplate{}, fmt.Errorf("template: must be an object (a YAML mapping), not %s", describe(v))
	}
	id, warnings, err := checkObject(obj, namespaced)
	if err != nil {
		return parsedTemplate{}, fmt.Errorf("template: %w", err)
	}
	host := hostForm(obj)
	if _, err := canonicalNumbers(obj); err != nil {
		return parsedTemplate{}, fmt.Errorf("template: %w", err)
	}
	return parsedTemplate{obj: obj, host: host, id: id, warnings: warnings}, nil
}

// checkObject drops the server-owned fields of obj, a template or an
// object read back from a cluster, and checks the fields that identify it.
// The warnings name the fields dropped.
func checkObject(obj map[string]any, namespaced bool) (Identity, []string, error) {
	warnings := append(dropServerOwned(obj), dropFinalizers(obj)...)
	var id Identity
	var problems []string
	str := func(m map[string]any, key, where string) string {
		switch v := m[key].(type) {
		case nil:
			return ""
		case string:
			return v
		default:
			problems = append(problems, fmt.Sprintf("%s must be a string, not %s", where, describe(v)))
			return ""
		}
	}
	id.APIVersion = str(obj, "apiVersion", "apiVersion")
	id.Kind = str(obj, "kind", "kind")
	meta, isMap := obj["metadata"].(map[string]any)
	if !isMap && obj["metadata"] != nil {
		problems = append(problems, "metadata must be an object, not "+describe(obj["metadata"]))
	}
	if meta != nil {
		id.Name = str(meta, "name", "metadata.name")
		id.Namespace = str(meta, "namespace", "metadata.namespace")
		switch l := meta["labels"].(type) {
		case nil:
		case map[string]any:
			problems = append(problems, templateLabelProblems(l)...)
		default:
			problems = append(problems, "metadata.labels must be an object, not "+describe(l))
		}
	}
	if len(problems) == 0 {
		problems = requiredFields(id, namespaced)
	}
	if len(problems) > 0 {
		return Identity{}, nil, errors.New(strings.Join(problems, "; "))
	}
	return id, warnings, nil
}

// requiredFields lists what the identity lacks, or holds but must not.
func requiredFields(id Identity, namespaced bool) []string {
	var problems []string
	for _, f := range []struct{ value, name string }{
		{id.APIVersion, "apiVersion"}, {id.Kind, "kind"}, {id.Name, "metadata.name"},
	} {
		if f.value == "" {
			problems = append(problems, f.name+" is required")
		}
	}
	switch {
	case namespaced && id.Namespace == "":
		problems = append(problems, fmt.Sprintf("metadata.namespace is required: %s is namespaced", kindOr(id.Kind)))
	case !namespaced && id.Namespace != "":
		problems = append(problems, fmt.Sprintf("metadata.namespace must not be set: %s is cluster-scoped", kindOr(id.Kind)))
	}
	return problems
}

// dropServerOwned removes status and the server-owned metadata fields from
// obj and returns a warning for each that said something.
func dropServerOwned(obj map[string]any) []string {
	var warnings []string
	drop := func(m map[string]any, key, where string) {
		v, ok := m[key]
		if !ok {
			return
		}
		delete(m, key)
		// `kubectl create --dry-run -o yaml` emits `creationTimestamp: null`
		// and `status: {}`; they say nothing, so dropping them is silent.
		if v == nil {
			return
		}
		if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
			return
		}
		warnings = append(warnings, fmt.Sprintf("template: dropped the server-owned field %s; the API server sets it", where))
	}
	drop(obj, "status", "status")
	if meta, ok := obj["metadata"].(map[string]any); ok {
		for _, key := range serverOwned {
			drop(meta, key, "metadata."+key)
		}
	}
	return warnings
}

// dropFinalizers removes metadata.finalizers from obj, with a warning when
// there were any. On a member no controller of the federation ever removes
// them, so deleting the object there would wait forever; KubeFed dropped
// them too. Controllers on the members add the finalizers they handle.
func dropFinalizers(obj map[string]any) []string {
	meta, _ := obj["metadata"].(map[string]any)
	f, ok := meta["finalizers"]
	if !ok {
		return nil
	}
	delete(meta, "finalizers")
	if l, isList := f.([]any); f == nil || isList && len(l) == 0 {
		return nil
	}
	return []string{"template: dropped metadata.finalizers: nothing on the member clusters would remove them, so deleting the object there would never finish; the members' own controllers add the finalizers they handle"}
}

// hostForm is the template as KubeFed stores it in a Federated<Kind>'s
// spec.template: a copy without apiVersion, kind, name and namespace, which
// come from the type and the federated object, and without metadata when
// nothing else is left in it. Numbers stay as written.
func hostForm(obj map[string]any) map[string]any {
	host := runtime.DeepCopyJSONValue(obj).(map[string]any)
	delete(host, "apiVersion")
	delete(host, "kind")
	if meta, ok := host["metadata"].(map[string]any); ok {
		delete(meta, "name")
		delete(meta, "namespace")
		if len(meta) == 0 {
			delete(host, "metadata")
		}
	}
	return host
}

// decodeDocument decodes one YAML or JSON document, keeping each number's
// spelling and dropping the fields whose value is null. Templates and
// manifests are both read with it, so the rendered objects, the host's
// template and the manifests all see the same object.
func decodeDocument(doc []byte) (any, error) {
	if err := jsonSyntax(string(doc)); err != nil {
		return nil, err
	}
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, err
	}
	v, err := decodeJSONAsIs(js)
	if err != nil {
		return nil, err
	}
	dropNullFields(v)
	return v, nil
}

// dropNullFields removes, in place, every key whose value is null from the
// mappings in v, at any depth, lists included. Terraform writes
// `x = cond ? v : null` to mean "no x", as the kubernetes provider reads it,
// and a structural schema would reject the null. A mapping left empty stays:
// `emptyDir: {}` says something. A null element of a list stays too:
// dropping it would shift the positions of the elements after it.
func dropNullFields(v any) {
	switch node := v.(type) {
	case map[string]any:
		for k, child := range node {
			if child == nil {
				delete(node, k)
				continue
			}
			dropNullFields(child)
		}
	case []any:
		for _, child := range node {
			dropNullFields(child)
		}
	}
}

// jsonSyntax reports the syntax error of a document written as JSON (one
// that starts with "{"), in JSON's terms: the YAML parser, which reads JSON
// too, would describe it as a YAML error on line 1.
func jsonSyntax(text string) error {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "{") {
		return nil
	}
	var v any
	err := json.Unmarshal([]byte(trimmed), &v)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		line := 1 + strings.Count(trimmed[:syntax.Offset], "\n")
		return fmt.Errorf("invalid JSON at line %d, byte %d: %w", line, syntax.Offset, syntax)
	}
	if err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return nil
}

// singleDocument returns the one YAML document in text. sigs.k8s.io/yaml
// would silently read only the first of several, hiding the rest.
func singleDocument(text string) ([]byte, error) {
	var found []byte
	for _, d := range splitDocuments(text) {
		if !hasContent(d.text) {
			continue
		}
		if found != nil {
			return nil, errors.New("template: holds more than one YAML document; give one object per federated object")
		}
		found = d.text
	}
	if found == nil {
		return nil, errors.New("template: is empty")
	}
	return found, nil
}

// hasContent reports whether a YAML document holds more than blank lines,
// comments and document markers.
func hasContent(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && !bytes.Equal(line, []byte("---")) && !bytes.Equal(line, []byte("...")) {
			return true
		}
	}
	return false
}

func kindOr(kind string) string {
	if kind == "" {
		return "the type"
	}
	return kind
}
