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

func TestUnregisteredPreferences(t *testing.T) {
	preferences := map[string]Preference{Wildcard: {Weight: 1}, "berlin": {Weight: 1}, "paris": {Weight: 2}}
	got := UnregisteredPreferences(preferences, map[string]bool{"berlin": true, "tokyo": true})
	if len(got) != 1 || got[0].At != (At{Attribute: "clusters", Key: "paris"}) ||
		got[0].Detail != `clusters["paris"] names no registered cluster, so it has no effect. Registered clusters: berlin, tokyo.` {
		t.Errorf("got %+v, want one warning for paris", got)
	}
}

func TestChoiceWarnings(t *testing.T) {
	planned := Result{Warnings: []string{"only 1 group"}}
	for _, tc := range []struct {
		name string
		in   Input
		want At
	}{
		{"max_clusters alone", Input{MaxClusters: 1}, At{Attribute: "max_clusters"}},
		{"a spread", Input{Spread: Spread{ByLabel: "region", MinGroups: 2}}, At{Attribute: "spread"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ChoiceWarnings(tc.in, planned)
			if len(got) != 1 || got[0].At != tc.want || got[0].Detail != "only 1 group" {
				t.Errorf("got %+v, want one at %+v", got, tc.want)
			}
		})
	}
}

func TestExcludedWarnings(t *testing.T) {
	got := ExcludedWarnings("shop/web", map[string]string{"tokyo": "ClusterOffline: no route"})
	want := `Cluster "tokyo" is not ready (ClusterOffline: no route), so shop/web gives it no replicas; its share goes to the ready clusters.`
	if len(got) != 1 || got[0].At != (At{Attribute: "replicas"}) || got[0].Detail != want {
		t.Errorf("got %+v", got)
	}
	if got := ExcludedWarnings("shop/web", nil); len(got) != 0 {
		t.Errorf("got %+v for none excluded", got)
	}
}
