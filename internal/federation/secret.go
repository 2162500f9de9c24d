package federation

import (
	"encoding/base64"
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
