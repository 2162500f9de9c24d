package kube

import (
	"context"
	"io"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
)

// DefaultRequestsInFlight is how many requests the provider has waiting
// for an answer from one cluster at once, unless told otherwise. A default
// API server's priority and fairness gives the flows of ordinary users
// (the global-default level) about 49 of its 600 seats; 32 keeps one run
// within them, so it never queues behind itself there, while a large set
// still reaches a far cluster in few round trips.
const DefaultRequestsInFlight = 32

// LimitInFlight bounds how many requests cfg's clients have waiting for an
// answer at once; all the clients built from cfg share the bound, which
// holds each request from when it is sent until its answer's headers
// arrive (a body is read outside it). A request waiting for its turn gives
// up when its context ends. cfg's Timeout, set before, bounds each request
// from when it is sent, as without the bound, not while it waits for its
// turn: a large run's last requests would otherwise time out before they
// leave. n <= 0 leaves cfg unbounded.
func LimitInFlight(cfg *rest.Config, n int) {
	if n <= 0 {
		return
	}
	slots := make(chan struct{}, n)
	timeout := cfg.Timeout
	cfg.Timeout = 0
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return inFlight{next: next, slots: slots, timeout: timeout}
	})
}

type inFlight struct {
	next    http.RoundTripper
	slots   chan struct{}
	timeout time.Duration
}

func (f inFlight) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case f.slots <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	defer func() { <-f.slots }()
	if f.timeout <= 0 {
		return f.next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), f.timeout)
	resp, err := f.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelOnClose ends a request's timeout once its body is closed: the body
// is read under it, as a client's Timeout bounds the reading too.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	defer c.cancel()
	return c.ReadCloser.Close()
}

// WrappedRoundTripper lets client-go reach the transport underneath, to
// close idle connections.
func (f inFlight) WrappedRoundTripper() http.RoundTripper { return f.next }

// wrapBelow puts wrappers below the transport wrappers cfg has already,
// so that they see a request only once those have let it through.
func wrapBelow(cfg *rest.Config, wrappers ...transport.WrapperFunc) {
	cfg.WrapTransport = transport.Wrappers(append(wrappers, cfg.WrapTransport)...)
}
