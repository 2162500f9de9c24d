package federation

import (
	"encoding/json"
	"testing"
)

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
