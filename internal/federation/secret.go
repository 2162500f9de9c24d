package federation

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"slices"
)

// SecretValues returns the values a Secret's template holds, in each form a
// message might quote them: every data value as written (base64) and
// decoded, every stringData value as written and base64-encoded. It returns
// nil for any other kind. Callers remove these from text they show.
func (r *Renderer) SecretValues() []string {
	if !r.secret {
		return nil
	}
	var values []string
	add := func(v string) {
		if v != "" && !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	data, _ := r.host["data"].(map[string]any)
	for _, key := range slices.Sorted(maps.Keys(data)) {
		encoded, _ := data[key].(string)
		add(encoded)
		if decoded, err := base64.StdEncoding.DecodeString(encoded); err == nil {
			add(string(decoded))
		}
	}
	stringData, _ := r.host["stringData"].(map[string]any)
	for _, key := range slices.Sorted(maps.Keys(stringData)) {
		plain, _ := stringData[key].(string)
		add(plain)
		add(base64.StdEncoding.EncodeToString([]byte(plain)))
	}
	return values
}

// WritesSecretValues reports whether an override patch at pointer would
// write a Secret's values: its data or stringData, or an entry of either.
func WritesSecretValues(pointer string) bool {
	tokens, err := ParsePointer(pointer)
	return err == nil && len(tokens) > 0 && slices.Contains(maskedSecretFields, tokens[0])
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
