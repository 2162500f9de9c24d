package kube

import (
	"net/http"
	"net/http/httptrace"
	"sync"
)

// firstConnection holds a cluster's requests back while the first one opens
// the connection, then lets them through to share it. Requests sent at once
// to a cluster not connected yet (a health probe's three, the first wave of
// an apply) would each dial and negotiate TLS, and all connections but one
// would be dropped once HTTP/2 is agreed on. The others go as soon as the
// first has its connection, not when it is answered, so the wait costs no
// round trip.
type firstConnection struct {
	next  http.RoundTripper
	once  sync.Once
	ready chan struct{}
}

func shareFirstConnection(next http.RoundTripper) http.RoundTripper {
	return &firstConnection{next: next, ready: make(chan struct{})}
}

func (f *firstConnection) RoundTrip(req *http.Request) (*http.Response, error) {
	first := false
	f.once.Do(func() { first = true })
	if !first {
		select {
		case <-f.ready:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		return f.next.RoundTrip(req)
	}
	var release sync.Once
	open := func() { release.Do(func() { close(f.ready) }) }
	// Whatever happens to the first request, the others are let through
	// when it ends: a failed dial is theirs to retry.
	defer open()
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { open() }}
	return f.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
}

// WrappedRoundTripper lets client-go reach the transport underneath, to
// close its idle connections.
func (f *firstConnection) WrappedRoundTripper() http.RoundTripper { return f.next }
