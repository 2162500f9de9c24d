package federation

import (
	"encoding/json"
	"math"
	"testing"
)

// The expected texts are what OpenTofu 1.12's and Terraform 1.11's
// jsonencode print for the same values.
func TestJSONEncodeForm(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"keys sorted bytewise, compact", map[string]any{"z": int64(1), "A": int64(2), "_": int64(3)}, `{"A":2,"_":3,"z":1}`},
		{"HTML characters escaped as jsonencode does", "<&> \u2028 é \t", `"\u003c\u0026\u003e \u2028 é \t"`},
		{"a large number without an exponent", 1e21, `1000000000000000000000`},
		{"a small number without an exponent", 1e-7, `0.0000001`},
		{"a fraction in its shortest form", 0.1, `0.1`},
		{"negative zero", math.Copysign(0, -1), `-0`},
		{"an integer from the API server", int64(100), `100`},
		{"an exact number keeps its digits", json.Number("3.14159265358979323846"), `3.14159265358979323846`},
		{"an exponent spelled out", json.Number("1e3"), `1000`},
		{"an integer past float64's precision", json.Number("9007199254740993"), `9007199254740993`},
		{"a trailing zero dropped", json.Number("1.50"), `1.5`},
		{"nested lists, nulls and booleans", map[string]any{"b": []any{true, nil, map[string]any{}}, "a": []any{}},
			`{"a":[],"b":[true,null,{}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSONEncodeForm(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("JSONEncodeForm = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestJSONEncodeFormRefusesWhatIsNotJSON(t *testing.T) {
	for _, in := range []any{math.NaN(), math.Inf(1), struct{}{}} {
		if got, err := JSONEncodeForm(in); err == nil {
			t.Errorf("JSONEncodeForm(%v) = %s, want an error", in, got)
		}
	}
}
