package federation

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// canonicalNumbers rewrites every number in v, in place, to one spelling
// per value: integers in plain decimal, other numbers in Go's shortest
// round-trip form. Without it `1.0`, `1` and `1e0` from different inputs
// would render as different bytes for the same object.
func canonicalNumbers(v any) (any, error) {
	switch node := v.(type) {
	case map[string]any:
		for k, child := range node {
			c, err := canonicalNumbers(child)
			if err != nil {
				return nil, err
			}
			node[k] = c
		}
	case []any:
		for i, child := range node {
			c, err := canonicalNumbers(child)
			if err != nil {
				return nil, err
			}
			node[i] = c
		}
	case json.Number:
		return canonicalNumber(node)
	}
	return v, nil
}

func canonicalNumber(n json.Number) (json.Number, error) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("number %s cannot be represented: %w", s, err)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return json.Number(strconv.FormatInt(int64(f), 10)), nil
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// encodeCanonical serialises v, a tree of the types decodeJSON produces,
// with object keys sorted bytewise and no insignificant whitespace. It
// writes the tree directly rather than through encoding/json, whose
// reflection cost dominated rendering. HTML characters are not escaped: the
// output is shown in plans, not embedded in web pages.
func encodeCanonical(v any) ([]byte, error) {
	return appendCanonical(make([]byte, 0, 1024), v)
}

func appendCanonical(b []byte, v any) ([]byte, error) {
	var err error
	switch node := v.(type) {
	case nil:
		b = append(b, "null"...)
	case bool:
		b = strconv.AppendBool(b, node)
	case string:
		b = appendString(b, node)
	case json.Number:
		b = append(b, node...)
	case map[string]any:
		// Objects seldom have more members than fit on the stack.
		var small [16]string
		keys := small[:0]
		for k := range node {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			if b, err = appendCanonical(b, node[k]); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range node {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendCanonical(b, e); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	default:
		return nil, fmt.Errorf("cannot encode %T as JSON", v)
	}
	return b, nil
}

// appendString writes s as a JSON string the way encoding/json does with
// HTML escaping off: invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029
// are escaped because JavaScript treats them as line ends.
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// maskedSecretFields hold a Secret's values.
var maskedSecretFields = []string{"data", "stringData"}

// maskSecret returns a shallow copy of a Secret whose data and stringData
// values are replaced by digests. The digest is salted with the Secret's
// identity and the entry's key, so equal passwords in different entries or
// Secrets do not show as equal, and it changes whenever the value changes,
// so a plan still shows that something changed.
func maskSecret(obj map[string]any, id Identity) (map[string]any, error) {
	shown := make(map[string]any, len(obj))
	for k, v := range obj {
		shown[k] = v
	}
	for _, field := range maskedSecretFields {
		v, ok := obj[field]
		if !ok || v == nil {
			continue
		}
		entries, isMap := v.(map[string]any)
		if !isMap {
			d, err := digest(id, field, "", v)
			if err != nil {
				return nil, err
			}
			shown[field] = d
			continue
		}
		masked := make(map[string]any, len(entries))
		for key, value := range entries {
			d, err := digest(id, field, key, value)
			if err != nil {
				return nil, err
			}
			masked[key] = d
		}
		shown[field] = masked
	}
	return shown, nil
}

func digest(id Identity, field, key string, value any) (string, error) {
	raw, err := encodeCanonical(value)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, part := range []string{"kubefed-secret-value", id.Namespace, id.Name, field, key} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(raw)
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
