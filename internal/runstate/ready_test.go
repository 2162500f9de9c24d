package runstate

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

func TestReady(t *testing.T) {
	ctx := context.Background()
	run := New(func(context.Context) (registry.Registrations, error) {
		return registry.Registrations{Clusters: []registry.Cluster{
			{Name: "berlin", Health: registry.ClusterHealth{Ready: true}},
			{Name: "tokyo", Health: registry.ClusterHealth{Reason: "ClusterOffline", Message: "no route to host"}},
			{Name: "sydney"},
		}}, nil
	})
	run.RecordHealth("sydney", registry.ClusterHealth{Message: "probe failed "})
	candidates := []Cluster{
		{Cluster: registry.Cluster{Name: "berlin"}}, {Cluster: registry.Cluster{Name: "tokyo"}}, {Cluster: registry.Cluster{Name: "sydney"}},
		{Cluster: registry.Cluster{Name: "unrecorded"}}, {Cluster: registry.Cluster{Name: "new"}, Planned: true},
	}
	excluded := map[string]string{}
	var names []string
	for _, c := range run.Ready(ctx, candidates, excluded) {
		names = append(names, c.Name)
	}
	if want := []string{"berlin", "unrecorded", "new"}; !slices.Equal(names, want) {
		t.Errorf("ready %v, want %v", names, want)
	}
	want := map[string]string{"tokyo": "ClusterOffline: no route to host", "sydney": "ClusterNotReady: probe failed"}
	if !maps.Equal(excluded, want) {
		t.Errorf("excluded %v, want %v", excluded, want)
	}
}

func TestNotInHostYet(t *testing.T) {
	clusters := []Cluster{
		{Cluster: registry.Cluster{Name: "berlin", Connection: member.Connection{APIEndpoint: "https://berlin:6443"}}},
		{Cluster: registry.Cluster{Name: "new"}, Planned: true},
		{Cluster: registry.Cluster{Name: "known", Connection: member.Connection{APIEndpoint: "https://known:6443"}}, Planned: true},
	}
	if got := NotInHostYet(clusters); !slices.Equal(got, []string{"new"}) {
		t.Errorf("got %v, want [new]", got)
	}
	if got := NotInHostYet(nil); got != nil {
		t.Errorf("got %v for no clusters", got)
	}
}
