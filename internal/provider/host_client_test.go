package provider_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

const federationNamespace = "kube-federation-system"

var (
	kubeFedClusters      = schema.GroupVersionResource{Group: "core.kubefed.io", Version: "v1beta1", Resource: "kubefedclusters"}
	federatedTypeConfigs = schema.GroupVersionResource{Group: "core.kubefed.io", Version: "v1beta1", Resource: "federatedtypeconfigs"}
	crds                 = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// hostClients reach the lab's host directly, so tests can check what the
// provider wrote there field by field.
type hostClients struct {
	kube    kubernetes.Interface
	dynamic dynamic.Interface
}

func newHostClients(t *testing.T) hostClients {
	t.Helper()
	host := acctest.Lab(t).Host()
	cfg := &rest.Config{Host: host.URL, BearerToken: host.Token, TLSClientConfig: rest.TLSClientConfig{CAData: host.CAPEM}}
	k, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return hostClients{kube: k, dynamic: d}
}

func (h hostClients) get(gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	if namespace == "" {
		return h.dynamic.Resource(gvr).Get(context.Background(), name, metav1.GetOptions{})
	}
	return h.dynamic.Resource(gvr).Namespace(namespace).Get(context.Background(), name, metav1.GetOptions{})
}

func nested(obj *unstructured.Unstructured, fields ...string) any {
	value, _, _ := unstructured.NestedFieldNoCopy(obj.Object, fields...)
	return value
}
