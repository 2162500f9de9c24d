package federation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The engine's JSON helpers. A document is a tree of map[string]any,
// []any, string, bool, nil and json.Number (never float64, which would lose
// large integers); it is decoded with one spelling per number where
// renders are compared, and encoded with sorted keys and without HTML
// escaping, so that equal objects are equal bytes.

// decodeJSON decodes one JSON value with canonical numbers.
func decodeJSON(data []byte) (any, error) {
	v, err := decodeJSONAsIs(data)
	if err != nil {
		return nil, err
	}
	return canonicalNumbers(v)
}

// decodeJSONAsIs decodes one JSON value keeping each number's spelling. It
// reads the template as written, whose numbers the host copy keeps, and
// documents built only from canonical parts, such as a rendered object: the
// template and override values are canonicalised once, up front, and the
// patch library copies them verbatim.
func decodeJSONAsIs(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

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

// describe names the JSON type of v, for error messages.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// rawString is s as the value of a JSON patch operation's field.
func rawString(s string) *json.RawMessage {
	b, _ := json.Marshal(s)
	raw := json.RawMessage(b)
	return &raw
}
