package provider

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/listcache"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// providerData is what one provider instance shares among its resources and
// data sources for the whole run: its settings, the host's clients, one set
// of clients per member, and what the run knows across resources.
type providerData struct {
	settings settings
	factory  kube.ClientFactory

	// hostConfig is nil when hostUnknownReason says why.
	hostConfig        *rest.Config
	hostUnknownReason string
	// configErr says why the configuration names no host at all.
	configErr error

	// hostMu guards the host's clients, built and checked on first use. A
	// failure is not kept: the next resource asks again, so one resource's
	// timeout or interrupt does not fail every other resource of the run.
	hostMu      sync.Mutex
	hostClients *kube.Clients
	// bootMu guards whether the host was bootstrapped (namespace and CRDs),
	// once per provider instance before the first write; a failure is not
	// kept either.
	bootMu       sync.Mutex
	bootstrapped bool
	// warmed is closed when what the connection to the host starts reading
	// in the background is read.
	warmed chan struct{}

	members *member.Pool
	// membersProbed starts the probe of every ready member once, at the
	// run's first refresh of a cluster.
	membersProbed sync.Once
	run           *runstate.Run
	// reads answers the run's reads of federated objects, in the host and
	// on the members, from one list per type, cluster and namespace.
	reads *listcache.Cache
}

func newProviderData(s settings, factory kube.ClientFactory) *providerData {
	d := &providerData{settings: s, factory: factory}
	d.members = member.NewPool(factory, member.Settings{
		QPS:              s.Connection.QPS,
		Burst:            s.Connection.Burst,
		RequestsInFlight: s.Connection.RequestsInFlight,
		RequestTimeout:   s.RequestTimeout,
		UserAgent:        s.Connection.UserAgent,
	})
	d.run = runstate.New(d.loadClusters)
	d.reads = listcache.New(listcache.DefaultPageSize)
	return d
}

// providerDataOf checks what Terraform hands a resource's or data source's
// Configure: nil before the provider is configured, else this provider's
// data.
func providerDataOf(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	d, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected the kubefed provider's data, got %T. This is a bug in the provider; please report it.", data))
		return nil
	}
	return d
}

// hostDeferral is what Configure answers when the host's connection is not
// known yet: a Terraform that takes deferred answers leaves every resource,
// data source and ephemeral resource of the provider to a later run, when the
// host exists, instead of a plan full of unknown values; any other plans
// those unknown values, with a warning that says why.
func hostDeferral(deferralAllowed bool) *provider.Deferred {
	if !deferralAllowed {
		return nil
	}
	return &provider.Deferred{Reason: provider.DeferredReasonProviderConfigUnknown}
}

// hostKnown reports whether the host can be contacted in this phase.
func (d *providerData) hostKnown() bool {
	return d.hostConfig != nil
}

// host returns the clients of the host cluster, built once per provider
// instance; their requests explain a host that does not answer or does not
// take the credentials.
func (d *providerData) host(ctx context.Context) (*kube.Clients, error) {
	if d.configErr != nil {
		return nil, d.configErr
	}
	if !d.hostKnown() {
		return nil, fmt.Errorf("the host cluster cannot be contacted yet: %s", d.hostUnknownReason)
	}
	d.hostMu.Lock()
	defer d.hostMu.Unlock()
	if d.hostClients != nil {
		return d.hostClients, nil
	}
	clients, err := d.factory.NewClients(d.hostConfig)
	if err != nil {
		return nil, err
	}
	// No request checks the host first, a round trip before every other:
	// the first requests, sent at once, say what to fix if it fails.
	clients.ExplainFailures()
	d.hostClients = clients
	d.warmed = make(chan struct{})
	overlap.Start(func() { d.warm(context.WithoutCancel(ctx)) })
	return clients, nil
}

// warm reads what nearly every resource of a run asks the host for first,
// as soon as the host is connected: the registered clusters, the enabled
// types, the API
// discovery a type's plan resolves its target kind with, and, for the first
// write, whether the host is bootstrapped. They go at once, in the
// background, while the resource that connected goes on with its own
// request, so a far host costs their round trip once per run and not in
// series with the first resource's reads. It runs without the caller's
// cancellation, which would otherwise end it with the caller's request;
// each request is still bounded by request_timeout.
func (d *providerData) warm(ctx context.Context) {
	defer close(d.warmed)
	// What fails is left for the resource that needs it to meet and report.
	overlap.All(
		func() { _, _ = d.snapshot(ctx) },
		func() { _, _ = d.hostTypes(ctx) },
		func() {
			if host, err := d.host(ctx); err == nil && host.Discovery != nil {
				_, _ = host.Discovery.ServerGroups()
			}
		},
		func() {
			d.bootMu.Lock()
			defer d.bootMu.Unlock()
			if reg, err := d.registry(ctx); err == nil && !d.bootstrapped {
				d.bootstrapped = reg.Bootstrapped(ctx)
			}
		},
	)
}

// registry returns the federation's registry in the host, without touching
// the host beyond the connection check.
func (d *providerData) registry(ctx context.Context) (*registry.Registry, error) {
	host, err := d.host(ctx)
	if err != nil {
		return nil, err
	}
	reg := registry.New(host.Kubernetes, host.Dynamic, host.Discovery, d.settings.FederationNamespace, d.settings.FieldManager)
	return reg.WithReads(d.reads).WithReadCredentials(d.settings.ReadCredentialsNamespace, d.settings.ReadOnly), nil
}

// registryFor is the host's registry for an operation whose diags hold no
// error yet; nil when there is an error, or the host cannot be reached,
// which it reports under summary.
func (d *providerData) registryFor(ctx context.Context, summary string, diags *diag.Diagnostics) *registry.Registry {
	if diags.HasError() {
		return nil
	}
	reg, err := d.registry(ctx)
	if err != nil {
		diags.AddError(summary, err.Error())
		return nil
	}
	return reg
}

// probeMembersOnce starts, the first time a cluster's refresh asks, the
// probe of every member the host records as ready, in the background: the
// refreshes then take their probes from one round, however few of them
// Terraform runs at a time. A provider process that refreshes no cluster,
// such as the one an apply writes in, probes no member.
func (d *providerData) probeMembersOnce(ctx context.Context) {
	d.membersProbed.Do(func() { overlap.Start(func() { d.probeReadyMembers(context.WithoutCancel(ctx)) }) })
}

// probeReadyMembers reads the run's snapshot and starts the probe of each
// member the host records as ready, all at once.
func (d *providerData) probeReadyMembers(ctx context.Context) {
	snapshot, err := d.snapshot(ctx)
	if err != nil {
		return
	}
	for _, c := range snapshot.Clusters() {
		if c.Health.Ready && c.Connection.APIEndpoint != "" {
			d.members.StartProbe(ctx, c.Name, c.Connection)
		}
	}
}

// prefetchObjectsOf starts, once a type's refresh has read it from the
// host, the lists that the refresh of the run's federated objects of that
// type reads next: the type's Federated<Kind> objects in every namespace of
// the host, and the objects of the type the federation manages in every
// namespace of each ready member. Terraform refreshes the objects only
// once the clusters and the types are refreshed, so their reads find these
// lists taken, or under way, instead of taking their own a round trip
// later. Each list is one page at most: one that fails (credentials that may
// not list every namespace) or is longer answers nothing, and the reads list
// their own namespaces as before. A type the run does not refresh (enabled
// by another configuration) is read as before.
//
// The lists are registered before it returns, so no read of the objects
// can start a namespace's list of its own first; only the lists themselves
// run in the background, marked as sent ahead in the request trace. It
// waits for the run's snapshot of the clusters, which the host's connection
// started reading already.
func (d *providerData) prefetchObjectsOf(ctx context.Context, t registry.FederatedType) {
	if !t.Target.Namespaced {
		return
	}
	ahead := kube.SendingAhead(context.WithoutCancel(ctx))
	if reg, err := d.registry(ctx); err == nil {
		reg.PrefetchFederatedObjects(ahead, t)
	}
	snapshot, err := d.snapshot(ctx)
	if err != nil {
		return
	}
	for _, c := range snapshot.Clusters() {
		if !c.Health.Ready || c.Connection.APIEndpoint == "" {
			continue
		}
		if clients, err := d.members.Clients(c.Name, c.Connection); err == nil && clients.Dynamic != nil {
			member := propagation.Member{Name: c.Name, Clients: clients, Reads: d.reads}
			propagation.PrefetchManaged(kube.WithCluster(ahead, c.Name), member, t.Target.Resource())
		}
	}
}

// bootstrappedRegistry is registry after making sure, once per provider
// instance, that the host has the federation namespace and CRDs. Only
// writes call it, so a plan changes nothing in the host but the health its
// refreshes record.
func (d *providerData) bootstrappedRegistry(ctx context.Context) (*registry.Registry, error) {
	reg, err := d.registry(ctx)
	if err != nil {
		return nil, err
	}
	d.bootMu.Lock()
	defer d.bootMu.Unlock()
	if !d.bootstrapped {
		if err := reg.Bootstrap(ctx); err != nil {
			return nil, fmt.Errorf("preparing the host for the federation: %w", err)
		}
		d.bootstrapped = true
	}
	return reg, nil
}

// snapshot returns the run's view of the registered clusters. When the host
// cannot be contacted yet, it holds only the clusters planned in this run.
func (d *providerData) snapshot(ctx context.Context) (*runstate.Snapshot, error) {
	return d.run.Snapshot(ctx)
}

// loadClusters reads the registered clusters for the run's snapshot.
func (d *providerData) loadClusters(ctx context.Context) (registry.Registrations, error) {
	if !d.hostKnown() {
		return registry.Registrations{}, nil
	}
	reg, err := d.registry(ctx)
	if err != nil {
		return registry.Registrations{}, err
	}
	return reg.Registrations(ctx)
}

// warnInterruptedJoins names, once per run, the joins the host records
// whose cluster was never registered: what each left on its member.
func (d *providerData) warnInterruptedJoins(ctx context.Context, diags *diag.Diagnostics) {
	snapshot, err := d.snapshot(ctx)
	if err != nil || !d.run.FirstTime("interrupted joins") {
		return
	}
	for _, rec := range snapshot.InterruptedJoins() {
		diags.AddWarning(fmt.Sprintf("The join of cluster %q is left on its member", rec.Cluster), rec.LeftBehind(d.settings.FederationNamespace))
	}
}

// hostTypes are the types the host enables, listed once per run (warm
// starts the list beside the registered clusters).
func (d *providerData) hostTypes(ctx context.Context) ([]registry.FederatedType, error) {
	return d.run.HostTypes(ctx, func(ctx context.Context) ([]registry.FederatedType, error) {
		reg, err := d.registry(ctx)
		if err != nil {
			return nil, err
		}
		return reg.Types(ctx)
	})
}

// federatedType returns the enabled type called name, read from the host
// on first use.
func (d *providerData) federatedType(ctx context.Context, reg *registry.Registry, name string) (*registry.FederatedType, error) {
	return d.run.Type(ctx, name, reg.GetType)
}
