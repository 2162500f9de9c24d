package kube

import (
	"fmt"
	"net/http"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// Clients are the clients of one cluster. They share one HTTP transport, so
// connections are kept alive and TLS is negotiated once, and that transport
// logs every request (WithCluster names the cluster in the log); requests
// sent before the first connection is open wait for it, so there is one.
// Discovery is
// cached for the life of the Clients: build them once per cluster per
// provider instance and share them.
type Clients struct {
	Config *rest.Config
	// HTTP is the client every other client here sends through; a plain
	// request on it (a health probe) warms the connection they reuse.
	HTTP       *http.Client
	Kubernetes kubernetes.Interface
	Dynamic    dynamic.Interface
	Discovery  discovery.CachedDiscoveryInterface
	Mapper     *restmapper.DeferredDiscoveryRESTMapper
}

// ClientFactory builds Clients from a REST config. The provider takes one as
// a constructor argument so that tests can substitute fakes.
type ClientFactory interface {
	NewClients(cfg *rest.Config) (*Clients, error)
}

// NewClientFactory returns the factory that talks to real API servers.
func NewClientFactory() ClientFactory {
	return realFactory{}
}

type realFactory struct{}

func (realFactory) NewClients(cfg *rest.Config) (*Clients, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandlerWithContext = contextWarnings{}
	// Below any bound the caller set (LimitInFlight), so that the request
	// log times a request from when it is sent.
	wrapBelow(cfg, logRequests, shareFirstConnection)
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the HTTP client for %s: %w", cfg.Host, err)
	}
	kubernetesClient, err := kubernetes.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	dynamicClient, err := dynamic.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	discoveryClient, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	cached := memory.NewMemCacheClient(discoveryClient)
	return &Clients{
		Config:     cfg,
		HTTP:       httpClient,
		Kubernetes: kubernetesClient,
		Dynamic:    dynamicClient,
		Discovery:  cached,
		Mapper:     restmapper.NewDeferredDiscoveryRESTMapper(cached),
	}, nil
}
