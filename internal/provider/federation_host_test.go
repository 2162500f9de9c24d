package provider

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// federationHost makes sure the lab's host has KubeFed's CRDs, as any
// registration leaves it, for tests that read the clusters data source to
// check a connection before, or without, registering a cluster: on a host
// without them the data source fails.
func federationHost(t *testing.T) {
	t.Helper()
	host := acctest.Lab(t).Host()
	reg, _, _ := registryAt(t, &rest.Config{Host: host.URL, BearerToken: host.Token, TLSClientConfig: rest.TLSClientConfig{CAData: host.CAPEM}})
	if err := reg.Bootstrap(context.Background()); err != nil {
		t.Fatalf("installing KubeFed's CRDs in the lab's host: %v", err)
	}
}

// FederationHost is federationHost for the package's external tests.
var FederationHost = federationHost

// memberAsFederationHost gives a lab member KubeFed's CRDs, for tests that
// point a second provider block at the member and read its clusters data
// source, and removes them afterwards: other tests need members without
// them.
func memberAsFederationHost(t *testing.T, member string) {
	t.Helper()
	reg, k, d := registryAt(t, acctest.Lab(t).Cluster(member).RESTConfig())
	ctx := context.Background()
	t.Cleanup(func() {
		crds, err := registry.CoreCRDs()
		if err != nil {
			t.Error(err)
			return
		}
		for _, crd := range crds {
			err := d.Resource(crdsResource).Delete(ctx, crd.GetName(), metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("removing %s from %s: %v", crd.GetName(), member, err)
			}
		}
		if err := k.CoreV1().Namespaces().Delete(ctx, DefaultFederationNamespace, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("removing namespace %s from %s: %v", DefaultFederationNamespace, member, err)
		}
	})
	if err := reg.Bootstrap(ctx); err != nil {
		t.Fatalf("installing KubeFed's CRDs in %s: %v", member, err)
	}
}

// MemberAsFederationHost is memberAsFederationHost for the package's
// external tests.
var MemberAsFederationHost = memberAsFederationHost

var crdsResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// registryAt is the federation registry of the cluster cfg reaches, with
// the clients it is made of.
func registryAt(t *testing.T, cfg *rest.Config) (*registry.Registry, kubernetes.Interface, dynamic.Interface) {
	t.Helper()
	k, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return registry.New(k, d, k.Discovery(), DefaultFederationNamespace, DefaultFieldManager), k, d
}
