package federation

import (
	"bytes"
	"slices"
	"strconv"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// The patch library parses every object and array an operation passes
// through and serialises the whole document again, so its cost grows with
// the template rather than with the overrides. A skeleton is the template
// cut down to what the operations can reach, which the library patches in
// place of the template. Every object on the way to a path the replicas or
// any override rule names keeps the members the paths name, cut down in
// turn, and loses the others; a container at the end of a path is replaced
// by a stand-in. Arrays on the way keep all their elements, each cut down
// in the same way, since an insertion may shift any of them under a path's
// index. What the library sees along every path is therefore what it would
// see in the template: the same objects with the same members, the same
// arrays with the same lengths, the same values wherever an operation looks
// at a value rather than through it.
//
// Reading the library's output restores what was left out. An object that
// no operation can replace, because no path ends at it or above it, or at
// an element of an array above it, is still where the skeleton put it, and
// gets its members back by position. Any other object that lost members,
// and every stand-in, carries one member named skeletonKey whose value
// indexes what it stands for, so that an operation that replaces or
// removes it takes it along. Values come back as canonical JSON, written
// out as they are.
//
// A skeleton is not built when its markers could be confused with real
// data: when a template key or an operation value holds skeletonKey, or
// when a path names it. Nor when a path holds an empty token, which the
// library reads as the object itself rather than as a member named "".

// skeletonKey names the member that stands for what a skeleton left out of
// an object. It is a single DEL character, which JSON leaves unescaped and
// no Kubernetes field name holds.
const skeletonKey = "\x7f"

// skeletonPart is what one skeletonKey member stands for: the members left
// out of an object, or, when members is nil, a whole value as canonical
// JSON.
type skeletonPart struct {
	members []member
	value   []byte
}

// member is an object member a skeleton left out, ready to be written back.
type member struct {
	keyBytes   []byte // the key
	encodedKey []byte // the key as canonical JSON
	value      []byte // the value as canonical JSON
}

func newMember(key string, value any) (member, error) {
	v, err := encodeCanonical(value)
	if err != nil {
		return member{}, err
	}
	return member{keyBytes: []byte(key), encodedKey: appendString(nil, key), value: v}, nil
}

// skeleton is the cut-down template and what it left out.
type skeleton struct {
	doc []byte
	// restored is the size of the template, a hint of the output's.
	restored int
	// parts are what the skeletonKey members stand for.
	parts []skeletonPart
	// shape is what the objects that stay in place lost.
	shape *shape
}

// shape holds, for an object or an array of the skeleton that no operation
// can replace, what it and those of its members or elements that no
// operation can replace either left out.
type shape struct {
	members  []member
	children map[string]*shape
	elements []*shape
}

// pathTrie holds the tokens of JSON pointers, one level per token; end
// marks where a pointer ends.
type pathTrie struct {
	next map[string]*pathTrie
	end  bool
}

func (t *pathTrie) insert(tokens []string) {
	for _, tok := range tokens {
		next, ok := t.next[tok]
		if !ok {
			if t.next == nil {
				t.next = map[string]*pathTrie{}
			}
			next = &pathTrie{}
			t.next[tok] = next
		}
		t = next
	}
	t.end = true
}

// newSkeleton cuts the template, obj with canonical encoding canon, down to
// the paths of the operations in rules and of the replicas path. It returns
// nil when no skeleton can stand in for the template.
func newSkeleton(obj map[string]any, canon []byte, replicasPath string, rules []compiledRule) *skeleton {
	marker := []byte(`"` + skeletonKey + `"`)
	if bytes.Contains(canon, marker) {
		return nil
	}
	paths := &pathTrie{}
	addPath := func(path string) bool {
		tokens, err := ParsePointer(path)
		if err != nil || slices.Contains(tokens, "") || slices.Contains(tokens, skeletonKey) {
			return false
		}
		paths.insert(tokens)
		return true
	}
	if !addPath(replicasPath) {
		return nil
	}
	for i := range rules {
		for _, op := range rules[i].ops {
			if v := op["value"]; v != nil && bytes.Contains(*v, marker) {
				return nil
			}
			path, err := op.Path()
			if err != nil || !addPath(path) {
				return nil
			}
		}
	}
	s := &skeleton{shape: &shape{}, restored: len(canon)}
	doc, err := s.appendObject(nil, obj, []*pathTrie{paths}, s.shape)
	if err != nil {
		return nil
	}
	s.doc = doc
	return s
}

// appendObject writes obj with the members that the paths in at name, each
// cut down further. The others are left out, into sh when obj stays in
// place (sh is not nil), or else into a part its skeletonKey member names.
func (s *skeleton) appendObject(b []byte, obj map[string]any, at []*pathTrie, sh *shape) ([]byte, error) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var rest []member
	b = append(b, '{')
	first := true
	for _, k := range keys {
		var below []*pathTrie
		for _, t := range at {
			if next, ok := t.next[k]; ok {
				below = append(below, next)
			}
		}
		if below == nil {
			m, err := newMember(k, obj[k])
			if err != nil {
				return nil, err
			}
			rest = append(rest, m)
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, k)
		b = append(b, ':')
		var child *shape
		if sh != nil && !ends(below) {
			child = &shape{}
		}
		var err error
		if b, err = s.appendValue(b, obj[k], below, child); err != nil {
			return nil, err
		}
		if !child.empty() {
			if sh.children == nil {
				sh.children = map[string]*shape{}
			}
			sh.children[k] = child
		}
	}
	switch {
	case rest == nil:
	case sh != nil:
		sh.members = rest
	default:
		if !first {
			b = append(b, ',')
		}
		b = s.appendPart(b, skeletonPart{members: rest})
	}
	return append(b, '}'), nil
}

// appendValue writes v, which the paths in at reach; sh is not nil when v
// stays in place.
func (s *skeleton) appendValue(b []byte, v any, at []*pathTrie, sh *shape) ([]byte, error) {
	var below []*pathTrie
	for _, t := range at {
		for _, next := range t.next {
			below = append(below, next)
		}
	}
	switch node := v.(type) {
	case map[string]any:
		if below == nil {
			return s.appendStandIn(b, node)
		}
		return s.appendObject(b, node, at, sh)
	case []any:
		if below == nil {
			return s.appendStandIn(b, node)
		}
		// Any index may be any element by the time a path reaches it,
		// and the elements stay in place only if no path ends at one.
		inPlace := sh != nil && !ends(below)
		b = append(b, '[')
		for i, e := range node {
			if i > 0 {
				b = append(b, ',')
			}
			var child *shape
			if inPlace {
				child = &shape{}
			}
			var err error
			if b, err = s.appendValue(b, e, below, child); err != nil {
				return nil, err
			}
			if !child.empty() {
				if sh.elements == nil {
					sh.elements = make([]*shape, len(node))
				}
				sh.elements[i] = child
			}
		}
		return append(b, ']'), nil
	default:
		return appendCanonical(b, v)
	}
}

// appendStandIn writes an object that stands for the container v.
func (s *skeleton) appendStandIn(b []byte, v any) ([]byte, error) {
	raw, err := encodeCanonical(v)
	if err != nil {
		return nil, err
	}
	b = append(b, '{')
	b = s.appendPart(b, skeletonPart{value: raw})
	return append(b, '}'), nil
}

// appendPart writes a skeletonKey member standing for p.
func (s *skeleton) appendPart(b []byte, p skeletonPart) []byte {
	b = appendString(b, skeletonKey)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(len(s.parts)), 10)
	s.parts = append(s.parts, p)
	return b
}

// ends reports whether a path ends at any of the nodes.
func ends(nodes []*pathTrie) bool {
	for _, t := range nodes {
		if t.end {
			return true
		}
	}
	return false
}

func (sh *shape) empty() bool {
	return sh == nil || (sh.members == nil && sh.children == nil && sh.elements == nil)
}

// apply patches the skeleton and rewrites the result as the canonical JSON
// of the labelled object it stands for, checking the object's identity
// against the template's.
func (s *skeleton) apply(ops jsonpatch.Patch, identity *identityJSON) ([]byte, error) {
	doc := s.doc
	if len(ops) > 0 {
		var err error
		if doc, err = ops.ApplyWithOptions(doc, applyOptions); err != nil {
			return nil, err
		}
	}
	return s.rewrite(doc, identity)
}
