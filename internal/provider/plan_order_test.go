package provider

import (
	"reflect"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

func TestPlanOrderNamesObjectsThatMissAClusterPlannedAfterThem(t *testing.T) {
	var order planOrder
	eu := federation.Placement{Selector: &federation.Selector{MatchLabels: map[string]string{"region": "eu"}}}
	all := federation.Placement{Selector: &federation.Selector{}}
	order.planned("configmaps/app/eu", eu)
	order.planned("configmaps/app/all", all)
	order.planned("configmaps/app/named", federation.Placement{Clusters: []string{"paris"}, Selector: eu.Selector})
	order.planned("configmaps/app/nowhere", federation.Placement{})

	for _, c := range []struct {
		name          string
		before, after map[string]string
		want          []string
	}{
		{"a new cluster in eu", nil, map[string]string{"region": "eu"}, []string{"configmaps/app/all", "configmaps/app/eu"}},
		{"a new cluster elsewhere", nil, map[string]string{"region": "us"}, []string{"configmaps/app/all"}},
		{"a cluster moved to eu", map[string]string{"region": "us"}, map[string]string{"region": "eu"}, []string{"configmaps/app/eu"}},
		{"a cluster that keeps its region", map[string]string{"region": "eu", "tier": "a"}, map[string]string{"region": "eu"}, nil},
	} {
		if got := order.missed("paris", c.before, c.after); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: missed %v, want %v", c.name, got, c.want)
		}
	}
}
