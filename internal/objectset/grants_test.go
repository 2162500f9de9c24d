package objectset

import (
	"slices"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// ungranted decides which placed clusters refuse an object's type before
// anything is written: those registered with join whose federated types
// lack it.
func TestUngranted(t *testing.T) {
	joined := func(types ...string) runstate.Cluster {
		return runstate.Cluster{Cluster: registry.Cluster{Grants: registry.Grants{Limited: true, Types: types}}}
	}
	clusters := map[string]runstate.Cluster{
		"own-credentials":  {},
		"joined-cm":        joined("configmaps", "namespaces"),
		"joined-ns":        joined("namespaces"),
		"joined-none":      joined(),
		"joined-at-apply":  {GrantsUnknown: true, Cluster: registry.Cluster{Grants: registry.Grants{Limited: true}}},
		"joined-apps-only": joined("deployments.apps"),
	}
	tests := []struct {
		name     string
		typeName string
		placed   []string
		want     []string
	}{
		{name: "credentials of its own: the member answers at apply", typeName: "configmaps",
			placed: []string{"own-credentials"}, want: nil},
		{name: "a join that lists the type", typeName: "configmaps",
			placed: []string{"joined-cm"}, want: nil},
		{name: "a join that lacks the type", typeName: "configmaps",
			placed: []string{"joined-cm", "joined-ns", "own-credentials"}, want: []string{"joined-ns"}},
		{name: "a join with no type refuses every type", typeName: "namespaces",
			placed: []string{"joined-none", "joined-cm"}, want: []string{"joined-none"}},
		{name: "types are told apart by group", typeName: "deployments",
			placed: []string{"joined-apps-only"}, want: []string{"joined-apps-only"}},
		{name: "a join whose types are known at apply only is not judged", typeName: "configmaps",
			placed: []string{"joined-at-apply"}, want: nil},
		{name: "a cluster not in the snapshot is not judged", typeName: "configmaps",
			placed: []string{"unknown"}, want: nil},
		{name: "several, sorted", typeName: "secrets",
			placed: []string{"joined-ns", "joined-cm"}, want: []string{"joined-cm", "joined-ns"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ungranted(tt.typeName, tt.placed, clusters); !slices.Equal(got, tt.want) {
				t.Errorf("ungranted(%q, %v) = %v, want %v", tt.typeName, tt.placed, got, tt.want)
			}
		})
	}
}
