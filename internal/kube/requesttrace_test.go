package kube

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRequestTrace_writesOneLinePerRequestWithItsTimes(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(server.Close)
	path := filepath.Join(t.TempDir(), "trace")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	client := &http.Client{Transport: requestLog{next: http.DefaultTransport, trace: &requestTrace{file: f, pid: 42}}}
	for i, p := range []string{"/api/v1/namespaces?token=secret", "/missing"} {
		ctx := context.Background()
		if i == 1 {
			ctx = SendingAhead(ctx)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, server.URL+p, nil)
		req.Header.Set("Authorization", "Bearer secret")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "secret") {
		t.Errorf("the trace holds a credential:\n%s", raw)
	}
	var lines []TracedRequest
	scanner := bufio.NewScanner(strings.NewReader(string(raw)))
	for scanner.Scan() {
		var line TracedRequest
		if err := json.Unmarshal(scanner.Bytes(), &line); err != nil {
			t.Fatalf("line %q: %v", scanner.Text(), err)
		}
		lines = append(lines, line)
	}
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), raw)
	}
	want := []struct {
		path   string
		status int
		ahead  bool
	}{{"/api/v1/namespaces", 200, false}, {"/missing", 404, true}}
	for i, line := range lines {
		if line.Process != 42 || line.Method != http.MethodGet || line.Path != want[i].path || line.Status != want[i].status ||
			line.Server != strings.TrimPrefix(server.URL, "http://") || line.Ahead != want[i].ahead {
			t.Errorf("line %d = %+v, want pid 42, GET %s answered %d by %s, sent ahead %v", i, line, want[i].path,
				want[i].status, server.URL, want[i].ahead)
		}
		if line.End.Before(line.Start) || line.Start.IsZero() {
			t.Errorf("line %d: start %v, end %v", i, line.Start, line.End)
		}
	}
	if lines[1].Start.Before(lines[0].End) {
		t.Errorf("the second request started before the first ended: %v < %v", lines[1].Start, lines[0].End)
	}
}
