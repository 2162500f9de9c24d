package runstate

import (
	"slices"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

func TestSnapshotSeesPlannedClusters(t *testing.T) {
	s := NewSnapshot([]registry.Cluster{
		{Name: "berlin", Labels: map[string]string{"region": "eu"}, Health: registry.ClusterHealth{Ready: true}},
		{Name: "paris", Labels: map[string]string{"region": "eu"}},
	})
	s.PlanCluster("tokyo", map[string]string{"region": "ap"}, true)
	s.PlanCluster("berlin", map[string]string{"region": "eu-central"}, true)
	s.PlanRemoval("paris")
	s.PlanCluster("later", nil, false)

	var names []string
	for _, c := range s.Clusters() {
		names = append(names, c.Name)
	}
	if got := len(names); got != 3 || names[0] != "berlin" || names[1] != "later" || names[2] != "tokyo" {
		t.Fatalf("clusters %v, want berlin, later, tokyo", names)
	}
	berlin, _ := s.Cluster("berlin")
	if !berlin.Planned || berlin.Labels["region"] != "eu-central" || !berlin.Health.Ready {
		t.Errorf("berlin %+v: want planned labels and its last health", berlin)
	}
	later, _ := s.Cluster("later")
	if later.LabelsKnown {
		t.Errorf("labels of a cluster planned with unknown labels are known")
	}
	s.Applied(registry.Cluster{Name: "tokyo", Labels: map[string]string{"region": "ap"}, Health: registry.ClusterHealth{Ready: true}})
	if tokyo, _ := s.Cluster("tokyo"); tokyo.Planned || !tokyo.Health.Ready || !tokyo.InRun {
		t.Errorf("tokyo after apply %+v: want applied in this run", tokyo)
	}
	if berlin, _ := s.Cluster("berlin"); !berlin.InRun {
		t.Error("berlin, planned in this run, is not marked so")
	}
	if got := s.Names(); len(got) != 3 || got[0] != "berlin" || got[2] != "tokyo" {
		t.Errorf("names %v", got)
	}
	fresh := NewSnapshot([]registry.Cluster{{Name: "oslo"}})
	if oslo, _ := fresh.Cluster("oslo"); oslo.InRun {
		t.Error("a cluster read from the host is marked as part of the run")
	}
}

// A refresh records the clusters the host holds: one this run only plans
// to register is not among them until it is written.
func TestRegisteredNamesLeaveOutPlannedRegistrations(t *testing.T) {
	at := func(name string) registry.Cluster {
		return registry.Cluster{Name: name, Connection: member.Connection{APIEndpoint: "https://" + name}}
	}
	s := NewSnapshot([]registry.Cluster{at("berlin"), at("paris")})
	s.PlanCluster("tokyo", map[string]string{"region": "ap"}, true)
	s.PlanCluster("berlin", map[string]string{"region": "eu-central"}, true)
	if got := s.RegisteredNames(); !slices.Equal(got, []string{"berlin", "paris"}) {
		t.Errorf("registered before the write: %v, want berlin, paris", got)
	}
	s.Applied(at("tokyo"))
	if got := s.RegisteredNames(); !slices.Equal(got, []string{"berlin", "paris", "tokyo"}) {
		t.Errorf("registered after the write: %v, want berlin, paris, tokyo", got)
	}
}

// A registration planned with join replaces the grants the host recorded
// for the cluster; one whose types are known at apply only says so, and a
// cluster the run does not plan keeps the host's.
func TestSnapshotPlansGrants(t *testing.T) {
	joined := registry.Grants{Limited: true, Types: []string{"namespaces"}}
	s := NewSnapshot([]registry.Cluster{{Name: "berlin", Grants: joined}, {Name: "paris", Grants: joined}})
	s.PlanCluster("berlin", nil, true)
	s.PlanGrants("berlin", registry.Grants{}, true)
	s.PlanCluster("tokyo", nil, true)
	s.PlanGrants("tokyo", registry.Grants{}, false)
	s.PlanGrants("nowhere", joined, true)

	if berlin, _ := s.Cluster("berlin"); berlin.Grants.Limited || berlin.GrantsUnknown {
		t.Errorf("berlin planned without join: %+v, want unlimited grants, known", berlin)
	}
	if tokyo, _ := s.Cluster("tokyo"); !tokyo.GrantsUnknown {
		t.Errorf("tokyo's grants are known at apply only: %+v", tokyo)
	}
	if paris, _ := s.Cluster("paris"); !paris.Grants.Limited || paris.GrantsUnknown {
		t.Errorf("paris, not planned: %+v, want the host's grants", paris)
	}
	if _, ok := s.Cluster("nowhere"); ok {
		t.Error("grants of a cluster the run does not know made it a cluster")
	}
}
