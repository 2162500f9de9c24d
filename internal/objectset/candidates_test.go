package objectset

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// candidatesOf decides which clusters an object's selectors see, and so
// whether the plan Terraform makes again at apply can come out the same
// whichever order it applies the object and this run's registrations in.
func TestCandidatesOf(t *testing.T) {
	registered := func(name string) registry.Cluster {
		return registry.Cluster{Name: name, Labels: map[string]string{"env": "prod"},
			Connection: member.Connection{APIEndpoint: "https://" + name}}
	}
	snapshotWith := func(planNew bool) *runstate.Snapshot {
		s := runstate.NewSnapshot([]registry.Cluster{registered("sf"), registered("ny"), registered("other")})
		if planNew {
			s.PlanCluster("berlin-2", map[string]string{"env": "prod"}, true)
		}
		return s
	}
	names := func(cs []federation.Cluster) []string {
		out := []string{}
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	for _, c := range []struct {
		name                       string
		seen                       map[string]bool
		planNew                    bool
		registered, upcoming, late []string
		freshWhenAllPlaced         []string
	}{
		{name: "an object never read sees every cluster, this run's too",
			seen: nil, planNew: true,
			registered: []string{"berlin-2", "ny", "other", "sf"}, upcoming: nil, late: []string{},
			freshWhenAllPlaced: []string{"berlin-2"}},
		{name: "an object read before sees only the clusters of its read",
			seen: map[string]bool{"sf": true, "ny": true, "other": true}, planNew: false,
			registered: []string{"ny", "other", "sf"}, upcoming: nil, late: []string{}},
		{name: "a cluster someone else registered after the read waits for the next plan",
			seen: map[string]bool{"sf": true, "ny": true}, planNew: false,
			registered: []string{"ny", "sf"}, upcoming: nil, late: []string{"other"}},
		{name: "a cluster this run registers after the read is for listed names only",
			seen: map[string]bool{"sf": true, "ny": true, "other": true}, planNew: true,
			registered: []string{"ny", "other", "sf"}, upcoming: []string{"berlin-2"}, late: []string{"berlin-2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			view := candidatesOf(snapshotWith(c.planNew), c.seen)
			if got := names(view.registered); !slices.Equal(got, c.registered) {
				t.Errorf("registered = %v, want %v", got, c.registered)
			}
			if !slices.Equal(view.upcoming, c.upcoming) {
				t.Errorf("upcoming = %v, want %v", view.upcoming, c.upcoming)
			}
			if got := names(view.late); !slices.Equal(got, c.late) {
				t.Errorf("late = %v, want %v", got, c.late)
			}
			all, err := federation.Placement{Selector: &metav1.LabelSelector{}}.Select(view.registered, view.upcoming)
			if err != nil {
				t.Fatal(err)
			}
			if got := registeredInRun(view, all); !slices.Equal(got, c.freshWhenAllPlaced) {
				t.Errorf("registeredInRun = %v, want %v", got, c.freshWhenAllPlaced)
			}
		})
	}
}
