package registry

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// configMaps is the type whose CRD the tests delete.
var configMaps = NewFederatedType(APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}, Enabled, Enabled)

// lingeringCRDHost is a pretend host on which a deleted CRD is still read
// back, being deleted, the given number of times before it is gone, as the
// API server does while it removes the CRD's objects.
func lingeringCRDHost(lingers int32, getErr error) (*Registry, *atomic.Int32) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{configMaps.Federated.Resource(): "FederatedConfigMapList"})
	deleted := false
	var reads atomic.Int32
	dyn.PrependReactor("delete", "customresourcedefinitions", func(clienttesting.Action) (bool, runtime.Object, error) {
		deleted = true
		return true, nil, nil
	})
	dyn.PrependReactor("get", "customresourcedefinitions", func(clienttesting.Action) (bool, runtime.Object, error) {
		if !deleted {
			return false, nil, nil
		}
		n := reads.Add(1)
		switch {
		case getErr != nil:
			return true, nil, getErr
		case n <= lingers:
			crd := &unstructured.Unstructured{}
			crd.SetName("federatedconfigmaps.types.kubefed.io")
			return true, crd, nil
		}
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "customresourcedefinitions"}, "federatedconfigmaps.types.kubefed.io")
	})
	return New(nil, dyn, nil, "kube-federation-system", "kubefed-test"), &reads
}

func TestDeleteType_returnsOnceTheCRDIsGone(t *testing.T) {
	reg, reads := lingeringCRDHost(2, nil)
	if err := reg.DeleteType(context.Background(), configMaps); err != nil {
		t.Fatal(err)
	}
	if got := reads.Load(); got != 3 {
		t.Errorf("the CRD was read %d times after its deletion, want 3 (twice still there, then gone)", got)
	}
}

func TestDeleteType_saysWhichCRDHasNotGone(t *testing.T) {
	reg, _ := lingeringCRDHost(0, apierrors.NewForbidden(schema.GroupResource{Resource: "customresourcedefinitions"}, "", errors.New("no")))
	err := reg.DeleteType(context.Background(), configMaps)
	if err == nil || !strings.Contains(err.Error(), "CRD federatedconfigmaps.types.kubefed.io of the host is being deleted, but is not gone yet") {
		t.Fatalf("DeleteType: %v, want an error naming the CRD that has not gone", err)
	}
}
