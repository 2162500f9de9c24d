package kube

import (
	"net/http"

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
// up when its context ends. n <= 0 leaves cfg unbounded.
func LimitInFlight(cfg *rest.Config, n int) {
	if n <= 0 {
		return
	}
	slots := make(chan struct{}, n)
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper { return inFlight{next: next, slots: slots} })
}

type inFlight struct {
	next  http.RoundTripper
	slots chan struct{}
}

func (f inFlight) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case f.slots <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	defer func() { <-f.slots }()
	return f.next.RoundTrip(req)
}

// WrappedRoundTripper lets client-go reach the transport underneath, to
// close idle connections.
func (f inFlight) WrappedRoundTripper() http.RoundTripper { return f.next }

// wrapBelow puts wrappers below the transport wrappers cfg has already,
// so that they see a request only once those have let it through.
func wrapBelow(cfg *rest.Config, wrappers ...transport.WrapperFunc) {
	cfg.WrapTransport = transport.Wrappers(append(wrappers, cfg.WrapTransport)...)
}
