package federation

import (
	"bytes"
	"encoding/json"
	"testing"
)

// stdlibString encodes s with encoding/json, HTML escaping off, which
// appendString must match so that the output is ordinary JSON.
func stdlibString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "<&>", "line\nfeed\ttab\rreturn", "\b\f\x00\x01\x1f\x7f",
		"ünïcödé ✓ 𝄞", "bad \xff utf-8 \xc3", "js \u2028 \u2029 seps", "emoji 🚀 end",
	} {
		if got, want := string(appendString(nil, s)), stdlibString(s); got != want {
			t.Errorf("appendString(%q) = %s, encoding/json gives %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendString(nil, s)), stdlibString(s); got != want {
			t.Fatalf("appendString(%q) = %s, encoding/json gives %s", s, got, want)
		}
	})
}

func TestCanonicalNumber(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0": "0", "42": "42", "-7": "-7", "1.0": "1", "1e2": "100", "2.50e1": "25",
		"0.5": "0.5", "1e21": "1e+21", "9007199254740993": "9007199254740993",
		"123456789012345678901234567890": "1.2345678901234568e+29", "-1.5E-3": "-0.0015",
	} {
		got, err := canonicalNumber(json.Number(in))
		if err != nil || string(got) != want {
			t.Errorf("canonicalNumber(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := canonicalNumber("1e400"); err == nil {
		t.Error("canonicalNumber(1e400) should fail: it has no float64 value")
	}
}
