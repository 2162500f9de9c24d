package objectset

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Path is where in a resource's configuration a problem is: attribute
// names, list indexes and map keys from the root, in the resource's own
// terms (an object's template is "template"; an application's adapter maps
// it onto the manifest element that holds the object).
type Path struct{ steps []step }

type step struct {
	name  string
	index int
	key   string
	kind  stepKind
}

type stepKind int

const (
	stepName stepKind = iota
	stepIndex
	stepKey
)

// Root is the path of a top-level attribute.
func Root(name string) Path { return Path{steps: []step{{name: name, kind: stepName}}} }

// AtName is the path of a nested attribute of p.
func (p Path) AtName(name string) Path { return p.with(step{name: name, kind: stepName}) }

// AtListIndex is the path of element i of the list at p.
func (p Path) AtListIndex(i int) Path { return p.with(step{index: i, kind: stepIndex}) }

// AtMapKey is the path of key k of the map at p.
func (p Path) AtMapKey(k string) Path { return p.with(step{key: k, kind: stepKey}) }

func (p Path) with(s step) Path {
	return Path{steps: append(slices.Clip(p.steps), s)}
}

// Empty reports whether p names no attribute.
func (p Path) Empty() bool { return len(p.steps) == 0 }

// Walk calls the function for p's step of each kind, in order.
func (p Path) Walk(name func(string), index func(int), key func(string)) {
	for _, s := range p.steps {
		switch s.kind {
		case stepName:
			name(s.name)
		case stepIndex:
			index(s.index)
		case stepKey:
			key(s.key)
		}
	}
}

// String is p as Terraform writes it: overrides[0].patches[1].
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p.steps {
		switch s.kind {
		case stepName:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case stepIndex:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case stepKey:
			b.WriteString("[" + strconv.Quote(s.key) + "]")
		}
	}
	return b.String()
}

// Severity says whether a problem stops the operation.
type Severity int

const (
	Error Severity = iota
	Warning
)

// Problem is something an operation on a set met: an error or a warning,
// at an attribute or about the whole resource, in words for the user.
type Problem struct {
	Severity Severity
	At       Path
	Summary  string
	Detail   string
}

// Problems is what an operation reports, in the order it met it.
type Problems []Problem

// AddError reports an error about the whole resource.
func (ps *Problems) AddError(summary, detail string) {
	*ps = append(*ps, Problem{Severity: Error, Summary: summary, Detail: detail})
}

// AddWarning reports a warning about the whole resource.
func (ps *Problems) AddWarning(summary, detail string) {
	*ps = append(*ps, Problem{Severity: Warning, Summary: summary, Detail: detail})
}

// AddAttributeError reports an error at an attribute.
func (ps *Problems) AddAttributeError(at Path, summary, detail string) {
	*ps = append(*ps, Problem{Severity: Error, At: at, Summary: summary, Detail: detail})
}

// AddAttributeWarning reports a warning at an attribute.
func (ps *Problems) AddAttributeWarning(at Path, summary, detail string) {
	*ps = append(*ps, Problem{Severity: Warning, At: at, Summary: summary, Detail: detail})
}

// Append adds other's problems after ps's.
func (ps *Problems) Append(other ...Problem) { *ps = append(*ps, other...) }

// HasError reports whether any problem is an error.
func (ps Problems) HasError() bool { return ps.ErrorsCount() > 0 }

// ErrorsCount is how many problems are errors.
func (ps Problems) ErrorsCount() int {
	n := 0
	for _, p := range ps {
		if p.Severity == Error {
			n++
		}
	}
	return n
}

// redactedValue replaces a Secret's value in a message.
const redactedValue = "(sensitive value)"

// minRedactedLength is the shortest value taken out of messages: shorter
// ones match ordinary words and would garble the message, and say little.
const minRedactedLength = 4

// Redact replaces every occurrence of the values in text, longest first so
// that a value inside another is not left half shown.
func Redact(text string, values []string) string {
	sorted := slices.SortedFunc(slices.Values(values), func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, v := range sorted {
		if len(v) >= minRedactedLength {
			text = strings.ReplaceAll(text, v, redactedValue)
		}
	}
	return text
}

// AsWarnings is ps with every error made a warning: for what an operation
// can leave to a later one, such as a refresh that keeps an object it
// cannot read.
func (ps Problems) AsWarnings() Problems {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Severity = Warning
	}
	return out
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
