package registry

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// hostWrites answers a registry's writes to a pretend host, refusing the
// ones named in refuse ("cluster", "secret", "status"), and records every
// write and delete it was sent.
type hostWrites struct {
	refuse map[string]bool

	mu   sync.Mutex
	sent []string
}

func (h *hostWrites) record(what string) error {
	h.mu.Lock()
	h.sent = append(h.sent, what)
	h.mu.Unlock()
	if h.refuse[what] {
		return apierrors.NewForbidden(schema.GroupResource{Resource: what}, "", errors.New("refused"))
	}
	return nil
}

func (h *hostWrites) registry() *Registry {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{KubeFedClusterResource: "KubeFedClusterList"})
	dyn.PrependReactor("patch", "kubefedclusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
		what := "cluster"
		if a.GetSubresource() == "status" {
			what = "status"
		}
		if err := h.record(what); err != nil {
			return true, nil, err
		}
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "core.kubefed.io/v1beta1", "kind": "KubeFedCluster",
			"metadata": map[string]any{"name": "berlin", "namespace": "kube-federation-system"},
		}}
		return true, u, nil
	})
	dyn.PrependReactor("delete", "kubefedclusters", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, h.record("delete cluster")
	})
	kube := kubefake.NewClientset()
	kube.PrependReactor("patch", "secrets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() != "kube-federation-system" {
			return true, nil, h.record("read secret")
		}
		return true, nil, h.record("secret")
	})
	return New(kube, dyn, nil, "kube-federation-system", "kubefed-test")
}

func (h *hostWrites) writes() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	sent := append([]string(nil), h.sent...)
	sort.Strings(sent)
	return sent
}

func TestRegisterCluster(t *testing.T) {
	tests := []struct {
		name        string
		refuse      string
		writes      []string
		notRecorded bool
		failed      bool
		read        bool
	}{
		{name: "the registration, its Secret and its status are written", writes: []string{"cluster", "secret", "status"}},
		{name: "a refused cluster writes nothing else", refuse: "cluster", writes: []string{"cluster"}, failed: true},
		{name: "a refused Secret removes the cluster again", refuse: "secret",
			writes: []string{"cluster", "delete cluster", "secret", "status"}, failed: true},
		{name: "a refused status keeps the registration", refuse: "status",
			writes: []string{"cluster", "secret", "status"}, notRecorded: true},
		{name: "read credentials are written beside the Secret", read: true,
			writes: []string{"cluster", "read secret", "secret", "status"}},
		{name: "a refused read Secret removes the cluster again", refuse: "read secret", read: true,
			writes: []string{"cluster", "delete cluster", "read secret", "secret", "status"}, failed: true},
	}
	probe := member.ProbeResult{Time: time.Now(), Ready: true, Reason: member.ReasonReady, KubernetesVersion: "v1.37.2"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &hostWrites{refuse: map[string]bool{tt.refuse: true}}
			c := Cluster{Name: "berlin", SecretName: SecretNameFor("berlin"),
				Connection: member.Connection{APIEndpoint: "https://berlin.example:6443", Token: "t"}}
			if tt.read {
				c.Read = Credentials{Token: "read"}
			}
			health, err := h.registry().RegisterCluster(context.Background(), c, probe)
			var notRecorded *HealthNotRecordedError
			if got := errors.As(err, &notRecorded); got != tt.notRecorded {
				t.Errorf("health not recorded = %v (%v), want %v", got, err, tt.notRecorded)
			}
			if failed := err != nil && notRecorded == nil; failed != tt.failed {
				t.Errorf("registration failed = %v (%v), want %v", failed, err, tt.failed)
			}
			if !health.Ready || health.KubernetesVersion != "v1.37.2" {
				t.Errorf("health = %+v, want the probe's", health)
			}
			if got := h.writes(); !slices.Equal(got, tt.writes) {
				t.Errorf("writes = %v, want %v", got, tt.writes)
			}
		})
	}
}
