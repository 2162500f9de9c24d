package scheduling

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// At is the attribute of a replica scheduling preference that a warning or
// an error is about: a top-level attribute, with the nested attribute (Name)
// or the map key (Key) inside it when there is one.
type At struct{ Attribute, Name, Key string }

// Warning is a plan-time warning about a split, at the attribute it is
// about.
type Warning struct {
	At              At
	Summary, Detail string
}

// ErrorAt is the attribute an error of [Plan] is about; any other error is
// about the clusters.
func ErrorAt(err error) At {
	var inputErr *InputError
	if !errors.As(err, &inputErr) {
		return At{Attribute: "clusters"}
	}
	switch inputErr.Field {
	case FieldTotalReplicas, FieldStrategy, FieldWeightBy, FieldMaxClusters, FieldCapacity:
		return At{Attribute: inputErr.Field}
	case FieldSpread:
		return At{Attribute: "spread", Name: inputErr.Key}
	case FieldPreferences:
		return At{Attribute: "clusters", Key: inputErr.Key}
	}
	return At{Attribute: "clusters"}
}

// UnregisteredPreferences warns of preferences for clusters that are not
// registered.
func UnregisteredPreferences(preferences map[string]Preference, registered map[string]bool) []Warning {
	var warnings []Warning
	for _, key := range slices.Sorted(maps.Keys(preferences)) {
		if key != Wildcard && !registered[key] {
			warnings = append(warnings, Warning{At{Attribute: "clusters", Key: key}, "Preference for an unregistered cluster",
				fmt.Sprintf("clusters[%q] names no registered cluster, so it has no effect. Registered clusters: %s.",
					key, strings.Join(slices.Sorted(maps.Keys(registered)), ", "))})
		}
	}
	return warnings
}

// ChoiceWarnings are the planner's own warnings about what the spread or
// max_clusters could not honour.
func ChoiceWarnings(in Input, planned Result) []Warning {
	at := At{Attribute: "max_clusters"}
	if in.Spread.ByLabel != "" {
		at = At{Attribute: "spread"}
	}
	warnings := make([]Warning, 0, len(planned.Warnings))
	for _, w := range planned.Warnings {
		warnings = append(warnings, Warning{at, "The split cannot honour the spread", w})
	}
	return warnings
}

// CutByCapacity returns, for each cluster whose capacity lowered its count,
// the count it would have had without capacities.
func CutByCapacity(in Input, planned Result) map[string]int64 {
	cut := map[string]int64{}
	if len(in.Capacity) == 0 {
		return cut
	}
	unbounded := in
	unbounded.Capacity = nil
	free, err := Plan(unbounded)
	if err != nil {
		return cut
	}
	for name, n := range planned.Plan {
		if bound, ok := in.Capacity[name]; ok && n == bound && free.Plan[name] > n {
			cut[name] = free.Plan[name]
		}
	}
	return cut
}

// ExcludedWarnings say, for each cluster left out of the split of id
// because it is not ready, why.
func ExcludedWarnings(id string, excluded map[string]string) []Warning {
	warnings := make([]Warning, 0, len(excluded))
	for name, reason := range excluded {
		warnings = append(warnings, Warning{At{Attribute: "replicas"}, "Cluster excluded from the split",
			fmt.Sprintf("Cluster %q is not ready (%s), so %s gives it no replicas; its share goes to the ready clusters.",
				name, reason, id)})
	}
	return warnings
}
