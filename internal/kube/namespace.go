package kube

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// everyNamespaceHolds are the objects Kubernetes' controllers create in
// every namespace, by resource.
var everyNamespaceHolds = map[schema.GroupResource]sets.Set[string]{
	{Resource: "serviceaccounts"}: sets.New("default"),
	{Resource: "configmaps"}:      sets.New("kube-root-ca.crt"),
}

// EveryNamespaceHolds reports whether the object of resource named name is
// one Kubernetes puts in every namespace.
func EveryNamespaceHolds(resource schema.GroupResource, name string) bool {
	return everyNamespaceHolds[resource].Has(name)
}

// ListableNamespacedResources are the namespaced resources to look into for
// what a namespace holds: those that can be listed, but events, which record
// what happened rather than hold anything, and which a namespace's deletion
// takes along. where names the cluster in an error ("the host").
func ListableNamespacedResources(lists []*metav1.APIResourceList, where string) ([]schema.GroupVersionResource, error) {
	var out []schema.GroupVersionResource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, fmt.Errorf("the API discovery of %s: %w", where, err)
		}
		for _, res := range list.APIResources {
			if !res.Namespaced || strings.Contains(res.Name, "/") || res.Name == "events" || !sets.New(res.Verbs...).Has("list") {
				continue
			}
			out = append(out, gv.WithResource(res.Name))
		}
	}
	return out, nil
}
