package registry

import (
	"context"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// KubeFedClusterResource is where KubeFed keeps its cluster registry.
var KubeFedClusterResource = schema.GroupVersionResource{
	Group: "core.kubefed.io", Version: "v1beta1", Resource: "kubefedclusters",
}

// ClusterRecord is a registered member cluster as the host records it,
// without its credentials.
type ClusterRecord struct {
	Name              string
	APIEndpoint       string
	Labels            map[string]string
	Ready             bool
	Offline           bool
	KubernetesVersion string
}

// ClusterRecords returns the registered clusters, sorted by name, reading
// no Secret: an identity that may not read credentials can still list them.
// A host without KubeFed's CRDs is ErrNoRegistry, not an empty list: a
// caller that asks for the clusters, rather than plans to register them,
// is most likely pointed at the wrong cluster.
func (r *Registry) ClusterRecords(ctx context.Context) ([]ClusterRecord, error) {
	clusters, err := r.listRegisteredClusters(ctx)
	if err != nil {
		return nil, err
	}
	records := make([]ClusterRecord, 0, len(clusters))
	for _, c := range clusters {
		records = append(records, ClusterRecord{
			Name: c.Name, APIEndpoint: c.Connection.APIEndpoint, Labels: c.Labels,
			Ready: c.Health.Ready, Offline: c.Health.Offline, KubernetesVersion: c.Health.KubernetesVersion,
		})
	}
	sort.Slice(records, func(i, j int) bool { return records[i].Name < records[j].Name })
	return records, nil
}
