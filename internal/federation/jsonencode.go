package federation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
)

// JSONEncodeForm is v as Terraform's and OpenTofu's jsonencode write it:
// object keys sorted bytewise, no insignificant whitespace, strings with
// <, >, & and the line and paragraph separators escaped as \u003c, \u003e,
// \u0026, \u2028 and \u2029, and numbers in plain decimal, never with an
// exponent (1e21 is 1000000000000000000000, 1e-7 is 0.0000001). A template
// read back from the host in this form equals, as text, a configuration
// that writes the same object with jsonencode, so an import plans no
// change. v is a tree of maps, slices, strings, bools, nil and numbers of
// any type encoding/json decodes to (json.Number, float64, int64, ...).
func JSONEncodeForm(v any) (string, error) {
	var buf bytes.Buffer
	if err := writeJSONEncodeForm(&buf, v); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func writeJSONEncodeForm(buf *bytes.Buffer, v any) error {
	switch node := v.(type) {
	case map[string]any:
		buf.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(node)) {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, k)
			buf.WriteByte(':')
			if err := writeJSONEncodeForm(buf, node[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, child := range node {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSONEncodeForm(buf, child); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case string:
		writeJSONString(buf, node)
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(node))
	default:
		n, err := decimal(node)
		if err != nil {
			return err
		}
		buf.WriteString(n)
	}
	return nil
}

// writeJSONString writes s as encoding/json does with HTML escaping on,
// which is what jsonencode does.
func writeJSONString(buf *bytes.Buffer, s string) {
	raw, _ := json.Marshal(s)
	buf.Write(raw)
}

// decimal is a number in plain decimal, the shortest that reads back as
// the same value: the form jsonencode gives a number.
func decimal(v any) (string, error) {
	switch n := v.(type) {
	case json.Number:
		f, _, err := big.ParseFloat(string(n), 10, 512, big.ToNearestEven)
		if err != nil {
			return "", fmt.Errorf("number %s: %w", n, err)
		}
		return f.Text('f', -1), nil
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return "", fmt.Errorf("%v is not a JSON number", n)
		}
		return big.NewFloat(n).Text('f', -1), nil
	case int:
		return strconv.Itoa(n), nil
	case int32:
		return strconv.FormatInt(int64(n), 10), nil
	case int64:
		return strconv.FormatInt(n, 10), nil
	case uint64:
		return strconv.FormatUint(n, 10), nil
	}
	return "", fmt.Errorf("%T is not a JSON value", v)
}
