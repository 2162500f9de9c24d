package kube

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// aheadServer is an HTTP/2 TLS server that counts the connections it
// accepts and closes, and answers 401 to a request without the token.
type aheadServer struct {
	*httptest.Server
	opened, closed atomic.Int64
}

const aheadToken = "ahead-token"

func newAheadServer(t *testing.T) *aheadServer {
	t.Helper()
	s := &aheadServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			t.Errorf("request over %s, want HTTP/2", r.Proto)
		}
		if r.Header.Get("Authorization") != "Bearer "+aheadToken {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	s.EnableHTTP2 = true
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		switch state {
		case http.StateNew:
			s.opened.Add(1)
		case http.StateClosed:
			s.closed.Add(1)
		}
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *aheadServer) caPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

// config is how a client reaches the server with the token and the CA.
func (s *aheadServer) config(ca []byte) *rest.Config {
	return &rest.Config{Host: s.URL, BearerToken: aheadToken, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
}

// waitFor polls cond for up to five seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited five seconds for %s", what)
		}
	}
}

// get sends a GET through client and reports whether the connection it
// went over was dialled ahead.
func get(t *testing.T, client *http.Client, url string) (status int, overAhead bool, err error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ahead atomic.Bool
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { ahead.Store(overDialledAhead(info.Conn)) }}))
	resp, err := client.Do(req)
	if err != nil {
		return 0, false, err
	}
	resp.Body.Close()
	return resp.StatusCode, ahead.Load(), nil
}

// A client built once the CA and the token are known takes over the
// connection dialled before, sends every request over it with the token,
// and opens no other.
func TestDialledAheadConnectionServesTheClient(t *testing.T) {
	srv := newAheadServer(t)
	d := DialAhead(t.Context(), srv.URL)
	if d == nil {
		t.Fatal("DialAhead refused an https endpoint")
	}
	waitFor(t, "the connection dialled ahead", func() bool { return srv.opened.Load() == 1 })
	cfg, ok, err := UseDialledAhead(srv.config(srv.caPEM()), d)
	if err != nil || !ok {
		t.Fatalf("UseDialledAhead: ok %v, %v", ok, err)
	}
	clients, err := NewClientFactory().NewClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer clients.HTTP.CloseIdleConnections()
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			status, ahead, err := get(t, clients.HTTP, srv.URL+"/version")
			if err != nil || status != http.StatusOK || !ahead {
				t.Errorf("status %d, over the connection dialled ahead %v, error %v", status, ahead, err)
			}
		})
	}
	wg.Wait()
	if n := srv.opened.Load(); n != 1 {
		t.Errorf("the server accepted %d connections, want the one dialled ahead", n)
	}
}

// A connection whose server the client's CA does not vouch for is closed
// unused: the client dials its own, which fails as it would have anyway.
func TestDialledAheadConnectionRefusedByTheCA(t *testing.T) {
	srv := newAheadServer(t)
	d := DialAhead(t.Context(), srv.URL)
	waitFor(t, "the connection dialled ahead", func() bool { return srv.opened.Load() == 1 })
	cfg, ok, err := UseDialledAhead(srv.config(otherCA(t)), d)
	if err != nil || !ok {
		t.Fatalf("UseDialledAhead: ok %v, %v", ok, err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = get(t, client, srv.URL+"/version")
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a server the CA does not vouch for was answered: %v", err)
	}
	waitFor(t, "the connection dialled ahead to close", func() bool { return srv.closed.Load() >= 1 })
	if n := srv.opened.Load(); n != 2 {
		t.Errorf("the server accepted %d connections, want 2: the one dialled ahead and the client's own", n)
	}
}

// A connection no client takes is closed when it expires, and one
// discarded while it is dialled is closed once it opens.
func TestDialledAheadConnectionNotTakenIsClosed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		discard bool
	}{{name: "expired"}, {name: "discarded", discard: true}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAheadServer(t)
			if !tc.discard {
				defer func(old time.Duration) { aheadExpiry = old }(aheadExpiry)
				aheadExpiry = 20 * time.Millisecond
			}
			d := DialAhead(t.Context(), srv.URL)
			if tc.discard {
				d.Discard()
			}
			waitFor(t, "the connection dialled ahead to close", func() bool { return srv.closed.Load() == 1 })
			cfg, ok, err := UseDialledAhead(srv.config(srv.caPEM()), d)
			if err != nil || !ok {
				t.Fatalf("UseDialledAhead: ok %v, %v", ok, err)
			}
			client, err := rest.HTTPClientFor(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if status, ahead, err := get(t, client, srv.URL+"/version"); err != nil || status != http.StatusOK || ahead {
				t.Errorf("status %d, over the connection dialled ahead %v, error %v", status, ahead, err)
			}
		})
	}
}

// Only an https endpoint reached directly is dialled ahead, and only a
// client that would make the same connection itself takes it.
func TestDialsLikeAhead(t *testing.T) {
	d := &AheadDial{endpoint: "https://10.0.0.1:6443", addr: "10.0.0.1:6443", serverName: "10.0.0.1"}
	same := func(change func(*rest.Config)) *rest.Config {
		cfg := &rest.Config{Host: "https://10.0.0.1:6443", BearerToken: "t", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}
		change(cfg)
		return cfg
	}
	for _, tc := range []struct {
		name string
		cfg  *rest.Config
		want bool
	}{
		{"same endpoint", same(func(*rest.Config) {}), true},
		{"same endpoint with a path", same(func(c *rest.Config) { c.Host += "/k8s" }), true},
		{"another port", same(func(c *rest.Config) { c.Host = "https://10.0.0.1:443" }), false},
		{"another host", same(func(c *rest.Config) { c.Host = "https://10.0.0.2:6443" }), false},
		{"plain http", same(func(c *rest.Config) { c.Host = "http://10.0.0.1:6443" }), false},
		{"checks off", same(func(c *rest.Config) { c.Insecure, c.CAData = true, nil }), false},
		{"a server name of its own", same(func(c *rest.Config) { c.ServerName = "api" }), false},
		{"a client certificate", same(func(c *rest.Config) { c.CertData, c.KeyData = []byte("c"), []byte("k") }), false},
		{"a proxy", same(func(c *rest.Config) { c.Proxy = http.ProxyFromEnvironment }), false},
		{"a transport", same(func(c *rest.Config) { c.Transport = http.DefaultTransport }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dialsLikeAhead(tc.cfg, d); got != tc.want {
				t.Errorf("dialsLikeAhead = %v, want %v", got, tc.want)
			}
		})
	}
	for endpoint, want := range map[string]string{
		"https://api.example:6443": "api.example:6443",
		"https://api.example":      "api.example:443",
		"http://api.example":       "",
		"api.example:6443":         "",
	} {
		if addr, _, _ := directTLSAddress(endpoint); addr != want {
			t.Errorf("directTLSAddress(%q) = %q, want %q", endpoint, addr, want)
		}
	}
}

// otherCA is a CA that signed nothing the test servers present.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// The request trace tells the requests sent over a connection dialled
// ahead from those sent over one the client dialled itself.
func TestRequestTrace_marksRequestsOverAConnectionDialledAhead(t *testing.T) {
	srv := newAheadServer(t)
	path := filepath.Join(t.TempDir(), "trace")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	traced := func(cfg *rest.Config) *http.Client {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return requestLog{next: rt, trace: &requestTrace{file: f, pid: 42}}
		})
		client, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return client
	}
	d := DialAhead(t.Context(), srv.URL)
	ahead, ok, err := UseDialledAhead(srv.config(srv.caPEM()), d)
	if err != nil || !ok {
		t.Fatalf("UseDialledAhead: ok %v, %v", ok, err)
	}
	for _, client := range []*http.Client{traced(ahead), traced(srv.config(srv.caPEM()))} {
		if status, _, err := get(t, client, srv.URL+"/version"); err != nil || status != http.StatusOK {
			t.Fatalf("status %d, %v", status, err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var marked []bool
	for line := range strings.Lines(string(raw)) {
		var r TracedRequest
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		marked = append(marked, r.DialledAhead)
	}
	if !slices.Equal(marked, []bool{true, false}) {
		t.Errorf("the trace marks the requests dialled ahead as %v, want [true false]:\n%s", marked, raw)
	}
}
