package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// explainedNamespace reads a namespace through clients whose failures are
// explained, and returns the client's error as it is.
func explainedNamespace(t *testing.T, cfg *rest.Config) error {
	t.Helper()
	clients, err := NewClientFactory().NewClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clients.ExplainFailures()
	_, err = clients.Kubernetes.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
	return err
}

func statusServer(t *testing.T, code int, reason string) *httptest.Server {
	t.Helper()
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d}`, reason, code)
	}))
	t.Cleanup(server.Close)
	return server
}

func TestExplainFailures_eachRequestSaysWhatToFix(t *testing.T) {
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedAddr := refused.Addr().String()
	refused.Close()
	untrusted := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(untrusted.Close)
	insecure := rest.TLSClientConfig{Insecure: true}

	tests := []struct {
		name  string
		cfg   *rest.Config
		kind  FailureKind
		wants []string
	}{
		{"credentials rejected", &rest.Config{Host: statusServer(t, http.StatusUnauthorized, "Unauthorized").URL, BearerToken: "wrong", TLSClientConfig: insecure},
			FailureUnauthorized, []string{"rejected the credentials (401 Unauthorized)", "GET /api/v1/namespaces/default", "check token"}},
		{"nothing listens", &rest.Config{Host: "https://" + refusedAddr},
			FailureUnreachable, []string{"cannot reach the API server at https://" + refusedAddr, "check host"}},
		{"certificate not trusted", &rest.Config{Host: untrusted.URL},
			FailureTLS, []string{"TLS verification of the API server at " + untrusted.URL + " failed", "cluster_ca_certificate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertFailure(t, explainedNamespace(t, tt.cfg), tt.kind, tt.wants...)
		})
	}
}

func TestExplainFailures_leavesAnswersOfTheAPIAsTheyAre(t *testing.T) {
	// A 403 is about one request, not the connection: callers tell it
	// apart, so it stays the API's error.
	server := statusServer(t, http.StatusForbidden, "Forbidden")
	err := explainedNamespace(t, &rest.Config{Host: server.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("want the API's Forbidden, got %v", err)
	}
	var explained *ConnectionError
	if errors.As(err, &explained) {
		t.Fatalf("a 403 is not a connection failure: %v", err)
	}
}
