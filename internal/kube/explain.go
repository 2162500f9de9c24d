package kube

import (
	"fmt"
	"io"
	"net/http"
)

// ExplainFailures makes every request of c that fails because the cluster
// cannot be reached, its certificate is not trusted or it rejects the
// credentials fail with what to change, in Explain's words. The clients of
// the host need no check before their first request then: the first
// request is the check, and whichever request meets a failure says so.
// Call it before c sends anything.
func (c *Clients) ExplainFailures() {
	if c.HTTP == nil || c.Config == nil {
		return
	}
	c.HTTP.Transport = explainFailures{next: c.HTTP.Transport, endpoint: c.Config.Host}
}

// explainFailures sits above client-go's authentication, which sees a 401
// first: an exec plugin's credentials are still refreshed after one.
type explainFailures struct {
	next     http.RoundTripper
	endpoint string
}

func (e explainFailures) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := e.next.RoundTrip(req)
	if err != nil {
		switch Classify(err) {
		case FailureUnreachable, FailureTLS:
			return nil, Explain(e.endpoint, err)
		}
		return nil, err
	}
	if resp.StatusCode != http.StatusUnauthorized {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return nil, &ConnectionError{
		Kind: FailureUnauthorized, Endpoint: e.endpoint,
		Err: fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, resp.Status), Hint: defaultHints.Credentials,
	}
}

// WrappedRoundTripper lets client-go reach the transport underneath, to
// close its idle connections.
func (e explainFailures) WrappedRoundTripper() http.RoundTripper { return e.next }
