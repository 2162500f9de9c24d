package registry

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	discoveryfake "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

var (
	configMapsResource   = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	accountsResource     = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	federatedCMsResource = schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federatedconfigmaps"}
)

func TestOwnObject(t *testing.T) {
	tests := []struct {
		name     string
		resource schema.GroupResource
		names    []string
		more     bool
		leaving  []HostObject
		want     bool
		holder   string
	}{
		{"nothing", configMapsResource.GroupResource(), nil, false, nil, false, ""},
		{"the CA every namespace gets", configMapsResource.GroupResource(), []string{"kube-root-ca.crt"}, false, nil, false, ""},
		{"the default service account", accountsResource.GroupResource(), []string{"default"}, false, nil, false, ""},
		{"a ConfigMap someone put there", configMapsResource.GroupResource(), []string{"kube-root-ca.crt", "settings"}, false, nil, true, "settings"},
		{"more than the list showed", configMapsResource.GroupResource(), []string{"kube-root-ca.crt"}, true, nil, true, ""},
		{"a federated object", federatedCMsResource.GroupResource(), []string{"web"}, false, nil, true, "web"},
		{"an object named like the CA, of another kind", federatedCMsResource.GroupResource(), []string{"kube-root-ca.crt"}, false, nil, true, "kube-root-ca.crt"},
		{"the record being deleted meanwhile", federatedCMsResource.GroupResource(), []string{"web"}, false,
			[]HostObject{{federatedCMsResource.GroupResource(), "web"}}, false, ""},
		{"another record beside the one being deleted", federatedCMsResource.GroupResource(), []string{"web", "api"}, false,
			[]HostObject{{federatedCMsResource.GroupResource(), "web"}}, true, "api"},
		{"a record of that name, of another kind", configMapsResource.GroupResource(), []string{"web"}, false,
			[]HostObject{{federatedCMsResource.GroupResource(), "web"}}, true, "web"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if holder, got := ownObject(tt.resource, tt.names, tt.more, tt.leaving); got != tt.want || holder != tt.holder {
				t.Fatalf("ownObject(%v, %q, %v, %v) = %q, %v; want %q, %v", tt.resource, tt.names, tt.more, tt.leaving, holder, got, tt.holder, tt.want)
			}
		})
	}
}

func TestListableResources(t *testing.T) {
	lists := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", Namespaced: true, Verbs: []string{"create", "list", "get"}},
			{Name: "pods/log", Namespaced: true, Verbs: []string{"get"}},
			{Name: "pods/status", Namespaced: true, Verbs: []string{"get", "list"}},
			{Name: "events", Namespaced: true, Verbs: []string{"list"}},
			{Name: "bindings", Namespaced: true, Verbs: []string{"create"}},
			{Name: "namespaces", Namespaced: false, Verbs: []string{"list"}},
		}},
		{GroupVersion: "types.kubefed.io/v1beta1", APIResources: []metav1.APIResource{
			{Name: "federatedconfigmaps", Namespaced: true, Verbs: []string{"list"}},
		}},
	}
	got, err := kube.ListableNamespacedResources(lists, "the host")
	want := []schema.GroupVersionResource{configMapsResource, federatedCMsResource}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("listableResources = %v, %v; want %v", got, err, want)
	}
	if _, err := kube.ListableNamespacedResources([]*metav1.APIResourceList{{GroupVersion: "a/b/c"}}, "the host"); err == nil {
		t.Error("a group version that does not parse is skipped: what it serves would go unchecked")
	}
}

func TestNamespacedCustomResource(t *testing.T) {
	crd := func(scope string, versions ...map[string]any) map[string]any {
		list := make([]any, len(versions))
		for i, v := range versions {
			list[i] = v
		}
		return map[string]any{"spec": map[string]any{
			"scope": scope, "group": "types.kubefed.io", "names": map[string]any{"plural": "federatedgizmos"}, "versions": list}}
	}
	served := func(name string, on bool) map[string]any { return map[string]any{"name": name, "served": on} }
	tests := []struct {
		name string
		crd  map[string]any
		want schema.GroupVersionResource
		ok   bool
	}{
		{"namespaced, one version", crd("Namespaced", served("v1beta1", true)),
			schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federatedgizmos"}, true},
		{"the first version served", crd("Namespaced", served("v1alpha1", false), served("v1beta1", true)),
			schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federatedgizmos"}, true},
		{"cluster-scoped", crd("Cluster", served("v1beta1", true)), schema.GroupVersionResource{}, false},
		{"no version served", crd("Namespaced", served("v1beta1", false)), schema.GroupVersionResource{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := namespacedCustomResource(tt.crd)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("namespacedCustomResource = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestFederationGroupsAreLookedIntoFirst(t *testing.T) {
	if federationGroupRank("types.kubefed.io") >= federationGroupRank("apps") || federationGroupRank("kubefed.io") != 0 ||
		federationGroupRank("notkubefed.io") == 0 {
		t.Fatal("KubeFed's groups must rank first, and only they")
	}
}

// namespacedHost is a registry of a pretend host whose discovery serves
// ConfigMaps and ServiceAccounts, and whose one CRD defines
// FederatedConfigMaps, holding the given namespaces and objects.
type namespacedHost struct {
	kube    *kubefake.Clientset
	dynamic *dynamicfake.FakeDynamicClient
	// discoveryErr is what the discovery answers, with its resources.
	discoveryErr error
}

type stubDiscovery struct {
	*discoveryfake.FakeDiscovery
	err error
}

func (d stubDiscovery) ServerPreferredNamespacedResources() ([]*metav1.APIResourceList, error) {
	return []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "configmaps", Namespaced: true, Verbs: []string{"list"}},
		{Name: "serviceaccounts", Namespaced: true, Verbs: []string{"list"}},
	}}}, d.err
}

func newNamespacedHost(namespaces []*corev1.Namespace, objects ...runtime.Object) *namespacedHost {
	kubeObjects := make([]runtime.Object, len(namespaces))
	for i, ns := range namespaces {
		kubeObjects[i] = ns
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "federatedconfigmaps.types.kubefed.io"},
		"spec": map[string]any{"scope": "Namespaced", "group": "types.kubefed.io",
			"names":    map[string]any{"plural": "federatedconfigmaps"},
			"versions": []any{map[string]any{"name": "v1beta1", "served": true}}},
	}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		configMapsResource: "ConfigMapList", accountsResource: "ServiceAccountList",
		federatedCMsResource: "FederatedConfigMapList", crdResource: "CustomResourceDefinitionList",
	}, append([]runtime.Object{crd}, objects...)...)
	return &namespacedHost{kube: kubefake.NewClientset(kubeObjects...), dynamic: dyn}
}

func (h *namespacedHost) registry() *Registry {
	disc := stubDiscovery{FakeDiscovery: h.kube.Discovery().(*discoveryfake.FakeDiscovery), err: h.discoveryErr}
	return New(h.kube, h.dynamic, disc, "kube-federation-system", "kubefed-test")
}

// shopNamespace is the namespace "shop", marked as the provider's when
// created, and being deleted when terminating.
func shopNamespace(created, terminating bool) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", UID: k8stypes.UID("uid-shop")}}
	if created {
		ns.Annotations = map[string]string{CreatedNamespaceAnnotation: "true"}
	}
	if terminating {
		now := metav1.NewTime(time.Now())
		ns.DeletionTimestamp = &now
	}
	return ns
}

// shopObject is an object of namespace "shop".
func shopObject(gvr schema.GroupVersionResource, kind, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": "shop"},
	}}
}

func TestRemoveCreatedNamespace(t *testing.T) {
	everyNamespace := []runtime.Object{
		shopObject(configMapsResource, "ConfigMap", "kube-root-ca.crt"),
		shopObject(accountsResource, "ServiceAccount", "default"),
	}
	tests := []struct {
		name         string
		namespace    *corev1.Namespace
		objects      []runtime.Object
		discoveryErr error
		removed      bool
		failed       bool
	}{
		{name: "created here and empty", namespace: shopNamespace(true, false), objects: everyNamespace, removed: true},
		{name: "not created here", namespace: shopNamespace(false, false), objects: everyNamespace},
		{name: "created here, holding another federated object", namespace: shopNamespace(true, false),
			objects: append(slices.Clone(everyNamespace), shopObject(federatedCMsResource, "FederatedConfigMap", "other"))},
		{name: "created here, holding a ConfigMap of someone else", namespace: shopNamespace(true, false),
			objects: append(slices.Clone(everyNamespace), shopObject(configMapsResource, "ConfigMap", "settings"))},
		{name: "created here, being deleted already", namespace: shopNamespace(true, true), objects: everyNamespace},
		{name: "a discovery that does not answer whole keeps it", namespace: shopNamespace(true, false), objects: everyNamespace,
			discoveryErr: errors.New("unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: 503"), failed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host := newNamespacedHost([]*corev1.Namespace{tt.namespace}, tt.objects...)
			host.discoveryErr = tt.discoveryErr
			removed, err := host.registry().RemoveCreatedNamespace(context.Background(), "shop")
			if removed != tt.removed || (err != nil) != tt.failed {
				t.Fatalf("RemoveCreatedNamespace = %v, %v; want removed %v, failed %v", removed, err, tt.removed, tt.failed)
			}
			_, err = host.kube.CoreV1().Namespaces().Get(context.Background(), "shop", metav1.GetOptions{})
			if gone := apierrors.IsNotFound(err); gone != tt.removed {
				t.Errorf("namespace gone: %v, want %v", gone, tt.removed)
			}
		})
	}
}

func TestRemoveCreatedNamespace_aMissingNamespaceIsNotAnError(t *testing.T) {
	removed, err := newNamespacedHost(nil).registry().RemoveCreatedNamespace(context.Background(), "shop")
	if removed || err != nil {
		t.Fatalf("RemoveCreatedNamespace = %v, %v; want false, nil", removed, err)
	}
}

func TestEnsureObjectNamespace(t *testing.T) {
	t.Run("a missing namespace is created, marked", func(t *testing.T) {
		host := newNamespacedHost(nil)
		if err := host.registry().EnsureObjectNamespace(context.Background(), "shop"); err != nil {
			t.Fatal(err)
		}
		ns, err := host.kube.CoreV1().Namespaces().Get(context.Background(), "shop", metav1.GetOptions{})
		if err != nil || ns.Annotations[CreatedNamespaceAnnotation] != "true" {
			t.Fatalf("namespace %v, %v: want it created with %s", ns, err, CreatedNamespaceAnnotation)
		}
	})
	t.Run("an existing namespace is left as it is", func(t *testing.T) {
		host := newNamespacedHost([]*corev1.Namespace{shopNamespace(false, false)})
		if err := host.registry().EnsureObjectNamespace(context.Background(), "shop"); err != nil {
			t.Fatal(err)
		}
		ns, _ := host.kube.CoreV1().Namespaces().Get(context.Background(), "shop", metav1.GetOptions{})
		if _, marked := ns.Annotations[CreatedNamespaceAnnotation]; marked {
			t.Fatal("a namespace that existed was marked as the provider's")
		}
		for _, a := range host.kube.Actions() {
			if a.GetVerb() != "get" {
				t.Errorf("an existing namespace was written: %s", a.GetVerb())
			}
		}
	})
	t.Run("a namespace being deleted is waited for, then created again", func(t *testing.T) {
		host := newNamespacedHost([]*corev1.Namespace{shopNamespace(true, true)})
		var gets atomic.Int32
		host.kube.PrependReactor("get", "namespaces", func(clienttesting.Action) (bool, runtime.Object, error) {
			if gets.Add(1) == 3 {
				// The namespace controller has finished.
				_ = host.kube.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("namespaces"), "", "shop")
			}
			return false, nil, nil
		})
		if err := host.registry().EnsureObjectNamespace(context.Background(), "shop"); err != nil {
			t.Fatal(err)
		}
		ns, err := host.kube.CoreV1().Namespaces().Get(context.Background(), "shop", metav1.GetOptions{})
		if err != nil || ns.DeletionTimestamp != nil || ns.Annotations[CreatedNamespaceAnnotation] != "true" {
			t.Fatalf("namespace %v, %v: want it created again, marked", ns, err)
		}
	})
	t.Run("a namespace that stays being deleted fails once the context ends", func(t *testing.T) {
		host := newNamespacedHost([]*corev1.Namespace{shopNamespace(true, true)})
		ctx, cancel := context.WithTimeout(context.Background(), 1200*time.Millisecond)
		defer cancel()
		err := host.registry().EnsureObjectNamespace(ctx, "shop")
		if err == nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("EnsureObjectNamespace = %v; want the deadline", err)
		}
	})
}

func TestCreatedNamespace_leavesOutTheRecordBeingDeleted(t *testing.T) {
	objects := []runtime.Object{
		shopObject(configMapsResource, "ConfigMap", "kube-root-ca.crt"),
		shopObject(federatedCMsResource, "FederatedConfigMap", "web"),
	}
	host := newNamespacedHost([]*corev1.Namespace{shopNamespace(true, false)}, objects...)
	web := HostObject{Resource: federatedCMsResource.GroupResource(), Name: "web"}
	if found, err := host.registry().CreatedNamespace(context.Background(), "shop"); found.Empty || !found.Created || err != nil {
		t.Fatalf("with its record: %+v, %v; want created and held", found, err)
	}
	found, err := host.registry().CreatedNamespace(context.Background(), "shop", web)
	if !found.Empty || !found.Created || err != nil || found.UID != "uid-shop" {
		t.Fatalf("with its record leaving: %+v, %v; want created, empty, uid-shop", found, err)
	}
	if removed, err := host.registry().DeleteCreatedNamespace(context.Background(), "shop", found.UID); !removed || err != nil {
		t.Errorf("DeleteCreatedNamespace = %v, %v; want removed", removed, err)
	}
}

func TestStillHeld(t *testing.T) {
	objects := []runtime.Object{
		shopObject(federatedCMsResource, "FederatedConfigMap", "web"),
		shopObject(federatedCMsResource, "FederatedConfigMap", "api"),
	}
	host := newNamespacedHost([]*corev1.Namespace{shopNamespace(true, false)}, objects...)
	reg := host.registry()
	web := HostObject{Resource: federatedCMsResource.GroupResource(), Name: "web"}
	found, err := reg.CreatedNamespace(context.Background(), "shop", web)
	if err != nil || found.Empty || found.heldBy == nil || found.heldBy.name != "api" {
		t.Fatalf("CreatedNamespace = %+v, %v; want held by api", found, err)
	}
	if held, err := reg.StillHeld(context.Background(), "shop", found); !held || err != nil {
		t.Errorf("with api there: StillHeld = %v, %v; want held", held, err)
	}
	if err := host.dynamic.Resource(federatedCMsResource).Namespace("shop").Delete(context.Background(), "api", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if held, err := reg.StillHeld(context.Background(), "shop", found); held || err != nil {
		t.Errorf("with api gone: StillHeld = %v, %v; want not held", held, err)
	}
	if held, err := reg.StillHeld(context.Background(), "shop", CreatedNamespaceContent{Created: true}); held || err != nil {
		t.Errorf("with no holder named: StillHeld = %v, %v; want not held, so the caller looks again", held, err)
	}
}
