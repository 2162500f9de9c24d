package kube

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Requests sent at once to a server not connected yet share one
// connection, as client-go's HTTP/2 transport can, instead of each dialing.
func TestRequestsSentAtOnceShareTheFirstConnection(t *testing.T) {
	for _, tc := range []struct {
		name  string
		share bool
		want  func(n int64) bool
	}{
		{name: "shared", share: true, want: func(n int64) bool { return n == 1 }},
		// Without it the same requests open several: the test can tell.
		{name: "not shared", share: false, want: func(n int64) bool { return n > 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var conns atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.ProtoMajor != 2 {
					t.Errorf("request over %s, want HTTP/2", r.Proto)
				}
				w.WriteHeader(http.StatusOK)
			}))
			srv.EnableHTTP2 = true
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			srv.StartTLS()
			defer srv.Close()
			// Dials are counted, and take a while, as over a real network,
			// so that requests sent at once do overlap.
			cfg := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true},
				Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
					conns.Add(1)
					time.Sleep(20 * time.Millisecond)
					return (&net.Dialer{}).DialContext(ctx, network, addr)
				}}
			if tc.share {
				cfg.Wrap(shareFirstConnection)
			}
			client, err := rest.HTTPClientFor(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer client.CloseIdleConnections()
			var wg sync.WaitGroup
			for range 20 {
				wg.Go(func() {
					resp, err := client.Get(srv.URL + "/version")
					if err != nil {
						t.Error(err)
						return
					}
					resp.Body.Close()
				})
			}
			wg.Wait()
			if n := conns.Load(); !tc.want(n) {
				t.Errorf("%d connections", n)
			}
		})
	}
}
