package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// fromStored reads the clusters map as the host spells it, unless the prior
// state spells the same preference as an empty map.
func TestFromStored_clustersSpelling(t *testing.T) {
	ctx := context.Background()
	weighted := types.MapValueMust(clusterPreferenceType, map[string]attr.Value{
		"berlin": types.ObjectValueMust(clusterPreferenceType.AttrTypes, map[string]attr.Value{
			"min_replicas": types.Int64Value(1), "max_replicas": types.Int64Value(4), "weight": types.Int64Value(2),
		}),
	})
	empty := types.MapValueMust(clusterPreferenceType, map[string]attr.Value{})
	everyCluster := map[string]registry.ClusterPreference{"*": {Weight: 1}}
	four := int64(4)
	tests := []struct {
		name   string
		prior  types.Map
		stored map[string]registry.ClusterPreference
		want   types.Map
	}{
		{name: "import of every cluster alike", prior: types.MapNull(clusterPreferenceType), stored: everyCluster, want: everyClusterAlike},
		{name: "refresh of every cluster alike", prior: everyClusterAlike, stored: everyCluster, want: everyClusterAlike},
		{name: "refresh of an empty map", prior: empty, stored: everyCluster, want: empty},
		{name: "import of weights and caps", prior: types.MapNull(clusterPreferenceType),
			stored: map[string]registry.ClusterPreference{"berlin": {MinReplicas: 1, MaxReplicas: &four, Weight: 2}}, want: weighted},
		{name: "an empty map changed on the host", prior: empty,
			stored: map[string]registry.ClusterPreference{"berlin": {MinReplicas: 1, MaxReplicas: &four, Weight: 2}}, want: weighted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := replicaSchedulingPreferenceModel{Clusters: tt.prior}
			stored := &registry.SchedulingPreference{Namespace: "shop", Name: "web", Clusters: tt.stored}
			if diags := m.fromStored(ctx, stored); diags.HasError() {
				t.Fatal(diags)
			}
			if !m.Clusters.Equal(tt.want) {
				t.Errorf("clusters = %v, want %v", m.Clusters, tt.want)
			}
		})
	}
}
