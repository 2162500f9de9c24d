// Package importid reads and writes the ids resources are imported by: the
// attributes of a resource's identity in a fixed order, joined by "/".
package importid

import (
	"fmt"
	"strings"
)

// Format is how an id is made of a resource identity's attributes: the
// Attributes in the id's order, joined by "/"; Optional, when set, is the
// one attribute an id may leave out (a cluster-scoped object's namespace).
type Format struct {
	Attributes []string
	Optional   string
	// Example is an id, for the messages.
	Example string
}

// Split returns the identity's attributes in id, by name; an optional one
// that id leaves out is absent.
func (p Format) Split(id string) (map[string]string, error) {
	parts := strings.Split(id, "/")
	names := p.Attributes
	if p.Optional != "" && len(parts) == len(names)-1 {
		names = without(names, p.Optional)
	}
	if len(parts) != len(names) || id == "" {
		return nil, fmt.Errorf("%q is not an id of the form %s, such as %s", id, p.form(), p.Example)
	}
	out := make(map[string]string, len(names))
	for i, name := range names {
		if parts[i] == "" {
			return nil, fmt.Errorf("%q has an empty %s: write %s, such as %s", id, name, p.form(), p.Example)
		}
		out[name] = parts[i]
	}
	return out, nil
}

// Join returns the id the identity's attributes make; an empty optional
// attribute is left out.
func (p Format) Join(values map[string]string) (string, error) {
	parts := make([]string, 0, len(p.Attributes))
	for _, name := range p.Attributes {
		v := values[name]
		switch {
		case v == "" && name == p.Optional:
			continue
		case v == "":
			return "", fmt.Errorf("the identity has no %s: set %s", name, strings.Join(p.required(), ", "))
		case strings.Contains(v, "/"):
			return "", fmt.Errorf("the identity's %s, %q, holds a \"/\", which no %s does", name, v, name)
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "/"), nil
}

func (p Format) form() string {
	var alternatives []string
	full := "<" + strings.Join(p.Attributes, ">/<") + ">"
	alternatives = append(alternatives, full)
	if p.Optional != "" {
		alternatives = append(alternatives, "<"+strings.Join(without(p.Attributes, p.Optional), ">/<")+">")
	}
	return strings.Join(alternatives, " or ")
}

func (p Format) required() []string { return without(p.Attributes, p.Optional) }

func without(names []string, name string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}
