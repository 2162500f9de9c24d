package provider

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// providerData is what one provider instance shares among its resources and
// data sources for the whole run: its settings and one set of clients per
// cluster, so connections and discovery are reused.
type providerData struct {
	settings settings
	factory  kube.ClientFactory

	// hostConfig is nil when hostUnknownReason says why.
	hostConfig        *rest.Config
	hostUnknownReason string

	hostOnce    sync.Once
	hostClients *kube.Clients
	hostErr     error
}

func newProviderData(s settings, factory kube.ClientFactory) *providerData {
	return &providerData{settings: s, factory: factory}
}

// hostKnown reports whether the host can be contacted in this phase.
func (d *providerData) hostKnown() bool {
	return d.hostConfig != nil
}

// host returns the clients of the host cluster, checking once per provider
// instance that the host answers and accepts the credentials.
func (d *providerData) host(ctx context.Context) (*kube.Clients, error) {
	if !d.hostKnown() {
		return nil, fmt.Errorf("the host cluster cannot be contacted yet: %s", d.hostUnknownReason)
	}
	d.hostOnce.Do(func() {
		clients, err := d.factory.NewClients(d.hostConfig)
		if err != nil {
			d.hostErr = err
			return
		}
		if _, err := clients.Kubernetes.Discovery().ServerVersion(); err != nil {
			d.hostErr = kube.Explain(d.hostConfig.Host, err)
			return
		}
		d.hostClients = clients
	})
	return d.hostClients, d.hostErr
}
