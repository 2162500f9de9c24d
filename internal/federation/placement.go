package federation

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Cluster is a registered member cluster as placement and overrides see it.
type Cluster struct {
	Name   string
	Labels map[string]string
}

// Placement says which member clusters receive an object, with KubeFed's
// semantics:
//
//	Clusters   Selector        selected
//	non-nil    (ignored)       exactly the listed names; an empty list selects none
//	nil        nil             none
//	nil        empty           every registered cluster
//	nil        non-empty       the registered clusters whose labels match
type Placement struct {
	// Clusters lists cluster names; nil means the list is not set.
	Clusters []string
	// Selector selects clusters by label; nil means it is not set.
	Selector *metav1.LabelSelector
}

// Select returns the names of the selected clusters, sorted and without
// duplicates. Listed names must belong to registered clusters or to upcoming,
// the clusters about to be registered by the same run; otherwise Select
// returns an *UnknownClusterError. KubeFed ignored unknown names silently,
// which turned typos into objects that quietly went nowhere. Selectors only
// match registered clusters, since only their labels are known.
func (p Placement) Select(registered []Cluster, upcoming []string) ([]string, error) {
	// An ignored selector is still validated: a broken one is a mistake
	// worth reporting even while the list takes precedence.
	var sel labels.Selector
	if p.Selector != nil {
		var err error
		if sel, err = compileSelector(p.Selector); err != nil {
			return nil, fmt.Errorf("cluster_selector: %w", err)
		}
	}
	if p.Clusters != nil {
		return selectListed(p.Clusters, registered, upcoming)
	}
	selected := []string{}
	if sel == nil {
		return selected, nil
	}
	for _, c := range registered {
		if sel.Matches(labels.Set(c.Labels)) {
			selected = append(selected, c.Name)
		}
	}
	slices.Sort(selected)
	return slices.Compact(selected), nil
}

func selectListed(listed []string, registered []Cluster, upcoming []string) ([]string, error) {
	known := make(map[string]bool, len(registered)+len(upcoming))
	for _, c := range registered {
		known[c.Name] = true
	}
	for _, name := range upcoming {
		known[name] = true
	}
	var unknown []string
	for _, name := range listed {
		if !known[name] && !slices.Contains(unknown, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		err := &UnknownClusterError{Names: unknown, Upcoming: slices.Sorted(slices.Values(upcoming))}
		for _, c := range registered {
			err.Registered = append(err.Registered, c.Name)
		}
		slices.Sort(err.Registered)
		err.Registered = slices.Compact(err.Registered)
		return nil, err
	}
	selected := slices.Clone(listed)
	slices.Sort(selected)
	return slices.Compact(selected), nil
}

// UnknownClusterError reports listed cluster names that are neither
// registered nor about to be, with the names that would have been accepted.
type UnknownClusterError struct {
	// Names are the unknown names, in the order they were listed.
	Names []string
	// Registered are the registered cluster names, sorted.
	Registered []string
	// Upcoming are the names about to be registered, sorted.
	Upcoming []string
}

func (e *UnknownClusterError) Error() string {
	var b strings.Builder
	if len(e.Names) == 1 {
		fmt.Fprintf(&b, "cluster %q is not registered", e.Names[0])
	} else {
		quoted := make([]string, len(e.Names))
		for i, n := range e.Names {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		fmt.Fprintf(&b, "clusters %s are not registered", strings.Join(quoted, ", "))
	}
	if len(e.Registered) == 0 {
		b.WriteString("; no cluster is registered")
	} else {
		b.WriteString("; registered clusters: " + strings.Join(e.Registered, ", "))
	}
	if len(e.Upcoming) > 0 {
		b.WriteString("; about to be registered: " + strings.Join(e.Upcoming, ", "))
	}
	return b.String()
}
