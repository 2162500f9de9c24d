package kube

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"time"
)

// RequestTraceEnv names a file to which every provider process appends one
// JSON line (a TracedRequest) per request it sends to a cluster, with when
// it started and when its answer arrived. Set it to see which requests of a
// run wait for each other: the ones that run in sequence are what a far
// cluster makes a user wait for.
const RequestTraceEnv = "KUBEFED_REQUEST_TRACE"

// TracedRequest is one line of the request trace. It carries no header and
// no query, so no credential reaches the file.
type TracedRequest struct {
	Process int       `json:"pid"`
	Server  string    `json:"server"`
	Method  string    `json:"method"`
	Path    string    `json:"path"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Status  int       `json:"status,omitempty"`
	// DryRun is set on a request the server only validated (dryRun=All).
	DryRun bool `json:"dry_run,omitempty"`
	// Ahead is set on a request sent ahead of the reads it answers
	// (SendingAhead): no read waited for it to start.
	Ahead bool `json:"ahead,omitempty"`
	// DialledAhead is set on a request sent over a connection dialled
	// ahead of the cluster's credentials (DialAhead).
	DialledAhead bool `json:"dialled_ahead,omitempty"`
}

type sendingAheadKey struct{}

// SendingAhead marks the requests made with ctx as sent ahead: started
// while the run waits for something else, so that reads the run makes
// later find their answer taken. The trace says so on each of them.
func SendingAhead(ctx context.Context) context.Context {
	return context.WithValue(ctx, sendingAheadKey{}, true)
}

func sentAhead(ctx context.Context) bool {
	ahead, _ := ctx.Value(sendingAheadKey{}).(bool)
	return ahead
}

// requestTrace appends requests to the trace file, one whole line per
// write, so that the processes of a run can share the file.
type requestTrace struct {
	mu   sync.Mutex
	file *os.File
	pid  int
}

// processTrace is the process's trace, opened the first time a cluster's
// clients are built; nil when RequestTraceEnv is unset or its file cannot
// be opened (the trace is a diagnosis aid: it never fails a run).
var processTrace = sync.OnceValue(func() *requestTrace {
	path := os.Getenv(RequestTraceEnv)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	return &requestTrace{file: f, pid: os.Getpid()}
})

func (t *requestTrace) record(req *http.Request, resp *http.Response, start, end time.Time, dialledAhead bool) {
	line := TracedRequest{Process: t.pid, Server: req.URL.Host, Method: req.Method, Path: req.URL.Path, Start: start, End: end,
		DryRun: req.URL.Query().Has("dryRun"), Ahead: sentAhead(req.Context()), DialledAhead: dialledAhead}
	if resp != nil {
		line.Status = resp.StatusCode
	}
	raw, err := json.Marshal(line)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.file.Write(append(raw, '\n'))
}
