package kube

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// A server that holds each request until released, counting how many it
// holds at once.
type holdingServer struct {
	release          chan struct{}
	holding, maximum atomic.Int64
}

func (s *holdingServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	n := s.holding.Add(1)
	for {
		m := s.maximum.Load()
		if n <= m || s.maximum.CompareAndSwap(m, n) {
			break
		}
	}
	<-s.release
	s.holding.Add(-1)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}}`))
}

func TestLimitInFlightBoundsEveryClientOfTheConfigTogether(t *testing.T) {
	for _, tc := range []struct {
		limit, requests int
		wantAtMost      int64
	}{
		{limit: 3, requests: 12, wantAtMost: 3},
		{limit: 1, requests: 4, wantAtMost: 1},
		{limit: 0, requests: 6, wantAtMost: 6},
	} {
		srv := &holdingServer{release: make(chan struct{})}
		server := httptest.NewServer(srv)
		cfg := &rest.Config{Host: server.URL}
		LimitInFlight(cfg, tc.limit)
		// Two sets of clients from one config share the bound.
		first, err := NewClientFactory().NewClients(cfg)
		if err != nil {
			t.Fatal(err)
		}
		second, err := NewClientFactory().NewClients(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range tc.requests {
			clients := first
			if i%2 == 1 {
				clients = second
			}
			wg.Go(func() {
				if _, err := clients.Kubernetes.CoreV1().ConfigMaps("n").Get(context.Background(), "c", metav1.GetOptions{}); err != nil {
					t.Error(err)
				}
			})
		}
		// Let the requests pile up, then answer them all.
		deadline := time.Now().Add(5 * time.Second)
		for srv.holding.Load() < min(int64(tc.requests), tc.wantAtMost) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		close(srv.release)
		wg.Wait()
		server.Close()
		if got := srv.maximum.Load(); got != tc.wantAtMost {
			t.Errorf("limit %d, %d requests: the server held %d at once, want %d", tc.limit, tc.requests, got, tc.wantAtMost)
		}
	}
}

func TestLimitInFlightGivesUpWaitingWhenTheContextEnds(t *testing.T) {
	srv := &holdingServer{release: make(chan struct{})}
	server := httptest.NewServer(srv)
	defer server.Close()
	defer close(srv.release)
	cfg := &rest.Config{Host: server.URL}
	LimitInFlight(cfg, 1)
	clients, err := NewClientFactory().NewClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = clients.Kubernetes.CoreV1().ConfigMaps("n").Get(context.Background(), "c", metav1.GetOptions{})
	}()
	for srv.holding.Load() < 1 {
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = clients.Kubernetes.CoreV1().ConfigMaps("n").Get(ctx, "c", metav1.GetOptions{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a request waiting for its turn past its deadline: %v, want the deadline", err)
	}
}

// A request's timeout runs from when it is sent: requests queued behind
// one another, together far longer than the timeout, each get their
// answer, and one the server holds longer than the timeout fails.
func TestLimitInFlightTimesRequestsFromWhenTheyAreSent(t *testing.T) {
	const timeout, serving, queued = 300 * time.Millisecond, 100 * time.Millisecond, 6
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wait := serving
		if r.URL.Path == "/api/v1/namespaces/n/configmaps/held" {
			wait = 2 * timeout
		}
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}}`))
	}))
	defer server.Close()
	cfg := &rest.Config{Host: server.URL, Timeout: timeout}
	LimitInFlight(cfg, 1)
	clients, err := NewClientFactory().NewClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string) error {
		_, err := clients.Kubernetes.CoreV1().ConfigMaps("n").Get(context.Background(), name, metav1.GetOptions{})
		return err
	}
	errs := make(chan error, queued)
	for range queued {
		go func() { errs <- get("c") }()
	}
	for range queued {
		if err := <-errs; err != nil {
			t.Errorf("%d requests of %s each, one at a time under a timeout of %s: %v, want every answer", queued, serving, timeout, err)
		}
	}
	if err := get("held"); err == nil {
		t.Error("a request the server held past its timeout was answered")
	}
}
