package federation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// ManagedLabel marks objects written to member clusters, as KubeFed does, so
// that they can be told apart from objects created there by other means.
const ManagedLabel = "kubefed.io/managed"

// ManagedLabelValue is the value of the ManagedLabel on what the
// federation writes.
const ManagedLabelValue = "true"

// DefaultReplicasPath is where the replica count goes when RenderSpec does
// not say otherwise; it suits Deployments, ReplicaSets and StatefulSets.
const DefaultReplicasPath = "/spec/replicas"

// RenderSpec is what a Renderer needs besides the cluster.
type RenderSpec struct {
	// Template is one YAML or JSON document: the object to federate.
	Template string
	// Namespaced says whether the object's type is namespaced, in which case
	// the template must name a namespace; otherwise it must not.
	Namespaced bool
	// Overrides are applied in order to each cluster they target.
	Overrides []OverrideRule
	// ReplicasPath is the JSON pointer where a cluster's replica count is
	// written; empty means DefaultReplicasPath.
	ReplicasPath string
	// IgnoreFields are field paths, in the syntax ParseFieldPath reads, that
	// are removed from every rendered object after the overrides: fields
	// owned by something else, which are neither applied nor compared.
	IgnoreFields []string
}

// RenderOptions are what a cluster's object depends on besides the
// cluster's name and labels.
type RenderOptions struct {
	// Replicas, when not nil, is written at the replicas path before the
	// overrides.
	Replicas *int64
	// RetainReplicas leaves nothing at the replicas path, neither a count
	// nor the template's value nor an override's, for clusters where
	// something else, such as an autoscaler, owns it. Replicas is then not
	// used.
	RetainReplicas bool
}

// Rendered is the object one cluster receives.
type Rendered struct {
	// Display is the object as canonical JSON (sorted keys, no insignificant
	// whitespace), safe to show: for a Secret, every data and stringData
	// value is replaced by a "sha256:" digest.
	Display string
	// Object is the same canonical JSON with the real values, for applying
	// to the cluster and for nothing else: it may hold secrets.
	Object []byte
	// Sensitive reports that Display hides values that Object holds.
	Sensitive bool
	// Warnings are notes about the template, such as dropped server-owned
	// fields, worth passing on to the user.
	Warnings []string
	// Notes are remarks about how the overrides applied to this cluster,
	// each tied to one patch.
	Notes []Note
}

// Note is a remark about one override patch on one cluster, worth showing
// the user at that patch.
type Note struct {
	Rule, Patch int
	Cluster     string
	// Path is the patch's path.
	Path    string
	Message string
}

func (n Note) String() string {
	return fmt.Sprintf("override rule %d, patch %d, cluster %q: %s", n.Rule, n.Patch, n.Cluster, n.Message)
}

// FieldPathError reports an entry of RenderSpec.IgnoreFields that cannot be
// used.
type FieldPathError struct {
	// Index is the entry's position in IgnoreFields.
	Index int
	Err   error
}

func (e *FieldPathError) Error() string { return fmt.Sprintf("ignored field %d: %v", e.Index, e.Err) }

func (e *FieldPathError) Unwrap() error { return e.Err }

// Renderer renders one template with its overrides for any number of
// clusters. Everything that does not depend on the cluster is checked and
// prepared once, by NewRenderer. Render only adds to the objects a Renderer
// keeps for sharing between clusters; a Renderer may be used from several
// goroutines.
type Renderer struct {
	// template is the template as canonical JSON, what every cluster's
	// patches apply to.
	template []byte
	// host is the template as KubeFed stores it.
	host         map[string]any
	identity     Identity
	identityKeys fieldIdentity
	namespaced   bool
	secret       bool
	rules        []compiledRule
	replicasPath string
	// replicasTokens is replicasPath split, for removing what is there.
	replicasTokens []string
	// replicasLabels says whether the replica count may write a label.
	replicasLabels bool
	// The replicas operation's fixed parts, encoded once.
	replicasOpKind, replicasPathRaw *json.RawMessage
	// ignored are the IgnoreFields, parsed.
	ignored  [][]string
	warnings []string
	// shared holds the objects already rendered, by what they depend on.
	shared *sharedRenders
}

// NewRenderer parses the template and checks the overrides, the replicas
// path and the ignored fields. Errors about overrides are *OverrideError
// values, errors about ignored fields *FieldPathError values.
func NewRenderer(spec RenderSpec) (*Renderer, error) {
	tmpl, err := parseTemplate(spec.Template, spec.Namespaced)
	if err != nil {
		return nil, err
	}
	rules, err := compileOverrides(spec.Overrides)
	if err != nil {
		return nil, err
	}
	replicasPath := spec.ReplicasPath
	if replicasPath == "" {
		replicasPath = DefaultReplicasPath
	}
	replicasTokens, err := checkOverridePath(replicasPath)
	if err != nil {
		return nil, fmt.Errorf("replicas path: %w", err)
	}
	ignored, err := parseIgnoreFields(spec.IgnoreFields)
	if err != nil {
		return nil, err
	}
	canon, err := encodeCanonical(tmpl.obj)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	return &Renderer{
		template:        canon,
		host:            tmpl.host,
		identity:        tmpl.id,
		identityKeys:    identityOf(tmpl.obj),
		namespaced:      spec.Namespaced,
		secret:          tmpl.id.Kind == "Secret",
		rules:           rules,
		replicasPath:    replicasPath,
		replicasTokens:  replicasTokens,
		replicasLabels:  mayWriteLabels(replicasTokens),
		replicasOpKind:  rawString(OpAdd),
		replicasPathRaw: rawString(replicasPath),
		ignored:         ignored,
		warnings:        tmpl.warnings,
		shared:          &sharedRenders{},
	}, nil
}

// Render is NewRenderer followed by one Render call, for callers that
// render a single cluster.
func Render(spec RenderSpec, cluster Cluster, replicas *int64) (Rendered, error) {
	r, err := NewRenderer(spec)
	if err != nil {
		return Rendered{}, err
	}
	return r.Render(cluster, replicas)
}

// Identity returns the apiVersion, kind, namespace and name the template
// declares. Overrides cannot change the kind, namespace or name.
func (r *Renderer) Identity() Identity { return r.identity }

// Warnings returns the template's warnings, also carried by every Rendered.
func (r *Renderer) Warnings() []string { return append([]string(nil), r.warnings...) }

// HostTemplate returns the template as KubeFed stores it in a
// Federated<Kind>'s spec.template: without apiVersion, kind,
// metadata.name and metadata.namespace, and without metadata when nothing
// else is left in it; without the fields the renderer drops; numbers as
// written, as json.Number. The caller owns the copy returned.
func (r *Renderer) HostTemplate() map[string]any {
	return runtime.DeepCopyJSONValue(r.host).(map[string]any)
}

// Canonical returns the display form of an object read back from a
// cluster: what Rendered.Display would be for that object used as the
// template, without overrides, with the same ignored fields removed. Its
// numbers may be of any type encoding/json encodes.
func (r *Renderer) Canonical(live map[string]any) (string, error) {
	raw, err := json.Marshal(live)
	if err != nil {
		return "", fmt.Errorf("live object: %w", err)
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return "", fmt.Errorf("live object: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", fmt.Errorf("live object: must be an object, not %s", describe(v))
	}
	id, _, err := checkObject(obj, r.namespaced)
	if err != nil {
		return "", fmt.Errorf("live object: %w", err)
	}
	r.removeIgnored(obj)
	addManagedLabel(obj)
	out, err := encodeObject(obj, id)
	if err != nil {
		return "", fmt.Errorf("live object: %w", err)
	}
	return out.Display, nil
}

// Render is RenderCluster with a replica count and nothing else.
func (r *Renderer) Render(cluster Cluster, replicas *int64) (Rendered, error) {
	return r.RenderCluster(cluster, RenderOptions{Replicas: replicas})
}

// RenderCluster returns the object the cluster receives: the template,
// then the replica count at the replicas path when there is one, then
// every override rule that targets the cluster, in order; then the
// replicas path is emptied when the cluster retains its replicas, the
// ignored fields are removed and the ManagedLabel is set. Errors about
// overrides are *OverrideError values naming the cluster.
//
// Clusters with the same options and the same targeting rules receive the
// same object, which is rendered once and shared.
func (r *Renderer) RenderCluster(cluster Cluster, opts RenderOptions) (Rendered, error) {
	if opts.Replicas != nil && *opts.Replicas < 0 {
		return Rendered{}, fmt.Errorf("cluster %q: replicas must not be negative, got %d", cluster.Name, *opts.Replicas)
	}
	if opts.RetainReplicas {
		opts.Replicas = nil
	}
	targeting := r.targeting(cluster)
	key := shareKey(opts, targeting)
	if out, ok := r.shared.get(key, cluster.Name); ok {
		out.Warnings = r.Warnings()
		return out, nil
	}
	out, err := r.render(cluster, opts, targeting)
	if err != nil {
		return Rendered{}, err
	}
	r.shared.put(key, out)
	return out, nil
}

// render patches the template with the cluster's operations, removes what
// the cluster does not receive, checks the labels, sets the ManagedLabel and
// encodes the result.
func (r *Renderer) render(cluster Cluster, opts RenderOptions, targeting []int) (Rendered, error) {
	obj, notes, err := r.patched(cluster, opts.Replicas, targeting)
	if err != nil {
		return Rendered{}, err
	}
	if opts.RetainReplicas {
		removeField(obj, r.replicasTokens)
	}
	r.removeIgnored(obj)
	if err := r.checkLabels(cluster, obj, opts.Replicas, targeting); err != nil {
		return Rendered{}, err
	}
	addManagedLabel(obj)
	out, err := encodeObject(obj, r.identity)
	if err != nil {
		return Rendered{}, fmt.Errorf("cluster %q: %w", cluster.Name, err)
	}
	out.Warnings, out.Notes = r.Warnings(), notes
	return out, nil
}

// removeIgnored removes the ignored fields from obj.
func (r *Renderer) removeIgnored(obj map[string]any) {
	for _, tokens := range r.ignored {
		removeField(obj, tokens)
	}
}

// addManagedLabel sets the ManagedLabel in obj, whose metadata and labels
// have been checked: metadata is an object, labels absent, null or an
// object.
func addManagedLabel(obj map[string]any) {
	meta := obj["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		meta["labels"] = labels
	}
	labels[ManagedLabel] = ManagedLabelValue
}

// encodeObject serialises a finished object and, for a Secret, its display.
func encodeObject(obj map[string]any, id Identity) (Rendered, error) {
	var out Rendered
	var err error
	if out.Object, err = encodeCanonical(obj); err != nil {
		return Rendered{}, err
	}
	out.Display = string(out.Object)
	if id.Kind == "Secret" {
		shown, err := maskSecret(obj, id)
		if err != nil {
			return Rendered{}, err
		}
		display, err := encodeCanonical(shown)
		if err != nil {
			return Rendered{}, err
		}
		out.Display = string(display)
		out.Sensitive = out.Display != string(out.Object)
	}
	return out, nil
}

// targeting lists the indices of the rules that target the cluster.
func (r *Renderer) targeting(cluster Cluster) []int {
	var targeting []int
	for i := range r.rules {
		if r.rules[i].targets(cluster) {
			targeting = append(targeting, i)
		}
	}
	return targeting
}

// parseIgnoreFields parses the ignored fields and refuses those that would
// remove a field that identifies the object.
func parseIgnoreFields(paths []string) ([][]string, error) {
	identifying := [][]string{{"apiVersion"}, {"kind"}, {"metadata", "name"}, {"metadata", "namespace"}, {"metadata", "generateName"}}
	ignored := make([][]string, len(paths))
	for i, p := range paths {
		tokens, err := ParseFieldPath(p)
		if err != nil {
			return nil, &FieldPathError{Index: i, Err: err}
		}
		for _, id := range identifying {
			if len(tokens) <= len(id) && slices.Equal(id[:len(tokens)], tokens) {
				return nil, &FieldPathError{Index: i, Err: fmt.Errorf("field path %q would remove %s, which identifies the object", p, strings.Join(id, "."))}
			}
		}
		ignored[i] = tokens
	}
	return ignored, nil
}
