package scheduling

import (
	"errors"
	"maps"
	"testing"
)

func TestCutByCapacity(t *testing.T) {
	clusters := []string{"berlin", "new-york", "san-francisco"}
	for _, tc := range []struct {
		name     string
		capacity map[string]int64
		want     map[string]int64
	}{
		{name: "no capacities cut nothing", want: map[string]int64{}},
		{name: "a small cluster is cut to what it holds", capacity: map[string]int64{"berlin": 2, "new-york": 12, "san-francisco": 12},
			want: map[string]int64{"berlin": 4}},
		{name: "capacities above every share cut nothing", capacity: map[string]int64{"berlin": 6, "new-york": 12, "san-francisco": 12},
			want: map[string]int64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{TotalReplicas: 12, Clusters: clusters, Capacity: tc.capacity, Rebalance: true, Key: "shop/web"}
			planned, err := Plan(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := CutByCapacity(in, planned); !maps.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestErrorAt(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want At
	}{
		{name: "a preference of a cluster", err: &InputError{Field: FieldPreferences, Key: "berlin"},
			want: At{Attribute: "clusters", Key: "berlin"}},
		{name: "the total", err: &InputError{Field: FieldTotalReplicas}, want: At{Attribute: "total_replicas"}},
		{name: "the weight source", err: &InputError{Field: FieldWeightBy}, want: At{Attribute: "weight_by"}},
		{name: "max_clusters", err: &InputError{Field: FieldMaxClusters}, want: At{Attribute: "max_clusters"}},
		{name: "an attribute of the spread", err: &InputError{Field: FieldSpread, Key: "min_groups"},
			want: At{Attribute: "spread", Name: "min_groups"}},
		{name: "a capacity", err: &InputError{Field: FieldCapacity, Key: "berlin"}, want: At{Attribute: "capacity"}},
		{name: "anything else", err: errors.New("boom"), want: At{Attribute: "clusters"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ErrorAt(tc.err); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
