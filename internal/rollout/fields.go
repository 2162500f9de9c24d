package rollout

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// AnyValue, as the value of a field, waits for the field to be set to
// anything.
const AnyValue = "*"

// fieldMatch is one compiled entry of Config.Fields.
type fieldMatch struct {
	path   string
	tokens []string
	want   string
	// re is nil for a literal value, which the field must equal.
	re *regexp.Regexp
}

// compileField reads a value with no regular expression syntax in it as a
// literal, and any other as a regular expression: "Running" and "2" mean
// exactly those values, "^(\d+(\.|$)){4}" means a pattern.
func compileField(path, want string) (fieldMatch, error) {
	tokens, err := federation.ParseFieldPath(path)
	if err != nil {
		return fieldMatch{}, err
	}
	m := fieldMatch{path: path, tokens: tokens, want: want}
	switch {
	case want == "":
		return m, fmt.Errorf("the value for %s is empty: write the value to wait for, or %q for any value", path, AnyValue)
	case want == AnyValue || regexp.QuoteMeta(want) == want:
		return m, nil
	}
	if m.re, err = regexp.Compile(want); err != nil {
		return m, fmt.Errorf("the value for %s is not a valid regular expression (%w); a value with any of the characters \\.+*?()|[]{}^$ is one: put \\ before each of them to mean the characters themselves", path, err)
	}
	return m, nil
}

// unmet says how obj falls short of m, or "" when it matches.
func (m fieldMatch) unmet(obj map[string]any) string {
	v, found := lookup(obj, m.tokens)
	if m.want == AnyValue {
		if found {
			return ""
		}
		return fmt.Sprintf("waiting for %s to be set", m.path)
	}
	expect := fmt.Sprintf("%s to be %q", m.path, m.want)
	if m.re != nil {
		expect = fmt.Sprintf("%s to match the regular expression %s", m.path, m.want)
	}
	if !found {
		return fmt.Sprintf("waiting for %s (not set yet)", expect)
	}
	got, ok := scalar(v)
	if !ok {
		return fmt.Sprintf("waiting for %s, but it holds a list or an object: name a field inside it, or wait for %q", expect, AnyValue)
	}
	if m.re != nil && m.re.MatchString(got) || m.re == nil && got == m.want {
		return ""
	}
	return fmt.Sprintf("waiting for %s (it is %q)", expect, got)
}

// lookup follows the tokens of a field path into v; a null value is not
// set.
func lookup(v any, tokens []string) (any, bool) {
	for _, t := range tokens {
		switch node := v.(type) {
		case map[string]any:
			v = node[t]
		case []any:
			k, err := strconv.Atoi(t)
			if err != nil || k < 0 || k >= len(node) {
				return nil, false
			}
			v = node[k]
		default:
			return nil, false
		}
	}
	return v, v != nil
}

// scalar is v as the text a value in Config.Fields is compared with:
// strings as they are, booleans as true and false, numbers in decimal.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}
