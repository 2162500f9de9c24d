package federation

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// applyOptions apply RFC 6902 as KubeFed's patch library did, which read
// negative array indices from the end: -1 is the last element, and for
// add, which may insert after it, the end of the list. Missing parents are
// not created and removing what is not there fails. The other leniency of
// that library, replace creating a missing object member, is replay's.
var applyOptions = func() *jsonpatch.ApplyOptions {
	o := jsonpatch.NewApplyOptions()
	o.SupportNegativeIndices = true
	o.EscapeHTML = false
	return o
}()

// step is one operation of a cluster's patch, with where it comes from:
// a rule's patch, or the replica count when rule is -1.
type step struct {
	rule, patch int
	op          jsonpatch.Operation
	path        []string
}

// patched returns the template, decoded, with the cluster's operations
// applied, and the notes about them. All operations are applied in one go,
// which parses the document once; only when that fails are they replayed
// one at a time.
func (r *Renderer) patched(cluster Cluster, replicas *int64, targeting []int) (map[string]any, []Note, error) {
	doc := r.template
	if ops := r.operations(replicas, targeting); len(ops) > 0 {
		var err error
		if doc, err = ops.ApplyWithOptions(doc, applyOptions); err != nil {
			return r.replay(cluster, replicas, targeting)
		}
	}
	v, err := decodeJSONAsIs(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster %q: %w", cluster.Name, err)
	}
	obj, ok := v.(map[string]any)
	if !ok || identityOf(obj) != r.identityKeys {
		return r.replay(cluster, replicas, targeting)
	}
	return obj, nil, nil
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

// steps lists the same operations as operations, with where they come from.
func (r *Renderer) steps(replicas *int64, targeting []int) []step {
	var steps []step
	if replicas != nil {
		steps = append(steps, step{rule: -1, op: r.replicasOp(*replicas), path: r.replicasTokens})
	}
	for _, i := range targeting {
		for j, op := range r.rules[i].ops {
			steps = append(steps, step{rule: i, patch: j, op: op, path: r.rules[i].paths[j]})
		}
	}
	return steps
}

// replicasOp sets the replica count with "add", which replaces an existing
// value and creates a missing one.
func (r *Renderer) replicasOp(replicas int64) jsonpatch.Operation {
	value := json.RawMessage(strconv.FormatInt(replicas, 10))
	return jsonpatch.Operation{"op": r.replicasOpKind, "path": r.replicasPathRaw, "value": &value}
}

// replay applies the cluster's operations one at a time. A replace of an
// object member that does not exist adds it, as KubeFed's patch library
// did, with a note. Any other failure is returned as the error of its step,
// and so is the step after which the object's identity changed and never
// changed back.
func (r *Renderer) replay(cluster Cluster, replicas *int64, targeting []int) (map[string]any, []Note, error) {
	steps := r.steps(replicas, targeting)
	doc := r.template
	var notes []Note
	blamed, intact := -1, true
	for k, s := range steps {
		next, note, err := applyAsKubeFed(doc, s.op)
		if err != nil {
			return nil, nil, r.stepError(cluster, replicas, s, explainFailure(doc, s.op.Kind(), opPath(s.op), err))
		}
		if note != "" {
			notes = append(notes, Note{Rule: s.rule, Patch: s.patch, Cluster: cluster.Name, Path: opPath(s.op), Message: note})
		}
		after, _ := decodeJSONAsIs(next)
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
		return nil, nil, r.stepError(cluster, replicas, s, fmt.Errorf("%s %q changes the object's kind, name, namespace or generateName, which overrides may not change", s.op.Kind(), opPath(s.op)))
	}
	v, err := decodeJSONAsIs(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster %q: %w", cluster.Name, err)
	}
	return v.(map[string]any), notes, nil
}

// stepError attributes err to the step: to the replica count, or as an
// *OverrideError to the rule's patch.
func (r *Renderer) stepError(cluster Cluster, replicas *int64, s step, err error) error {
	if s.rule < 0 {
		return fmt.Errorf("cluster %q: setting %d replicas at %q: %w", cluster.Name, *replicas, r.replicasPath, err)
	}
	return &OverrideError{Rule: s.rule, Patch: s.patch, Cluster: cluster.Name, Err: err}
}

// applyAsKubeFed applies one operation to doc. When a replace fails only
// because the object member it names does not exist, it adds the member
// instead and says so in a note.
func applyAsKubeFed(doc []byte, op jsonpatch.Operation) ([]byte, string, error) {
	next, err := jsonpatch.Patch{op}.ApplyWithOptions(doc, applyOptions)
	if err == nil || op.Kind() != OpReplace || !missingMember(doc, opPath(op)) {
		return next, "", err
	}
	add := maps.Clone(op)
	add["op"] = rawString(OpAdd)
	if next, err = (jsonpatch.Patch{add}).ApplyWithOptions(doc, applyOptions); err != nil {
		return nil, "", err
	}
	return next, fmt.Sprintf("replace %q: the field does not exist in this cluster's object, so it is added, as KubeFed did; use op %q to add a field", opPath(op), OpAdd), nil
}

// missingMember reports whether path names a member its parent object
// lacks.
func missingMember(doc []byte, path string) bool {
	tokens, err := ParsePointer(path)
	v, derr := decodeJSONAsIs(doc)
	if err != nil || derr != nil || len(tokens) == 0 {
		return false
	}
	parent, _ := resolve(v, tokens[:len(tokens)-1])
	obj, ok := parent.(map[string]any)
	if !ok {
		return false
	}
	_, present := obj[tokens[len(tokens)-1]]
	return !present
}

// explainFailure turns the patch library's error into one that says what
// is wrong with the cluster's object and, where it can, what to write.
func explainFailure(doc []byte, kind, path string, err error) error {
	tokens, perr := ParsePointer(path)
	v, derr := decodeJSON(doc)
	if perr != nil || derr != nil || len(tokens) == 0 {
		return fmt.Errorf("%s %q: %w", kind, path, err)
	}
	parentPath := path[:strings.LastIndexByte(path, '/')]
	parent, parentFound := resolve(v, tokens[:len(tokens)-1])
	if list, isList := parent.([]any); isList {
		return indexError(kind, path, parentPath, tokens[len(tokens)-1], len(list))
	}
	if at, list, isList := missingIndex(v, tokens); isList {
		// An index on the way to the path's parent: only existing elements lead on.
		return indexError(OpReplace, path, pointerOf(tokens[:at]), tokens[at], len(list))
	}
	switch {
	case kind != OpAdd && !lookup(v, tokens):
		return fmt.Errorf("%s %q: the path does not exist in this cluster's object", kind, path)
	case !parentFound:
		return fmt.Errorf("%s %q: the parent of the path does not exist in this cluster's object", kind, path)
	}
	if _, isMap := parent.(map[string]any); isMap {
		return fmt.Errorf("%s %q: %w", kind, path, err)
	}
	what := "nothing can be added inside it"
	if parent == nil {
		what = "set it to an object or a list first"
	}
	return fmt.Errorf("%s %q: the parent of the path, %q, is %s in this cluster's object, not an object or a list; %s", kind, path, parentPath, describe(parent), what)
}

// missingIndex finds the first token, before the last, that reaches
// nothing in doc, and reports whether it indexes a list, and which.
func missingIndex(doc any, tokens []string) (int, []any, bool) {
	for at := range len(tokens) - 1 {
		next, ok := resolve(doc, tokens[at:at+1])
		if !ok {
			list, isList := doc.([]any)
			return at, list, isList
		}
		doc = next
	}
	return 0, nil, false
}

// pointerOf joins tokens into a JSON pointer.
func pointerOf(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// indexError says which indices of a list of n elements the operation
// may use, counted from either end as KubeFed's patch library counted them:
// add may also write at the end, which replace and remove cannot reach.
func indexError(kind, path, listPath, index string, n int) error {
	switch {
	case kind == OpAdd:
		return fmt.Errorf("%s %q: index %q is not in the list at %q, which has %s: use 0 to %d, or -1 to -%d to count from the end; \"-\" appends",
			kind, path, index, listPath, elements(n), n, n+1)
	case n == 0:
		return fmt.Errorf("%s %q: the list at %q is empty, so there is nothing to %s; use op %q to add an element", kind, path, listPath, kind, OpAdd)
	case n == 1:
		return fmt.Errorf("%s %q: index %q is not in the list at %q, which has 1 element: use 0, or -1 to count from the end", kind, path, index, listPath)
	}
	return fmt.Errorf("%s %q: index %q is not in the list at %q, which has %d elements: use 0 to %d, or -1 to -%d to count from the end",
		kind, path, index, listPath, n, n-1, n)
}

func elements(n int) string {
	if n == 1 {
		return "1 element"
	}
	return fmt.Sprintf("%d elements", n)
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
