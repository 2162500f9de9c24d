package member

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

func TestOtherCluster(t *testing.T) {
	tests := []struct {
		name               string
		recorded, answered string
		want               bool
	}{
		{name: "the same cluster", recorded: "uid-a", answered: "uid-a", want: false},
		{name: "another cluster answers", recorded: "uid-a", answered: "uid-b", want: true},
		{name: "nothing recorded (credentials that could not read it, an older registration)", recorded: "", answered: "uid-b", want: false},
		{name: "the member does not say", recorded: "uid-a", answered: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OtherCluster(tt.recorded, tt.answered); got != tt.want {
				t.Errorf("OtherCluster(%q, %q) = %v, want %v", tt.recorded, tt.answered, got, tt.want)
			}
		})
	}
}

func TestConfirmIdentity(t *testing.T) {
	tests := []struct {
		name               string
		recorded, answered string
		readErr            error
		want               string
		other              bool
	}{
		{name: "the cluster registered", recorded: "uid-a", answered: "uid-a"},
		{name: "nothing recorded: nothing to compare", answered: "uid-b"},
		{name: "nothing recorded and nothing read", readErr: errors.New("forbidden")},
		{name: "another cluster answers", recorded: "uid-a", answered: "uid-b", other: true,
			want: `cluster "berlin" answers as another cluster: its kube-system namespace has UID uid-b, where the registration recorded uid-a`},
		{name: "an identity that cannot be read is not confirmed", recorded: "uid-a", readErr: errors.New("forbidden"),
			want: `cannot confirm that cluster "berlin" is the one registered (its kube-system namespace had UID uid-a), so nothing was written to it: forbidden`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ConfirmIdentity("berlin", tt.recorded, tt.answered, tt.readErr)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("ConfirmIdentity = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("ConfirmIdentity = %v, want %q...", err, tt.want)
			}
			var other *OtherClusterError
			if errors.As(err, &other) != tt.other {
				t.Errorf("an OtherClusterError: %v, want %v", !tt.other, tt.other)
			}
		})
	}
}

// A member's identity is read once per run and connection, however many
// writes confirm it, and a registration that recorded none is not asked.
func TestPoolConfirm_readsTheIdentityOnce(t *testing.T) {
	var reads atomic.Int32
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/namespaces/kube-system" {
			reads.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kube-system","uid":"uid-a"}}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(server.Close)
	conn := Connection{APIEndpoint: server.URL, Token: "t",
		CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})}
	pool := NewPool(kube.NewClientFactory(), Settings{})
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if err := pool.Confirm(ctx, "berlin", conn, "uid-a"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var other *OtherClusterError
	if err := pool.Confirm(ctx, "berlin", conn, "uid-b"); !errors.As(err, &other) || other.Answered != "uid-a" {
		t.Errorf("Confirm against another recorded identity = %v, want an OtherClusterError answering uid-a", err)
	}
	if err := pool.Confirm(ctx, "paris", conn, ""); err != nil {
		t.Errorf("Confirm with nothing recorded = %v", err)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("the identity was read %d times, want once", n)
	}
}

func TestConfirmRegistrationUpdate(t *testing.T) {
	readErr := errors.New("forbidden")
	tests := []struct {
		name               string
		recorded, answered string
		readErr            error
		requireReady       bool
		wantErr            []string
	}{
		{name: "same cluster", recorded: "a", answered: "a", requireReady: true},
		{name: "nothing recorded", answered: "b", requireReady: true},
		{name: "another cluster", recorded: "a", answered: "b", requireReady: true,
			wantErr: []string{`cluster "c" reach another cluster`, "UID b", "recorded a", "was not changed", "require_ready = false"}},
		{name: "another cluster moved on purpose", recorded: "a", answered: "b"},
		{name: "identity unreadable", recorded: "a", readErr: readErr, requireReady: true,
			wantErr: []string{"cannot confirm", `cluster "c"`, "UID a", "forbidden", "was not changed", "get on namespace kube-system"}},
		{name: "identity unreadable without require_ready", recorded: "a", readErr: readErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ConfirmRegistrationUpdate("c", tt.recorded, tt.answered, tt.readErr, tt.requireReady)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got no error, want one saying %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}
