package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// A cluster far away costs a round trip to open its TCP connection and one
// more to negotiate TLS, before the first request. When its clients can
// only be built once the host has answered (a member's CA and token are in
// the host), those two round trips follow the host's. DialAhead opens the
// connection while the host is asked, from the endpoint alone; the clients
// built later take it over once its certificates pass the checks the
// client's own TLS configuration makes. Nothing is sent over it before then
// but the TLS handshake, and a connection that fails the checks is closed
// unused.

// Timeouts of a connection dialled ahead, as client-go sets them for its
// own: the TCP dial and its keep-alive, and the TLS handshake.
const (
	dialTimeout      = 30 * time.Second
	dialKeepAlive    = 30 * time.Second
	handshakeTimeout = 10 * time.Second
	// maxIdleConnsPerHost is client-go's own setting.
	maxIdleConnsPerHost = 25
)

// aheadExpiry is how long a connection dialled ahead waits to be taken
// before it is closed.
var aheadExpiry = 30 * time.Second

// AheadDial is one connection dialled ahead, to one endpoint.
type AheadDial struct {
	endpoint   string
	addr       string
	serverName string
	expiry     time.Duration

	done chan struct{}
	conn *tls.Conn
	err  error

	mu    sync.Mutex
	taken bool
}

// DialAhead starts opening a TLS connection to endpoint, an https URL,
// without verifying it yet, and returns at once. It returns nil for an
// endpoint it cannot dial ahead: not https, or reached through a proxy.
func DialAhead(ctx context.Context, endpoint string) *AheadDial {
	addr, serverName, ok := directTLSAddress(endpoint)
	if !ok {
		return nil
	}
	d := &AheadDial{endpoint: endpoint, addr: addr, serverName: serverName, expiry: aheadExpiry, done: make(chan struct{})}
	go d.dial(context.WithoutCancel(ctx))
	return d
}

// directTLSAddress is the host:port and TLS server name of an https
// endpoint that no proxy of the environment stands in front of.
func directTLSAddress(endpoint string) (addr, serverName string, ok bool) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		return "", "", false
	}
	proxy, err := utilnet.NewProxierWithNoProxyCIDR(http.ProxyFromEnvironment)(&http.Request{URL: u})
	if err != nil || proxy != nil {
		return "", "", false
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port), u.Hostname(), true
}

// Endpoint is the endpoint the connection was dialled to.
func (d *AheadDial) Endpoint() string { return d.endpoint }

func (d *AheadDial) dial(ctx context.Context) {
	defer close(d.done)
	ctx, cancel := context.WithTimeout(ctx, dialTimeout+handshakeTimeout)
	defer cancel()
	dialer := &tls.Dialer{
		NetDialer: &net.Dialer{Timeout: dialTimeout, KeepAlive: dialKeepAlive},
		// The chain and the name are verified when a client takes the
		// connection, against its own CA, before it sends anything.
		Config: &tls.Config{ServerName: d.serverName, InsecureSkipVerify: true, //nolint:gosec // verified in take
			NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12},
	}
	conn, err := dialer.DialContext(ctx, "tcp", d.addr)
	if err != nil {
		d.err = err
		return
	}
	d.conn = conn.(*tls.Conn)
	time.AfterFunc(d.expiry, d.Discard)
}

// Discard closes the connection unless a client took it, now or, for one
// still being dialled, once it is open.
func (d *AheadDial) Discard() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.taken {
		return
	}
	d.taken = true
	go func() {
		<-d.done
		if d.conn != nil {
			_ = d.conn.Close()
		}
	}()
}

// take hands over the connection, once, when it is open and its server's
// certificates pass the checks of config; it closes a connection that does
// not pass them. It waits for the dial to end, or for ctx.
func (d *AheadDial) take(ctx context.Context, config *tls.Config) (*tls.Conn, bool) {
	select {
	case <-d.done:
	case <-ctx.Done():
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.taken || d.err != nil {
		return nil, false
	}
	d.taken = true
	if err := verifyServer(d.conn.ConnectionState(), config); err != nil {
		_ = d.conn.Close()
		return nil, false
	}
	return d.conn, true
}

// verifyServer makes the checks a TLS client with config makes of the
// server's certificates: the chain up to one of its roots (the system's
// when it has none), and its server name.
func verifyServer(state tls.ConnectionState, config *tls.Config) error {
	certs := state.PeerCertificates
	if len(certs) == 0 {
		return errors.New("the server presented no certificate")
	}
	opts := x509.VerifyOptions{Roots: config.RootCAs, DNSName: config.ServerName, Intermediates: x509.NewCertPool()}
	for _, cert := range certs[1:] {
		opts.Intermediates.AddCert(cert)
	}
	_, err := certs[0].Verify(opts)
	return err
}

// UseDialledAhead returns cfg with a transport that opens its first
// connection to d's address by taking d's connection, and dials every other
// one itself, with cfg's TLS settings. ok is false, and cfg is returned
// unchanged, when cfg is not one d can serve: another address, a transport,
// dialer or proxy of its own, TLS checks turned off, a server name of its
// own, or a client certificate (which the handshake would have had to send).
// The caller then discards d.
func UseDialledAhead(cfg *rest.Config, d *AheadDial) (out *rest.Config, ok bool, err error) {
	if !dialsLikeAhead(cfg, d) {
		return cfg, false, nil
	}
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil || tlsConfig == nil {
		return cfg, false, err
	}
	tlsConfig.ServerName = d.serverName
	tlsConfig.NextProtos = []string{"h2", "http/1.1"}
	dialer := &aheadDialer{ahead: d, tls: tlsConfig,
		net: &net.Dialer{Timeout: dialTimeout, KeepAlive: dialKeepAlive}}
	transport := utilnet.SetTransportDefaults(&http.Transport{
		DialTLSContext:      dialer.DialTLSContext,
		TLSClientConfig:     tlsConfig.Clone(),
		TLSHandshakeTimeout: handshakeTimeout,
		MaxIdleConnsPerHost: maxIdleConnsPerHost,
	})
	out = rest.CopyConfig(cfg)
	out.Transport = transport
	out.TLSClientConfig = rest.TLSClientConfig{}
	return out, true, nil
}

func dialsLikeAhead(cfg *rest.Config, d *AheadDial) bool {
	addr, serverName, direct := directTLSAddress(cfg.Host)
	t := cfg.TLSClientConfig
	return direct && addr == d.addr && serverName == d.serverName &&
		cfg.Transport == nil && cfg.Dial == nil && cfg.Proxy == nil && cfg.ExecProvider == nil && cfg.AuthProvider == nil &&
		!t.Insecure && t.ServerName == "" && len(t.NextProtos) == 0 &&
		t.CertFile == "" && t.KeyFile == "" && len(t.CertData) == 0 && len(t.KeyData) == 0
}

// aheadDialer opens a client's TLS connections: the first to the address
// dialled ahead is that connection, when it passes the checks.
type aheadDialer struct {
	ahead *AheadDial
	tls   *tls.Config
	net   *net.Dialer
}

func (a *aheadDialer) DialTLSContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr == a.ahead.addr {
		if conn, ok := a.ahead.take(ctx, a.tls); ok {
			dialledAhead.Store(conn, true)
			return conn, nil
		}
	}
	dialer := &tls.Dialer{NetDialer: a.net, Config: a.tls}
	return dialer.DialContext(ctx, network, addr)
}

// dialledAhead holds the connections taken from an AheadDial, so that the
// request trace can tell the requests sent over them.
var dialledAhead sync.Map

// overDialledAhead reports whether conn is a connection dialled ahead.
func overDialledAhead(conn net.Conn) bool {
	_, ok := dialledAhead.Load(conn)
	return ok
}
