package provider

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
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

	// The host is bootstrapped (namespace and CRDs) once per provider
	// instance, before the first write.
	bootstrapOnce sync.Once
	bootstrapErr  error

	// snapshot is the registered clusters as this run's plans see them:
	// read once, then amended by the cluster resources planned in the run.
	snapshotOnce sync.Once
	snapshot     *registry.Snapshot
	snapshotErr  error
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
	if d.hostErr != nil {
		return nil, d.hostErr
	}
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

// registry returns the federation's registry in the host, without touching
// the host beyond the connection check.
func (d *providerData) registry(ctx context.Context) (*registry.Registry, error) {
	host, err := d.host(ctx)
	if err != nil {
		return nil, err
	}
	return registry.New(host.Kubernetes, host.Dynamic, host.Discovery, d.settings.FederationNamespace, d.settings.FieldManager), nil
}

// bootstrappedRegistry is registry after making sure, once per provider
// instance, that the host has the federation namespace and CRDs. Only
// writes call it, so a plan never changes the host.
func (d *providerData) bootstrappedRegistry(ctx context.Context) (*registry.Registry, error) {
	reg, err := d.registry(ctx)
	if err != nil {
		return nil, err
	}
	d.bootstrapOnce.Do(func() {
		d.bootstrapErr = reg.Bootstrap(ctx)
	})
	if d.bootstrapErr != nil {
		return nil, fmt.Errorf("preparing the host for the federation: %w", d.bootstrapErr)
	}
	return reg, nil
}

// clusterSnapshot returns the run's view of the registered clusters, read
// from the host on first use. When the host cannot be contacted yet, it
// starts empty and holds only the clusters planned in this run.
func (d *providerData) clusterSnapshot(ctx context.Context) (*registry.Snapshot, error) {
	d.snapshotOnce.Do(func() {
		if !d.hostKnown() {
			d.snapshot = registry.NewSnapshot(nil)
			return
		}
		reg, err := d.registry(ctx)
		if err != nil {
			d.snapshotErr = err
			return
		}
		d.snapshot, d.snapshotErr = reg.LoadSnapshot(ctx)
	})
	return d.snapshot, d.snapshotErr
}
