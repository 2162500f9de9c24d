package objectset

import (
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

func TestRegisteredLaterLeavesOutEveryClusterRegisteredAfterTheRead(t *testing.T) {
	old := runstate.Cluster{Cluster: registry.Cluster{Name: "old"}}
	late := runstate.Cluster{Cluster: registry.Cluster{Name: "late"}}
	ours := runstate.Cluster{Cluster: registry.Cluster{Name: "ours"}, InRun: true}
	noted := []string{"old"}
	var none []string
	for _, tc := range []struct {
		name    string
		note    *[]string
		cluster runstate.Cluster
		want    bool
	}{
		{"no note: every cluster counts", nil, late, false},
		{"registered before the read", &noted, old, false},
		{"registered after the read by someone else", &noted, late, true},
		{"registered after the read by this run", &noted, ours, true},
		{"a note of no clusters leaves out another's new cluster", &none, late, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RegisteredLater(SeenSet(tc.note), tc.cluster); got != tc.want {
				t.Errorf("RegisteredLater(%s) = %v, want %v", tc.cluster.Name, got, tc.want)
			}
		})
	}
}
