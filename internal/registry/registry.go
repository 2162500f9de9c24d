package registry

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/listcache"
)

// The host-side resources the registry reads and writes.
var (
	FederatedTypeConfigResource = schema.GroupVersionResource{
		Group: "core.kubefed.io", Version: "v1beta1", Resource: "federatedtypeconfigs",
	}
	crdResource = schema.GroupVersionResource{
		Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions",
	}
)

// Registry is the federation's state in one host cluster: the namespace that
// holds it, the clients that reach it and the field manager its writes use.
type Registry struct {
	kubernetes   kubernetes.Interface
	dynamic      dynamic.Interface
	discovery    discovery.DiscoveryInterface
	namespace    string
	fieldManager string
	// reads answers reads of Federated<Kind> objects from the run's lists;
	// nil reads each by name.
	reads *listcache.Cache
	// readNamespace holds the clusters' read credentials; readOnly makes
	// the registry read with them and write nothing (WithReadCredentials).
	readNamespace string
	readOnly      bool
}

// New returns the registry kept in namespace of the host reached by the
// given clients. Writes are server-side applies by fieldManager.
func New(k kubernetes.Interface, d dynamic.Interface, disc discovery.DiscoveryInterface, namespace, fieldManager string) *Registry {
	return &Registry{kubernetes: k, dynamic: d, discovery: disc, namespace: namespace, fieldManager: fieldManager}
}

// WithReads returns the registry answering reads of Federated<Kind> objects
// from the run's lists in reads, one per type and namespace, and marking in
// reads what its writes change.
func (r *Registry) WithReads(reads *listcache.Cache) *Registry {
	c := *r
	c.reads = reads
	return &c
}

// Namespace is the federation namespace of the host.
func (r *Registry) Namespace() string { return r.namespace }
