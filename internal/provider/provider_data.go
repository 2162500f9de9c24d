package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
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
	// configErr says why the configuration names no host at all.
	configErr error

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

	// members holds one set of clients per member cluster, shared by every
	// resource of the instance, so each member gets one HTTP client with
	// kept-alive connections and one discovery cache for the run.
	membersMu sync.Mutex
	members   map[string]memberEntry

	healthOnce sync.Once
	health     map[string]registry.ClusterHealth

	// types and hostNamespaces spare the host one request per federated
	// object and step: a type found once stays found for the run, and a
	// namespace made sure of once stays there.
	types          sync.Map
	hostNamespaces sync.Map

	// order holds the selector placements planned so far in the run.
	order planOrder
}

type memberEntry struct {
	key     string
	clients *kube.Clients
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
	if d.configErr != nil {
		return nil, d.configErr
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
		if err := clients.Kubernetes.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error(); err != nil {
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

// probe asks a member for its health through the member's shared clients,
// so the connection the probe opens serves the reads and writes that follow
// in the same run.
func (d *providerData) probe(ctx context.Context, name string, conn registry.Connection) registry.ProbeResult {
	clients, err := d.memberClients(name, conn)
	if err != nil || clients.HTTP == nil {
		return registry.Probe(ctx, name, conn)
	}
	return registry.ProbeWithClient(ctx, name, conn.APIEndpoint, clients.HTTP)
}

// memberClients returns the clients of a member cluster, built on first use
// and rebuilt only when its connection changes.
func (d *providerData) memberClients(name string, conn registry.Connection) (*kube.Clients, error) {
	key := connectionKey(conn)
	d.membersMu.Lock()
	defer d.membersMu.Unlock()
	if e, ok := d.members[name]; ok && e.key == key {
		return e.clients, nil
	}
	cfg, err := conn.RESTConfig()
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	cfg.QPS = d.settings.Connection.QPS
	cfg.Burst = d.settings.Connection.Burst
	cfg.Timeout = d.settings.RequestTimeout
	cfg.UserAgent = d.settings.Connection.UserAgent
	clients, err := d.factory.NewClients(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	if d.members == nil {
		d.members = map[string]memberEntry{}
	}
	d.members[name] = memberEntry{key: key, clients: clients}
	return clients, nil
}

// recordedHealth is each registered cluster's health as the registry
// records it, read from the host once per provider instance, on first use.
// Plans freeze clusters on it rather than on a probe of their own: the
// record does not change between plan and apply (apply refreshes nothing),
// so the plan Terraform re-checks at apply comes out the same, while a
// probe there could differ. The cluster resources refresh the record, with
// a probe, before the objects that depend on them are planned.
func (d *providerData) recordedHealth(ctx context.Context, name string) (registry.ClusterHealth, bool) {
	d.healthOnce.Do(func() {
		d.health = map[string]registry.ClusterHealth{}
		reg, err := d.registry(ctx)
		if err != nil {
			return
		}
		snapshot, err := reg.LoadSnapshot(ctx)
		if err != nil {
			return
		}
		for _, c := range snapshot.Clusters() {
			d.health[c.Name] = c.Health
		}
	})
	h, ok := d.health[name]
	return h, ok
}

// connectionKey identifies a connection without keeping its secrets in
// memory twice.
func connectionKey(c registry.Connection) string {
	h := sha256.New()
	for _, part := range []string{c.APIEndpoint, string(c.CABundle), c.Token, string(c.ClientCertificate),
		string(c.ClientKey), strings.Join(c.DisabledTLSValidations, ","), c.ProxyURL} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// federatedType returns the enabled type called name, reading it from the
// host on first use; a type not found is asked again next time, since the
// run may be enabling it.
func (d *providerData) federatedType(ctx context.Context, reg *registry.Registry, name string) (*registry.FederatedType, error) {
	if t, ok := d.types.Load(name); ok {
		return t.(*registry.FederatedType), nil
	}
	t, err := reg.GetType(ctx, name)
	if err != nil {
		return nil, err
	}
	d.types.Store(name, t)
	return t, nil
}

// hostNamespaceEnsured reports whether namespace was made sure of in the
// host in this run, and records that it is from now on.
func (d *providerData) hostNamespaceEnsured(namespace string) bool {
	_, loaded := d.hostNamespaces.LoadOrStore(namespace, true)
	return loaded
}
