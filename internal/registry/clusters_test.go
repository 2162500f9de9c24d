package registry

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// hostServing is a registry of a pretend host that serves KubeFedClusters
// when served is true, and answers 404 to their list otherwise, as an API
// server without the CRD does.
func hostServing(served bool) *Registry {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{KubeFedClusterResource: "KubeFedClusterList"})
	if !served {
		dyn.PrependReactor("list", "kubefedclusters", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewNotFound(KubeFedClusterResource.GroupResource(), "")
		})
	}
	return New(kubefake.NewClientset(), dyn, nil, "kube-federation-system", "kubefed-test")
}

func TestClusterRecords_aHostWithoutKubeFedIsNoRegistry(t *testing.T) {
	records, err := hostServing(false).ClusterRecords(context.Background())
	if !errors.Is(err, ErrNoRegistry) {
		t.Fatalf("ClusterRecords = %v, %v; want ErrNoRegistry", records, err)
	}
	if want := "the host serves no kubefedclusters.core.kubefed.io: it has no KubeFed cluster registry"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestClusterRecords_aRegistryWithNoClustersIsEmpty(t *testing.T) {
	records, err := hostServing(true).ClusterRecords(context.Background())
	if err != nil || records == nil || len(records) != 0 {
		t.Fatalf("ClusterRecords = %#v, %v; want an empty list", records, err)
	}
}

func TestClusters_aHostWithoutKubeFedHasNoClustersYet(t *testing.T) {
	// The plan of a first registration reads a host the apply bootstraps.
	clusters, err := hostServing(false).Clusters(context.Background())
	if err != nil || len(clusters) != 0 {
		t.Fatalf("Clusters = %v, %v; want none and no error", clusters, err)
	}
}
