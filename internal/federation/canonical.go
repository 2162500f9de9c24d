package federation

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
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

// encodeCanonical serialises v, a tree of the types decodeJSON produces:
// encoding/json sorts object keys bytewise and writes no insignificant
// whitespace. HTML characters are not escaped: the output is shown in
// plans, not embedded in web pages.
func encodeCanonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
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
