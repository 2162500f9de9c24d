// Package registry reads and writes the federation's own objects in the host
// cluster, with KubeFed's API groups, kinds and field names: the registered
// member clusters (KubeFedCluster and their credential Secrets), the enabled
// types (FederatedTypeConfig and the Federated<Kind> CRDs), the federated
// objects and the replica scheduling preferences.
package registry

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// KubeFedClusterResource is where KubeFed keeps its cluster registry.
var KubeFedClusterResource = schema.GroupVersionResource{
	Group: "core.kubefed.io", Version: "v1beta1", Resource: "kubefedclusters",
}

// ClusterRecord is a registered member cluster as the host records it.
type ClusterRecord struct {
	Name              string
	APIEndpoint       string
	Labels            map[string]string
	Ready             bool
	Offline           bool
	KubernetesVersion string
}

// ListClusters returns the clusters registered in namespace, sorted by name.
// A host without the KubeFedCluster CRD has no registry yet, so it has no
// clusters: that is not an error.
func ListClusters(ctx context.Context, client dynamic.Interface, namespace string) ([]ClusterRecord, error) {
	list, err := client.Resource(KubeFedClusterResource).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing KubeFedClusters in namespace %q of the host: %w", namespace, err)
	}
	records := make([]ClusterRecord, 0, len(list.Items))
	for i := range list.Items {
		records = append(records, clusterRecord(&list.Items[i]))
	}
	sort.Slice(records, func(i, j int) bool { return records[i].Name < records[j].Name })
	return records, nil
}

func clusterRecord(obj *unstructured.Unstructured) ClusterRecord {
	record := ClusterRecord{Name: obj.GetName(), Labels: obj.GetLabels()}
	record.APIEndpoint, _, _ = unstructured.NestedString(obj.Object, "spec", "apiEndpoint")
	record.KubernetesVersion, _, _ = unstructured.NestedString(obj.Object, "status", "kubernetesVersion")
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		condition, ok := c.(map[string]any)
		if !ok {
			continue
		}
		isTrue := condition["status"] == "True"
		switch condition["type"] {
		case "Ready":
			record.Ready = isTrue
		case "Offline":
			record.Offline = isTrue
		}
	}
	return record
}
