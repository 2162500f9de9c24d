package member

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeMember answers /healthz with ok to anyone and the access review with
// the given status, as an API server does for a token it accepts (201) or
// treats as anonymous (403).
func fakeMember(review int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			_, _ = w.Write([]byte("ok"))
		case "/version":
			_, _ = w.Write([]byte(`{"gitVersion":"v1.37.2"}`))
		case "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews":
			if r.Method != http.MethodPost {
				http.Error(w, "method", http.StatusMethodNotAllowed)
				return
			}
			w.WriteHeader(review)
			_, _ = w.Write([]byte(`{}`))
		default:
			http.NotFound(w, r)
		}
	}))
}

func TestProbeAuthenticates(t *testing.T) {
	tests := []struct {
		name       string
		review     int
		wantReady  bool
		wantReason string
		wantText   string
	}{
		{"credentials accepted", http.StatusCreated, true, ReasonReady, "credentials were accepted"},
		{"anonymous", http.StatusForbidden, false, ReasonAuthenticationFailed, "treats the requests as anonymous"},
		{"rejected token", http.StatusUnauthorized, false, ReasonAuthenticationFailed, "credentials were rejected"},
		{"no answer about identity", http.StatusNotFound, true, ReasonReady, "/healthz responded with ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := fakeMember(tt.review)
			defer server.Close()
			got := ProbeWithClient(context.Background(), "berlin", server.URL, server.Client())
			if got.Ready != tt.wantReady || got.Reason != tt.wantReason || !strings.Contains(got.Message, tt.wantText) {
				t.Errorf("probe = %+v, want ready=%v reason %s and %q", got, tt.wantReady, tt.wantReason, tt.wantText)
			}
			if tt.wantReady && got.KubernetesVersion != "v1.37.2" {
				t.Errorf("version %q", got.KubernetesVersion)
			}
			if !tt.wantReady && !strings.Contains(got.Message, `cluster "berlin"`) {
				t.Errorf("the message does not name the cluster: %s", got.Message)
			}
		})
	}
}
