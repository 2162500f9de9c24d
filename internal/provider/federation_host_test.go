package provider

import (
	"context"
	"testing"

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
	cfg := &rest.Config{Host: host.URL, BearerToken: host.Token, TLSClientConfig: rest.TLSClientConfig{CAData: host.CAPEM}}
	k, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New(k, d, k.Discovery(), "kube-federation-system", DefaultFieldManager)
	if err := reg.Bootstrap(context.Background()); err != nil {
		t.Fatalf("installing KubeFed's CRDs in the lab's host: %v", err)
	}
}

// FederationHost is federationHost for the package's external tests.
var FederationHost = federationHost
