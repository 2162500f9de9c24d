package federation

import (
	"encoding/json"
	"fmt"
	"strconv"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// applyOptions are RFC 6902 as written: no negative array indices, no
// implicit creation of missing parents, no tolerance for removing what is
// not there.
var applyOptions = func() *jsonpatch.ApplyOptions {
	o := jsonpatch.NewApplyOptions()
	o.SupportNegativeIndices = false
	o.EscapeHTML = false
	return o
}()

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
