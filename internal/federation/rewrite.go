package federation

import (
	"bytes"
	"errors"
	"slices"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxNestingDepth is encoding/json's limit on nested objects and arrays,
// kept so that what the rewriter accepts is what encoding/json accepts.
const maxNestingDepth = 10000

// rewriter turns the patch library's output for a skeleton into the
// canonical JSON of the object it stands for, with the ManagedLabel set:
// the bytes decodeJSONAsIs, setting the label and encodeCanonical would
// give, in one pass and without building the object. On the way it checks
// that the fields that identify the object are unchanged. Any error means
// only that the caller must render the slow way, which explains failures.
type rewriter struct {
	in    []byte
	pos   int
	depth int
	parts []skeletonPart
	// out receives the canonical JSON; an object's members are written
	// in the order they come and then reordered, through scratch.
	out, scratch []byte
	// spans locates the members of the objects being written, innermost
	// last.
	spans []span
	// identity is the canonical JSON of the fields that identify the
	// template's object, to compare the output's with.
	identity *identityJSON
	// identical counts the identifying fields found equal to the
	// template's.
	identical int
}

// span is an object member written to out[start:end].
type span struct {
	key        []byte // the key, unescaped, to sort by
	encoded    []byte // the key as canonical JSON
	start, end int
}

// identityJSON holds the canonical JSON of kind, metadata.name,
// metadata.namespace and metadata.generateName in the template, nil for
// those it lacks.
type identityJSON [4][]byte

func identityJSONOf(obj map[string]any) (*identityJSON, error) {
	var id identityJSON
	meta, _ := obj["metadata"].(map[string]any)
	for i, f := range []struct {
		m   map[string]any
		key string
	}{{obj, "kind"}, {meta, "name"}, {meta, "namespace"}, {meta, "generateName"}} {
		if v, ok := f.m[f.key]; ok {
			b, err := encodeCanonical(v)
			if err != nil {
				return nil, err
			}
			id[i] = b
		}
	}
	return &id, nil
}

// Where in the object a value is, for the values the rewriter looks at.
type position int

const (
	elsewhere position = iota
	atRoot
	atMetadata
	atLabels
)

func (p position) child(key []byte) position {
	switch {
	case p == atRoot && string(key) == "metadata":
		return atMetadata
	case p == atMetadata && string(key) == "labels":
		return atLabels
	}
	return elsewhere
}

var (
	errRewrite       = errors.New("the patched skeleton cannot be rewritten")
	managedLabelKey  = []byte(ManagedLabel)
	managedLabelJSON = appendString(nil, ManagedLabel)
	labelsKey        = []byte("labels")
	labelsJSON       = appendString(nil, "labels")
	trueJSON         = appendString(nil, "true")
	onlyManagedLabel = []byte(`{` + string(managedLabelJSON) + `:` + string(trueJSON) + `}`)
	// The identifying fields at the root and in metadata, in the order of
	// identityJSON.
	rootIdentity     = [][]byte{[]byte("kind")}
	metadataIdentity = [][]byte{[]byte("name"), []byte("namespace"), []byte("generateName")}
)

// rewrite rewrites the library's output doc for skeleton s.
func (s *skeleton) rewrite(doc []byte, identity *identityJSON) ([]byte, error) {
	size := len(doc) + s.restored + 64
	w := rewriter{
		in:       doc,
		parts:    s.parts,
		out:      make([]byte, 0, size),
		scratch:  make([]byte, 0, size),
		spans:    make([]span, 0, 32),
		identity: identity,
	}
	if err := w.value(s.shape, atRoot); err != nil {
		return nil, err
	}
	w.skipSpace()
	if w.pos != len(w.in) || w.identical != len(identity) {
		return nil, errRewrite
	}
	return w.out, nil
}

func (w *rewriter) skipSpace() {
	for w.pos < len(w.in) {
		switch w.in[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// value rewrites the value at w.pos; sh is not nil for an object or an
// array that stayed where the skeleton put it.
func (w *rewriter) value(sh *shape, at position) error {
	w.skipSpace()
	if w.pos >= len(w.in) {
		return errRewrite
	}
	switch c := w.in[w.pos]; {
	case c == '{':
		return w.object(sh, at)
	case at == atRoot:
		return errRewrite
	case c == '[':
		return w.array(sh)
	case c == '"':
		s, enc, err := w.string()
		if err != nil {
			return err
		}
		if enc != nil {
			w.out = append(w.out, enc...)
		} else {
			w.out = appendString(w.out, string(s))
		}
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return w.number()
	default:
		return errRewrite
	}
	return nil
}

func (w *rewriter) literal(word string) error {
	if len(w.in)-w.pos < len(word) || string(w.in[w.pos:w.pos+len(word)]) != word {
		return errRewrite
	}
	w.pos += len(word)
	w.out = append(w.out, word...)
	return nil
}

func (w *rewriter) enter() error {
	w.depth++
	if w.depth > maxNestingDepth {
		return errRewrite
	}
	return nil
}

func (w *rewriter) array(sh *shape) error {
	if err := w.enter(); err != nil {
		return err
	}
	w.pos++ // [
	w.out = append(w.out, '[')
	w.skipSpace()
	if w.pos < len(w.in) && w.in[w.pos] == ']' {
		w.pos++
	} else {
		for i := 0; ; i++ {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			var child *shape
			if sh != nil && i < len(sh.elements) {
				child = sh.elements[i]
			}
			if err := w.value(child, elsewhere); err != nil {
				return err
			}
			w.skipSpace()
			if w.pos >= len(w.in) {
				return errRewrite
			}
			c := w.in[w.pos]
			w.pos++
			if c == ']' {
				break
			}
			if c != ',' {
				return errRewrite
			}
		}
	}
	w.out = append(w.out, ']')
	w.depth--
	return nil
}

func (w *rewriter) object(sh *shape, at position) error {
	if err := w.enter(); err != nil {
		return err
	}
	w.pos++ // {
	base, first := len(w.out), len(w.spans)
	part := -1
	w.skipSpace()
	if w.pos < len(w.in) && w.in[w.pos] == '}' {
		w.pos++
	} else {
		for {
			w.skipSpace()
			if w.pos >= len(w.in) || w.in[w.pos] != '"' {
				return errRewrite
			}
			key, enc, err := w.string()
			if err != nil {
				return err
			}
			if enc == nil {
				enc = appendString(nil, string(key))
			}
			w.skipSpace()
			if w.pos >= len(w.in) || w.in[w.pos] != ':' {
				return errRewrite
			}
			w.pos++
			if w.parts != nil && string(key) == skeletonKey {
				if part >= 0 {
					return errRewrite
				}
				if part, err = w.partIndex(); err != nil {
					return err
				}
			} else {
				var child *shape
				if sh != nil {
					child = sh.children[string(key)]
				}
				start := len(w.out)
				if err := w.value(child, at.child(key)); err != nil {
					return err
				}
				w.spans = append(w.spans, span{key: key, encoded: enc, start: start, end: len(w.out)})
			}
			w.skipSpace()
			if w.pos >= len(w.in) {
				return errRewrite
			}
			c := w.in[w.pos]
			w.pos++
			if c == '}' {
				break
			}
			if c != ',' {
				return errRewrite
			}
		}
	}
	w.depth--

	var restored []member
	switch {
	case sh != nil && part >= 0:
		return errRewrite
	case sh != nil:
		restored = sh.members
	case part >= 0 && w.parts[part].members == nil:
		// A stand-in for a whole value, which no operation touched.
		if len(w.spans) != first {
			return errRewrite
		}
		w.out = w.out[:base]
		return w.embed(w.parts[part].value, at)
	case part >= 0:
		restored = w.parts[part].members
	}
	for i := range restored {
		m := &restored[i]
		start := len(w.out)
		if err := w.embed(m.value, at.child(m.keyBytes)); err != nil {
			return err
		}
		w.spans = append(w.spans, span{key: m.keyBytes, encoded: m.encodedKey, start: start, end: len(w.out)})
	}
	return w.finishObject(at, base, first)
}

// embed writes canonical JSON the skeleton left out, rewriting it when
// the rewriter must look inside.
func (w *rewriter) embed(canon []byte, at position) error {
	if at == elsewhere {
		w.out = append(w.out, canon...)
		return nil
	}
	in, pos, parts, depth := w.in, w.pos, w.parts, w.depth
	w.in, w.pos, w.parts = canon, 0, nil
	err := w.value(nil, at)
	if err == nil && w.pos != len(w.in) {
		err = errRewrite
	}
	w.in, w.pos, w.parts, w.depth = in, pos, parts, depth
	return err
}

// finishObject sorts the members of the object whose members' values were
// written from out[base:] and whose spans start at spans[first], adding
// what the object's position calls for, and writes it at out[base:].
func (w *rewriter) finishObject(at position, base, first int) error {
	switch at {
	case atMetadata:
		if err := w.labelMetadata(first); err != nil {
			return err
		}
	case atLabels:
		for i := first; i < len(w.spans); i++ {
			if bytes.Equal(w.spans[i].key, managedLabelKey) {
				w.spans = slices.Delete(w.spans, i, i+1)
				break
			}
		}
		start := len(w.out)
		w.out = append(w.out, trueJSON...)
		w.spans = append(w.spans, span{key: managedLabelKey, encoded: managedLabelJSON, start: start, end: len(w.out)})
	}
	members := w.spans[first:]
	slices.SortFunc(members, func(a, b span) int { return bytes.Compare(a.key, b.key) })
	for i := 1; i < len(members); i++ {
		if bytes.Equal(members[i-1].key, members[i].key) {
			return errRewrite
		}
	}
	switch at {
	case atRoot:
		w.compareIdentity(members, rootIdentity, w.identity[:1])
	case atMetadata:
		w.compareIdentity(members, metadataIdentity, w.identity[1:])
	}
	w.scratch = append(w.scratch[:0], w.out[base:]...)
	w.out = append(w.out[:base], '{')
	for i, m := range members {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.out = append(w.out, m.encoded...)
		w.out = append(w.out, ':')
		w.out = append(w.out, w.scratch[m.start-base:m.end-base]...)
	}
	w.out = append(w.out, '}')
	w.spans = w.spans[:first]
	return nil
}

// compareIdentity counts the identifying fields among the sorted members
// that are as in the template: present there and equal, or absent in both.
func (w *rewriter) compareIdentity(members []span, keys, want [][]byte) {
	for j, key := range keys {
		i, found := slices.BinarySearchFunc(members, key, func(s span, k []byte) int { return bytes.Compare(s.key, k) })
		switch {
		case found && want[j] != nil && bytes.Equal(w.out[members[i].start:members[i].end], want[j]):
			w.identical++
		case !found && want[j] == nil:
			w.identical++
		}
	}
}

// labelMetadata makes sure metadata has labels, which finishObject gives
// the ManagedLabel; labels that are neither an object nor null are left to
// the slow way to report.
func (w *rewriter) labelMetadata(first int) error {
	for i := first; i < len(w.spans); i++ {
		s := &w.spans[i]
		if !bytes.Equal(s.key, labelsKey) {
			continue
		}
		switch w.out[s.start] {
		case '{':
			return nil
		case 'n':
			s.start = len(w.out)
			w.out = append(w.out, onlyManagedLabel...)
			s.end = len(w.out)
			return nil
		}
		return errRewrite
	}
	start := len(w.out)
	w.out = append(w.out, onlyManagedLabel...)
	w.spans = append(w.spans, span{key: labelsKey, encoded: labelsJSON, start: start, end: len(w.out)})
	return nil
}

// partIndex reads the value of a skeletonKey member.
func (w *rewriter) partIndex() (int, error) {
	w.skipSpace()
	i, digits := 0, 0
	for w.pos < len(w.in) && w.in[w.pos] >= '0' && w.in[w.pos] <= '9' && i <= len(w.parts) {
		i = i*10 + int(w.in[w.pos]-'0')
		w.pos++
		digits++
	}
	if digits == 0 || i >= len(w.parts) {
		return 0, errRewrite
	}
	return i, nil
}

// number copies a number, keeping its spelling.
func (w *rewriter) number() error {
	s, i := w.in, w.pos
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return errRewrite
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return errRewrite
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return errRewrite
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	w.out = append(w.out, s[w.pos:i]...)
	w.pos = i
	return nil
}

// string reads the string at w.pos. It returns the string unescaped and,
// when the text is already canonical, that text, quotes included.
func (w *rewriter) string() (s, canonical []byte, err error) {
	in := w.in
	start := w.pos + 1
	for i := start; i < len(in); i++ {
		c := in[i]
		if c == '"' {
			w.pos = i + 1
			return in[start:i], in[start-1 : i+1], nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			s, err := w.slowString(start, i)
			return s, nil, err
		}
	}
	return nil, nil, errRewrite
}

// slowString finishes a string that holds escapes, control characters or
// bytes above ASCII, of which in[start:i] holds none. Like encoding/json,
// it turns bytes that are not UTF-8, and escaped lone surrogates, into
// U+FFFD.
func (w *rewriter) slowString(start, i int) ([]byte, error) {
	in := w.in
	b := make([]byte, 0, i-start+16)
	b = append(b, in[start:i]...)
	for i < len(in) {
		c := in[i]
		switch {
		case c == '"':
			w.pos = i + 1
			return b, nil
		case c < 0x20:
			return nil, errRewrite
		case c == '\\':
			if i+1 >= len(in) {
				return nil, errRewrite
			}
			switch e := in[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(in[i+2:])
				if r < 0 {
					return nil, errRewrite
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A valid pair is one character; anything else
					// leaves the first half as U+FFFD, as encoding/json
					// does, and the next escape is read on its own.
					if i+1 < len(in) && in[i] == '\\' && in[i+1] == 'u' {
						if r2 := hex4(in[i+2:]); r2 >= 0 {
							if pair := utf16.DecodeRune(r, r2); pair != unicode.ReplacementChar {
								b = utf8.AppendRune(b, pair)
								i += 6
								continue
							}
						}
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return nil, errRewrite
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(in[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return nil, errRewrite
}

// hex4 reads the four hex digits of a \u escape, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
