package member

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// Settings are what every member's clients share: the client-side rate
// limit (none with QPS zero), the bound on requests waiting for an answer
// at once (none when zero), the bound on one request and the user agent.
type Settings struct {
	QPS              float32
	Burst            int
	RequestsInFlight int
	RequestTimeout   time.Duration
	UserAgent        string
}

// Pool holds one set of clients per member cluster for a whole run, shared
// by every resource, so each member gets one HTTP client with kept-alive
// connections and one discovery cache. It is safe for concurrent use.
type Pool struct {
	factory  kube.ClientFactory
	settings Settings

	mu      sync.Mutex
	members map[string]pooled
	// ahead are the connections dialled ahead of the members' clients,
	// by member, until the clients take them.
	ahead map[string]*kube.AheadDial
	// probes are the run's shared probes, by member and connection.
	probes map[string]*sharedProbe
	// identities are the identities the members answered in this run, by
	// member and connection (Confirm).
	identities map[string]*sharedIdentity
}

// sharedProbe is one probe that every caller asking the same member the
// same way waits for.
type sharedProbe struct {
	done   chan struct{}
	result ProbeResult
}

type pooled struct {
	key     string
	clients *kube.Clients
}

// NewPool returns an empty pool that builds clients with factory.
func NewPool(factory kube.ClientFactory, s Settings) *Pool {
	return &Pool{factory: factory, settings: s, members: map[string]pooled{}, ahead: map[string]*kube.AheadDial{},
		probes: map[string]*sharedProbe{}, identities: map[string]*sharedIdentity{}}
}

// DialAhead starts opening the connection to the named member at endpoint,
// as it was last known, while the host is asked how to reach it: the
// member's clients, built once the host answers, take it over if the
// member still has that endpoint and its connection allows (DialsAhead).
// It does nothing for a member whose clients are built or dialled already.
func (p *Pool) DialAhead(ctx context.Context, name, endpoint string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, built := p.members[name]; built {
		return
	}
	if _, dialling := p.ahead[name]; dialling {
		return
	}
	if d := kube.DialAhead(kube.WithCluster(ctx, name), endpoint); d != nil {
		p.ahead[name] = d
	}
}

// Clients returns the clients of the named member, built on first use and
// rebuilt only when its connection changes.
func (p *Pool) Clients(name string, conn Connection) (*kube.Clients, error) {
	key := connectionKey(conn)
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.members[name]; ok && e.key == key {
		return e.clients, nil
	}
	cfg, err := conn.RESTConfig()
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	kube.SetRateLimit(cfg, p.settings.QPS, p.settings.Burst)
	cfg.Timeout = p.settings.RequestTimeout
	kube.LimitInFlight(cfg, p.settings.RequestsInFlight)
	cfg.UserAgent = p.settings.UserAgent
	if cfg, err = p.takeAhead(name, conn, cfg); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	clients, err := p.factory.NewClients(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	p.members[name] = pooled{key: key, clients: clients}
	return clients, nil
}

// takeAhead returns cfg set to take over the connection dialled ahead to
// the member, when there is one it can use; one it cannot is closed.
func (p *Pool) takeAhead(name string, conn Connection, cfg *rest.Config) (*rest.Config, error) {
	d, dialled := p.ahead[name]
	if !dialled {
		return cfg, nil
	}
	delete(p.ahead, name)
	if !conn.DialsAhead() || d.Endpoint() != conn.APIEndpoint {
		d.Discard()
		return cfg, nil
	}
	out, ok, err := kube.UseDialledAhead(cfg, d)
	if !ok {
		d.Discard()
	}
	return out, err
}

// Probe asks a member for its health through the member's shared clients,
// so the connection the probe opens serves the reads and writes that follow
// in the same run.
func (p *Pool) Probe(ctx context.Context, name string, conn Connection) ProbeResult {
	ctx = kube.WithCluster(ctx, name)
	clients, err := p.Clients(name, conn)
	if err != nil || clients.HTTP == nil {
		return Probe(ctx, name, conn)
	}
	return ProbeWithClient(ctx, name, conn.APIEndpoint, clients.HTTP)
}

// SharedProbe is Probe made once per member and connection for the
// pool's whole run: whoever asks for the same member through the same
// connection, while the probe runs or after, gets its result. The probes
// started when the host is connected and the refreshes of the clusters
// then share one probe per member, however many refreshes Terraform runs
// at a time. The probe runs to its end even when ctx ends first (each of
// its requests is bounded by ProbeTimeout); a caller whose ctx ends gets
// that as an unreachable member.
func (p *Pool) SharedProbe(ctx context.Context, name string, conn Connection) ProbeResult {
	probe := p.sharedProbe(ctx, name, conn)
	select {
	case <-probe.done:
		return probe.result
	case <-ctx.Done():
		return ProbeResult{Time: probeTime(), Offline: true, Reason: ReasonNotReachable,
			Message: fmt.Sprintf("cluster %q was not probed: %v", name, ctx.Err())}
	}
}

// StartProbe starts SharedProbe's probe of the member through conn, unless
// it has started already, and returns without waiting for it.
func (p *Pool) StartProbe(ctx context.Context, name string, conn Connection) {
	p.sharedProbe(ctx, name, conn)
}

// sharedProbe is the run's probe of the member through conn, started on
// the first call.
func (p *Pool) sharedProbe(ctx context.Context, name string, conn Connection) *sharedProbe {
	key := name + "\x00" + connectionKey(conn)
	p.mu.Lock()
	defer p.mu.Unlock()
	probe, started := p.probes[key]
	if !started {
		probe = &sharedProbe{done: make(chan struct{})}
		p.probes[key] = probe
		go func() {
			defer close(probe.done)
			probe.result = p.Probe(context.WithoutCancel(ctx), name, conn)
		}()
	}
	return probe
}

// connectionKey identifies a connection without keeping its secrets in
// memory twice.
func connectionKey(c Connection) string {
	h := sha256.New()
	for _, part := range []string{c.APIEndpoint, string(c.CABundle), c.Token, string(c.ClientCertificate),
		string(c.ClientKey), strings.Join(c.DisabledTLSValidations, ","), c.ProxyURL} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
