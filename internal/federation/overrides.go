package federation

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// OverrideRule adjusts the object for the clusters it targets. A rule
// targets either one cluster by name or every cluster its selector matches.
// Rules apply in list order, so a later rule wins over an earlier one on the
// same path.
type OverrideRule struct {
	// Cluster targets the cluster of that name.
	Cluster string
	// Selector targets the clusters whose labels match; an empty Selector
	// targets every cluster.
	Selector *metav1.LabelSelector
	// Patches are applied in order.
	Patches []Patch
}

// Patch is one RFC 6902 operation, applied as KubeFed's patch library
// applied it: a replace of an object member that does not exist adds it
// (with a Note), and negative array indices count from the end.
type Patch struct {
	// Op is OpAdd, OpReplace or OpRemove; empty means OpReplace, as in KubeFed.
	Op string
	// Path is an RFC 6901 JSON pointer, such as "/spec/template/spec/containers/0/image".
	// An array index of -1 is the last element; for OpAdd, the end of the array.
	Path string
	// Value is JSON text, such as `"nginx:1.27"` or `{"team":"web"}`.
	// It must be empty for OpRemove.
	Value string
}

// The patch operations overrides may use.
const (
	OpAdd     = "add"
	OpReplace = "replace"
	OpRemove  = "remove"
)

// forbiddenPaths identify the object; overriding them would make a cluster
// receive a different object than the one federated. /apiVersion stays
// allowed, as in KubeFed, so that a cluster can be served another version.
var forbiddenPaths = [][]string{
	{"metadata", "name"},
	{"metadata", "namespace"},
	{"metadata", "generateName"},
	{"kind"},
}

// OverrideError reports a rule or patch that cannot be applied. Cluster is
// empty for problems that do not depend on the cluster, and Patch is -1 for
// problems with the rule as a whole.
type OverrideError struct {
	Rule    int
	Patch   int
	Cluster string
	Err     error
}

func (e *OverrideError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "override rule %d", e.Rule)
	if e.Patch >= 0 {
		fmt.Fprintf(&b, ", patch %d", e.Patch)
	}
	if e.Cluster != "" {
		fmt.Fprintf(&b, ", cluster %q", e.Cluster)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *OverrideError) Unwrap() error { return e.Err }

// ValidateOverrides checks everything about rules that does not depend on a
// cluster's object: targets, selectors, operations, paths and values, and
// that no cluster is targeted by name twice.
func ValidateOverrides(rules []OverrideRule) error {
	_, err := compileOverrides(rules)
	return err
}

// compiledRule is an OverrideRule checked and converted once, so that
// rendering many clusters does not redo it.
type compiledRule struct {
	cluster  string
	selector labels.Selector
	ops      jsonpatch.Patch
	// paths are the operations' paths, split into tokens.
	paths [][]string
	// labels says whether an operation may write a label.
	labels bool
}

func (r *compiledRule) targets(c Cluster) bool {
	if r.selector != nil {
		return r.selector.Matches(labels.Set(c.Labels))
	}
	return r.cluster == c.Name
}

func compileOverrides(rules []OverrideRule) ([]compiledRule, error) {
	compiled := make([]compiledRule, len(rules))
	byName := map[string]int{}
	for i, rule := range rules {
		ruleErr := func(err error) error { return &OverrideError{Rule: i, Patch: -1, Err: err} }
		c := &compiled[i]
		switch {
		case rule.Cluster != "" && rule.Selector != nil:
			return nil, ruleErr(errors.New("the rule sets both cluster and cluster_selector; set one"))
		case rule.Cluster == "" && rule.Selector == nil:
			return nil, ruleErr(errors.New("the rule targets no cluster; set cluster or cluster_selector"))
		case rule.Selector != nil:
			sel, err := compileSelector(rule.Selector)
			if err != nil {
				return nil, ruleErr(fmt.Errorf("cluster_selector: %w", err))
			}
			c.selector = sel
		default:
			if first, dup := byName[rule.Cluster]; dup {
				return nil, ruleErr(fmt.Errorf("cluster %q is already targeted by name in override rule %d; merge the two rules", rule.Cluster, first))
			}
			byName[rule.Cluster] = i
			c.cluster = rule.Cluster
		}
		c.ops = make(jsonpatch.Patch, len(rule.Patches))
		c.paths = make([][]string, len(rule.Patches))
		for j, p := range rule.Patches {
			op, tokens, err := compilePatch(p)
			if err != nil {
				return nil, &OverrideError{Rule: i, Patch: j, Err: err}
			}
			c.ops[j], c.paths[j] = op, tokens
			c.labels = c.labels || mayWriteLabels(tokens)
		}
	}
	return compiled, nil
}

func compilePatch(p Patch) (jsonpatch.Operation, []string, error) {
	kind := p.Op
	var value json.RawMessage
	if kind == "" {
		kind = OpReplace
	}
	switch kind {
	case OpAdd, OpReplace:
		if p.Value == "" {
			return nil, nil, fmt.Errorf("op %s needs a value", kind)
		}
		v, err := decodeJSON([]byte(p.Value))
		if err != nil {
			return nil, nil, fmt.Errorf("value %s is not JSON text (%w); a string needs JSON quotes, as in %s", clip(p.Value), err, strconv.Quote("text"))
		}
		// Canonical numbers in values spare the rendered object a second
		// pass over its numbers.
		if value, err = encodeCanonical(v); err != nil {
			return nil, nil, fmt.Errorf("value %s: %w", clip(p.Value), err)
		}
	case OpRemove:
		if p.Value != "" {
			return nil, nil, errors.New("op remove takes no value")
		}
	default:
		return nil, nil, fmt.Errorf("unknown op %q; use %s, %s or %s", p.Op, OpAdd, OpReplace, OpRemove)
	}
	tokens, err := checkOverridePath(p.Path)
	if err != nil {
		return nil, nil, err
	}
	op := jsonpatch.Operation{"op": rawString(kind), "path": rawString(p.Path)}
	if kind != OpRemove {
		op["value"] = &value
	}
	return op, tokens, nil
}

// checkOverridePath accepts JSON pointers that do not touch the fields that
// identify the object, and returns their tokens. The empty pointer, the
// whole object, is refused for the same reason. So is an empty token, which
// no Kubernetes field has: it is a doubled or trailing "/", with which
// KubeFed's patch library failed or wrote a key "" the API server refuses.
func checkOverridePath(path string) ([]string, error) {
	tokens, err := ParsePointer(path)
	if err != nil {
		return nil, err
	}
	if len(tokens) == 0 {
		return nil, errors.New(`path "" is the whole object, which overrides may not replace`)
	}
	if slices.Contains(tokens, "") {
		return nil, fmt.Errorf(`path %q has an empty segment, from a doubled or trailing "/"; name every field, as in "/metadata/labels/tier"`, path)
	}
	for _, f := range forbiddenPaths {
		if len(tokens) >= len(f) && slices.Equal(tokens[:len(f)], f) {
			return nil, fmt.Errorf("path %q may not be overridden: /%s identifies the object", path, strings.Join(f, "/"))
		}
	}
	return tokens, nil
}

// labelsPath is where an object's labels are.
var labelsPath = []string{"metadata", "labels"}

// mayWriteLabels reports whether an operation at the path may change a
// label: whether the path is or is inside the labels, or holds them.
func mayWriteLabels(tokens []string) bool {
	n := min(len(tokens), len(labelsPath))
	return slices.Equal(tokens[:n], labelsPath[:n])
}

// ParsePointer splits an RFC 6901 JSON pointer into its unescaped tokens;
// the empty pointer, the whole document, has none.
func ParsePointer(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	if path[0] != '/' {
		return nil, fmt.Errorf("path %q is not a JSON pointer: it must start with \"/\"", path)
	}
	tokens := strings.Split(path[1:], "/")
	for i, t := range tokens {
		for k := 0; k < len(t); k++ {
			if t[k] == '~' && (k+1 == len(t) || (t[k+1] != '0' && t[k+1] != '1')) {
				return nil, fmt.Errorf("path %q is not a JSON pointer: \"~\" must be followed by 0 or 1", path)
			}
		}
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens, nil
}

// lookup reports whether the pointer's tokens reach a value in doc.
func lookup(doc any, tokens []string) bool {
	_, ok := resolve(doc, tokens)
	return ok
}

// resolve returns the value the pointer's tokens reach in doc, reading
// array indices as the patch library does: any decimal integer, negative
// ones counted from the end.
func resolve(doc any, tokens []string) (any, bool) {
	for _, t := range tokens {
		switch node := doc.(type) {
		case map[string]any:
			v, ok := node[t]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(t)
			if i < 0 {
				i += len(node)
			}
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			doc = node[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// clip shortens a value quoted in an error message, so that a pasted
// document does not drown the message.
func clip(s string) string {
	const most = 40
	if len(s) > most {
		s = s[:most] + "…"
	}
	return strconv.Quote(s)
}

// PatchesWellFormed reports whether every patch passes the attributes' own
// checks (operation, pointer, JSON value), which report those that do not.
func PatchesWellFormed(rules []OverrideRule) bool {
	for _, rule := range rules {
		for _, p := range rule.Patches {
			if p.Op != "" && p.Op != OpAdd && p.Op != OpReplace && p.Op != OpRemove {
				return false
			}
			if _, err := ParsePointer(p.Path); err != nil {
				return false
			}
			if p.Value != "" && !json.Valid([]byte(p.Value)) {
				return false
			}
		}
	}
	return true
}
