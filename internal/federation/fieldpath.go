package federation

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// keyHint is how an error about a field path says to write a key that is
// not a plain name.
const keyHint = `write keys with other characters in brackets and double quotes, as in metadata.annotations["example.com/key"]`

// ParseFieldPath splits a field path into the keys and list indices it
// names, in the syntax of the hashicorp/kubernetes provider's
// computed_fields and the kubectl provider's ignore_fields: names of
// letters, digits, "_" and "-" joined by dots; keys with other characters
// in brackets and double quotes; list indices in brackets. For example
// metadata.annotations["sidecar.istio.io/status"],
// spec.template.spec.containers[0].resources or spec.replicas. A name of
// digits after a dot, as in containers.0, is a list index too.
func ParseFieldPath(path string) ([]string, error) {
	if path == "" {
		return nil, errors.New("field path is empty")
	}
	var tokens []string
	for i := 0; i < len(path); {
		var tok string
		var err error
		switch {
		case i == 0:
			tok, i, err = fieldName(path, 0)
		case path[i] == '.':
			tok, i, err = fieldName(path, i+1)
		case path[i] == '[':
			tok, i, err = bracketed(path, i)
		default:
			err = fmt.Errorf("unexpected %q at character %d: %s", path[i], i+1, keyHint)
		}
		if err != nil {
			return nil, fmt.Errorf("field path %q: %w", path, err)
		}
		tokens = append(tokens, tok)
	}
	return tokens, nil
}

// fieldName reads the name that starts at path[i].
func fieldName(path string, i int) (string, int, error) {
	end := i
	for end < len(path) && isNameByte(path[end]) {
		end++
	}
	switch {
	case end > i:
		return path[i:end], end, nil
	case i == 0:
		return "", 0, fmt.Errorf("a field path starts with a field name, such as metadata, not %q", path[0])
	case i == len(path):
		return "", 0, errors.New("a field name must follow the last dot")
	}
	return "", 0, fmt.Errorf("a field name must follow the dot at character %d, not %q: %s", i, path[i], keyHint)
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// bracketed reads the list index or quoted key in the brackets that open
// at path[i].
func bracketed(path string, i int) (string, int, error) {
	rest := path[i+1:]
	var tok, inner string
	switch {
	case strings.HasPrefix(rest, `"`):
		end := closingQuote(rest)
		if end < 0 {
			return "", 0, fmt.Errorf("the key that starts at character %d has no closing quote", i+2)
		}
		inner = rest[:end+1]
		key, err := strconv.Unquote(inner)
		if err != nil {
			return "", 0, fmt.Errorf("the key %s is not a valid quoted string", inner)
		}
		if key == "" {
			return "", 0, fmt.Errorf("the key at character %d is empty", i+2)
		}
		tok = key
	default:
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			end = len(rest)
		}
		inner = rest[:end]
		k, err := strconv.Atoi(inner)
		if err != nil || k < 0 || strings.ContainsAny(inner, "+-") {
			return "", 0, fmt.Errorf("brackets at character %d must hold a list index of 0 or more, such as [0], or a key in double quotes, such as [\"app\"], not %q", i+1, inner)
		}
		tok = strconv.Itoa(k)
	}
	next := i + 1 + len(inner)
	if next >= len(path) || path[next] != ']' {
		return "", 0, fmt.Errorf("the bracket at character %d is not closed", i+1)
	}
	return tok, next + 1, nil
}

// closingQuote returns the index of the quote that ends the quoted string
// at the start of s, or -1.
func closingQuote(s string) int {
	for k := 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return k
		}
	}
	return -1
}

// removeField removes what the tokens of a field path lead to in v, when
// anything is there, and returns v, which is a new list when a list element
// was removed.
func removeField(v any, tokens []string) any {
	if len(tokens) == 0 {
		return v
	}
	t, rest := tokens[0], tokens[1:]
	switch node := v.(type) {
	case map[string]any:
		child, ok := node[t]
		switch {
		case !ok:
		case len(rest) == 0:
			delete(node, t)
		default:
			node[t] = removeField(child, rest)
		}
	case []any:
		k, err := strconv.Atoi(t)
		switch {
		case err != nil || k < 0 || k >= len(node):
		case len(rest) == 0:
			return slices.Delete(node, k, k+1)
		default:
			node[k] = removeField(node[k], rest)
		}
	}
	return v
}
