package member

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// countingMember is a member over TLS that counts its health checks and
// holds each one until release is closed.
func countingMember(t *testing.T, healthChecks *atomic.Int32, release <-chan struct{}) Connection {
	t.Helper()
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			healthChecks.Add(1)
			<-release
			_, _ = w.Write([]byte("ok"))
		case "/version":
			_, _ = w.Write([]byte(`{"gitVersion":"v1.37.2"}`))
		default:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{}`))
		}
	}))
	t.Cleanup(server.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	return Connection{APIEndpoint: server.URL, CABundle: ca, Token: "t"}
}

func TestSharedProbe_oneProbePerMemberAndConnection(t *testing.T) {
	var healthChecks atomic.Int32
	release := make(chan struct{})
	conn := countingMember(t, &healthChecks, release)
	pool := NewPool(kube.NewClientFactory(), Settings{QPS: 50, Burst: 100})

	var wg sync.WaitGroup
	results := make([]ProbeResult, 5)
	for i := range results {
		wg.Go(func() { results[i] = pool.SharedProbe(context.Background(), "berlin", conn) })
	}
	close(release)
	wg.Wait()
	for i, got := range results {
		if !got.Ready || got.KubernetesVersion != "v1.37.2" {
			t.Errorf("caller %d: probe = %+v, want a ready member", i, got)
		}
	}
	if got := pool.SharedProbe(context.Background(), "berlin", conn); !got.Ready || got.Time != results[0].Time {
		t.Errorf("a probe asked for after the first ended = %+v, want the first's result", got)
	}
	if n := healthChecks.Load(); n != 1 {
		t.Errorf("%d health checks for six probes of one member through one connection, want 1", n)
	}

	other := conn
	other.Token = "rotated"
	pool.SharedProbe(context.Background(), "berlin", other)
	pool.SharedProbe(context.Background(), "paris", conn)
	if n := healthChecks.Load(); n != 3 {
		t.Errorf("%d health checks after a probe through another token and one of another cluster, want 3", n)
	}
}

func TestSharedProbe_aCallerWhoseContextEndsIsNotHeld(t *testing.T) {
	var healthChecks atomic.Int32
	release := make(chan struct{})
	conn := countingMember(t, &healthChecks, release)
	pool := NewPool(kube.NewClientFactory(), Settings{QPS: 50, Burst: 100})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := pool.SharedProbe(ctx, "berlin", conn)
	if got.Ready || got.Reason != ReasonNotReachable {
		t.Errorf("probe for an ended context = %+v, want not reachable", got)
	}
	close(release)
	if got := pool.SharedProbe(context.Background(), "berlin", conn); !got.Ready {
		t.Errorf("the probe the ended caller started = %+v, want it run to its end for the next caller", got)
	}
}

func TestStartProbe_startsTheProbeALaterCallerGets(t *testing.T) {
	var healthChecks atomic.Int32
	release := make(chan struct{})
	conn := countingMember(t, &healthChecks, release)
	pool := NewPool(kube.NewClientFactory(), Settings{QPS: 50, Burst: 100})

	pool.StartProbe(context.Background(), "berlin", conn) // returns while the member holds the health check
	pool.StartProbe(context.Background(), "berlin", conn)
	close(release)
	if got := pool.SharedProbe(context.Background(), "berlin", conn); !got.Ready {
		t.Errorf("probe = %+v, want a ready member", got)
	}
	if n := healthChecks.Load(); n != 1 {
		t.Errorf("%d health checks for two starts and a probe, want 1", n)
	}
}
