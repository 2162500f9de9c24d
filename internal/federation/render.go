package federation

import (
	"encoding/json"
	"fmt"
	"strconv"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// ManagedLabel marks objects written to member clusters, as KubeFed does, so
// that they can be told apart from objects created there by other means.
const ManagedLabel = "kubefed.io/managed"

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
}

// Renderer renders one template with its overrides for any number of
// clusters. Everything that does not depend on the cluster is checked and
// prepared once, by NewRenderer. Render only adds to the objects a Renderer
// keeps for sharing between clusters; a Renderer may be used from several
// goroutines.
type Renderer struct {
	// template is the template as canonical JSON, what every cluster's
	// patches apply to.
	template     []byte
	identity     Identity
	identityKeys fieldIdentity
	secret       bool
	rules        []compiledRule
	replicasPath string
	// The replicas operation's fixed parts, encoded once.
	replicasOpKind, replicasPathRaw *json.RawMessage
	warnings                        []string
	// shared holds the objects already rendered, by what they depend on.
	shared *sharedRenders
}

// applyOptions are RFC 6902 as written: no negative array indices, no
// implicit creation of missing parents, no tolerance for removing what is
// not there.
var applyOptions = func() *jsonpatch.ApplyOptions {
	o := jsonpatch.NewApplyOptions()
	o.SupportNegativeIndices = false
	o.EscapeHTML = false
	return o
}()

// NewRenderer parses the template and checks the overrides and the replicas
// path. Errors about overrides are *OverrideError values.
func NewRenderer(spec RenderSpec) (*Renderer, error) {
	obj, id, warnings, err := parseTemplate(spec.Template, spec.Namespaced)
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
	if err := checkOverridePath(replicasPath); err != nil {
		return nil, fmt.Errorf("replicas path: %w", err)
	}
	tmpl, err := encodeCanonical(obj)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	return &Renderer{
		template:        tmpl,
		identity:        id,
		identityKeys:    identityOf(obj),
		secret:          id.Kind == "Secret",
		rules:           rules,
		replicasPath:    replicasPath,
		replicasOpKind:  rawString(OpAdd),
		replicasPathRaw: rawString(replicasPath),
		warnings:        warnings,
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

// Render returns the object the cluster receives: the template, then
// replicas at the replicas path when replicas is not nil, then every
// override rule that targets the cluster, in order, then the ManagedLabel.
// Errors about overrides are *OverrideError values naming the cluster.
//
// Clusters with the same replica count and the same targeting rules
// receive the same object, which is rendered once and shared.
func (r *Renderer) Render(cluster Cluster, replicas *int64) (Rendered, error) {
	if replicas != nil && *replicas < 0 {
		return Rendered{}, fmt.Errorf("cluster %q: replicas must not be negative, got %d", cluster.Name, *replicas)
	}
	targeting := r.targeting(cluster)
	key := shareKey(replicas, targeting)
	if out, ok := r.shared.get(key); ok {
		out.Warnings = r.Warnings()
		return out, nil
	}
	out, err := r.render(cluster, replicas, targeting)
	if err != nil {
		return Rendered{}, err
	}
	r.shared.put(key, out)
	return out, nil
}

// render patches the template with the cluster's operations, labels the
// result and encodes it.
func (r *Renderer) render(cluster Cluster, replicas *int64, targeting []int) (Rendered, error) {
	obj, err := r.patched(cluster, replicas, targeting)
	if err != nil {
		return Rendered{}, err
	}
	if !addManagedLabel(obj) {
		l := obj["metadata"].(map[string]any)["labels"]
		return Rendered{}, fmt.Errorf("cluster %q: the overrides leave metadata.labels as %s, where the %s label must go", cluster.Name, describe(l), ManagedLabel)
	}
	out, err := r.encode(obj)
	if err != nil {
		return Rendered{}, fmt.Errorf("cluster %q: %w", cluster.Name, err)
	}
	return out, nil
}

// patched returns the template, decoded, with the cluster's operations
// applied. All operations are applied in one go, which parses the document
// once; only when that fails are they replayed one at a time to find the
// culprit.
func (r *Renderer) patched(cluster Cluster, replicas *int64, targeting []int) (map[string]any, error) {
	doc := r.template
	if ops := r.operations(replicas, targeting); len(ops) > 0 {
		var err error
		if doc, err = ops.ApplyWithOptions(doc, applyOptions); err != nil {
			return nil, r.diagnose(cluster, replicas)
		}
	}
	v, err := decodeJSONAsIs(doc)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", cluster.Name, err)
	}
	obj, ok := v.(map[string]any)
	if !ok || identityOf(obj) != r.identityKeys {
		return nil, r.diagnose(cluster, replicas)
	}
	return obj, nil
}

// addManagedLabel sets the ManagedLabel in obj, whose identity has been
// checked, so that it has metadata. It reports false when metadata.labels
// is neither absent, null nor an object.
func addManagedLabel(obj map[string]any) bool {
	meta := obj["metadata"].(map[string]any)
	switch l := meta["labels"].(type) {
	case nil:
		meta["labels"] = map[string]any{ManagedLabel: "true"}
	case map[string]any:
		l[ManagedLabel] = "true"
	default:
		return false
	}
	return true
}

// encode serialises the finished object and, for a Secret, its display.
func (r *Renderer) encode(obj map[string]any) (Rendered, error) {
	out := Rendered{Warnings: r.Warnings()}
	var err error
	if out.Object, err = encodeCanonical(obj); err != nil {
		return Rendered{}, err
	}
	out.Display = string(out.Object)
	if r.secret {
		shown, err := maskSecret(obj, r.identity)
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

// operations lists the patch operations for a cluster: the replica count,
// then the operations of each rule that targets the cluster.
func (r *Renderer) operations(replicas *int64, targeting []int) jsonpatch.Patch {
	n := 0
	for _, i := range targeting {
		n += len(r.rules[i].ops)
	}
	if replicas != nil {
		n++
	}
	if n == 0 {
		return nil
	}
	ops := make(jsonpatch.Patch, 0, n)
	if replicas != nil {
		ops = append(ops, r.replicasOp(*replicas))
	}
	for _, i := range targeting {
		ops = append(ops, r.rules[i].ops...)
	}
	return ops
}

// replicasOp sets the replica count with "add", which replaces an existing
// value and creates a missing one.
func (r *Renderer) replicasOp(replicas int64) jsonpatch.Operation {
	value := json.RawMessage(strconv.FormatInt(replicas, 10))
	return jsonpatch.Operation{"op": r.replicasOpKind, "path": r.replicasPathRaw, "value": &value}
}

// diagnose replays the cluster's operations one at a time and returns the
// error of the first that fails, or, when all apply, blames the operation
// after which the object's identity changed and never changed back.
func (r *Renderer) diagnose(cluster Cluster, replicas *int64) error {
	type step struct {
		rule, patch int
		op          jsonpatch.Operation
	}
	var steps []step
	if replicas != nil {
		steps = append(steps, step{rule: -1, op: r.replicasOp(*replicas)})
	}
	for i := range r.rules {
		if r.rules[i].targets(cluster) {
			for j, op := range r.rules[i].ops {
				steps = append(steps, step{rule: i, patch: j, op: op})
			}
		}
	}
	fail := func(s step, err error) error {
		if s.rule < 0 {
			return fmt.Errorf("cluster %q: setting %d replicas at %q: %w", cluster.Name, *replicas, r.replicasPath, err)
		}
		return &OverrideError{Rule: s.rule, Patch: s.patch, Cluster: cluster.Name, Err: err}
	}

	doc := r.template
	blamed, intact := -1, true
	for k, s := range steps {
		next, err := jsonpatch.Patch{s.op}.ApplyWithOptions(doc, applyOptions)
		if err != nil {
			return fail(s, explainFailure(doc, s.op.Kind(), opPath(s.op), err))
		}
		after, _ := decodeJSON(next)
		now := identityOfAny(after) == r.identityKeys
		switch {
		case intact && !now:
			blamed = k
		case now:
			blamed = -1
		}
		intact, doc = now, next
	}
	if blamed >= 0 {
		s := steps[blamed]
		return fail(s, fmt.Errorf("%s %q changes the object's kind, name, namespace or generateName, which overrides may not change", s.op.Kind(), opPath(s.op)))
	}
	return fmt.Errorf("cluster %q: the overrides could not be applied", cluster.Name)
}

// explainFailure turns the patch library's error into one that says what
// is wrong with the cluster's object.
func explainFailure(doc []byte, kind, path string, err error) error {
	tokens, perr := ParsePointer(path)
	v, derr := decodeJSON(doc)
	if perr == nil && derr == nil && len(tokens) > 0 {
		switch {
		case (kind == OpReplace || kind == OpRemove) && !lookup(v, tokens):
			return fmt.Errorf("%s %q: the path does not exist in this cluster's object", kind, path)
		case kind == OpAdd && !lookup(v, tokens[:len(tokens)-1]):
			return fmt.Errorf("%s %q: the parent of the path does not exist in this cluster's object", kind, path)
		}
	}
	return fmt.Errorf("%s %q: %w", kind, path, err)
}

func opPath(op jsonpatch.Operation) string {
	p, _ := op.Path()
	return p
}

// fieldIdentity holds the fields overrides may not change, each as its
// string value or, when absent or not a string, a marker starting with a NUL
// byte, which Kubernetes names and kinds cannot contain.
type fieldIdentity [4]string

func identityOf(obj map[string]any) fieldIdentity {
	meta, _ := obj["metadata"].(map[string]any)
	return fieldIdentity{
		identityField(obj, "kind"),
		identityField(meta, "name"),
		identityField(meta, "namespace"),
		identityField(meta, "generateName"),
	}
}

func identityOfAny(v any) fieldIdentity {
	obj, ok := v.(map[string]any)
	if !ok {
		return fieldIdentity{"\x00not an object"}
	}
	return identityOf(obj)
}

func identityField(m map[string]any, key string) string {
	v, ok := m[key]
	if !ok {
		return "\x00absent"
	}
	if s, isString := v.(string); isString {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "\x00unencodable"
	}
	return "\x00" + string(b)
}
