package kube

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// LogFieldCluster is the log field that names the cluster a log line is
// about, in the request log and in the callers' own lines.
const LogFieldCluster = "cluster"

// WithCluster names the cluster that requests made with ctx go to. The
// name travels as a tflog field of the context, so the request log of the
// factory's clients and every line the caller logs with ctx both carry it.
func WithCluster(ctx context.Context, name string) context.Context {
	return tflog.SetField(ctx, LogFieldCluster, name)
}

// requestLog logs each request a cluster's clients send, at DEBUG, with
// the request's own context: method, server, path, status and duration.
// It sits below client-go's authentication wrappers and logs no header and
// no query, so no credential reaches the log.
// When the process traces requests (RequestTraceEnv), it also writes
// each one to the trace.
type requestLog struct {
	next  http.RoundTripper
	trace *requestTrace
}

func logRequests(next http.RoundTripper) http.RoundTripper {
	return requestLog{next: next, trace: processTrace()}
}

func (l requestLog) RoundTrip(req *http.Request) (*http.Response, error) {
	var overAhead atomic.Bool
	if l.trace != nil {
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { overAhead.Store(overDialledAhead(info.Conn)) },
		}))
	}
	start := time.Now()
	resp, err := l.next.RoundTrip(req)
	end := time.Now()
	if l.trace != nil {
		l.trace.record(req, resp, start, end, overAhead.Load())
	}
	fields := map[string]any{
		"method":   req.Method,
		"server":   req.URL.Host,
		"path":     req.URL.Path,
		"duration": end.Sub(start).String(),
	}
	if err != nil {
		fields["error"] = err.Error()
		tflog.Debug(req.Context(), "cluster request failed", fields)
		return resp, err
	}
	fields["status"] = resp.StatusCode
	tflog.Debug(req.Context(), "cluster request", fields)
	return resp, nil
}

// WrappedRoundTripper lets client-go reach the transport below, to close
// its idle connections.
func (l requestLog) WrappedRoundTripper() http.RoundTripper { return l.next }
