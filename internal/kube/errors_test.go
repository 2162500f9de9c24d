package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// serverVersion asks a server for /version through the real client stack.
func serverVersion(t *testing.T, cfg *rest.Config) error {
	t.Helper()
	clients, err := NewClientFactory().NewClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = clients.Kubernetes.Discovery().ServerVersion()
	return ExplainWith(cfg.Host, err, defaultHints)
}

func TestExplain_unauthorized(t *testing.T) {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401}`))
	}))
	defer server.Close()
	err := serverVersion(t, &rest.Config{Host: server.URL, BearerToken: "wrong", TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	assertFailure(t, err, FailureUnauthorized, "rejected the credentials (401 Unauthorized)", "check token")
}

func TestExplain_forbidden(t *testing.T) {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`))
	}))
	defer server.Close()
	err := serverVersion(t, &rest.Config{Host: server.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	assertFailure(t, err, FailureForbidden, "refused the request (403 Forbidden)", "RBAC")
}

func TestExplain_unknownAuthority(t *testing.T) {
	server := httptest.NewTLSServer(http.NotFoundHandler())
	defer server.Close()
	// No CA given: the test server's self-signed certificate is not trusted.
	err := serverVersion(t, &rest.Config{Host: server.URL})
	assertFailure(t, err, FailureTLS, "TLS verification of the API server at "+server.URL+" failed", "cluster_ca_certificate")
}

func TestExplain_connectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	err = serverVersion(t, &rest.Config{Host: "https://" + addr})
	assertFailure(t, err, FailureUnreachable, "cannot reach the API server at https://"+addr, "check host")
}

func TestClassify_closedRightAfterAccept(t *testing.T) {
	// What a load balancer with no backend looks like: the connection opens
	// and closes at once, and the transport reports an EOF.
	err := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/version", Err: io.EOF}
	if got := Classify(err); got != FailureUnreachable {
		t.Fatalf("got %q", got)
	}
}

func TestExplain_deadline(t *testing.T) {
	if Classify(context.DeadlineExceeded) != FailureUnreachable {
		t.Fatal("a deadline is an unreachable cluster")
	}
	if ExplainWith("x", nil, defaultHints) != nil {
		t.Fatal("nil stays nil")
	}
}

func TestExplainWith_callerHints(t *testing.T) {
	err := ExplainWith("https://berlin", context.DeadlineExceeded, Hints{Endpoint: "check api_endpoint of cluster berlin"})
	if !strings.Contains(err.Error(), "check api_endpoint of cluster berlin") {
		t.Fatalf("caller's hint missing: %v", err)
	}
	if again := Explain("other", err); again.Error() != err.Error() {
		t.Fatal("an explained error is returned as it is")
	}
}

func assertFailure(t *testing.T, err error, kind FailureKind, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("want an error")
	}
	if got := Classify(err); got != kind {
		t.Errorf("kind %q, want %q (%v)", got, kind, err)
	}
	for _, want := range wants {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// terminatingRefusal is the 403 an API server answers to a create in a
// namespace being deleted, with or without the NamespaceTerminating cause
// (servers before Kubernetes 1.17 send the message alone).
func terminatingRefusal(namespace string, withCause bool) error {
	err := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "web",
		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", namespace))
	if withCause {
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type: corev1.NamespaceTerminatingCause, Message: "namespace " + namespace + " is being terminated", Field: "metadata.namespace"})
	}
	return err
}

func TestTerminatingNamespace(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		namespace string
		ok        bool
	}{
		{"the cause and the message", terminatingRefusal("shop", true), "shop", true},
		{"the message alone", terminatingRefusal("cart", false), "cart", true},
		{"wrapped as propagation wraps it", fmt.Errorf("ConfigMap shop/web: %w", terminatingRefusal("shop", true)), "shop", true},
		{"a refusal for want of a role", apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "web",
			errors.New(`User "system:serviceaccount:kube-federation-system:berlin" cannot create resource "configmaps"`)), "", false},
		{"a missing namespace", apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "shop"), "", false},
		{"no API error", errors.New("unable to create new content in namespace shop because it is being terminated"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			namespace, ok := TerminatingNamespace(tt.err)
			if namespace != tt.namespace || ok != tt.ok {
				t.Fatalf("TerminatingNamespace = %q, %v; want %q, %v", namespace, ok, tt.namespace, tt.ok)
			}
		})
	}
}

func TestExplainWith_terminatingNamespaceSaysToWait(t *testing.T) {
	hints := Hints{Permissions: "grant the identity of cluster \"berlin\"'s credentials the member role"}
	err := ExplainWith("https://berlin", terminatingRefusal("shop", true), hints)
	assertFailure(t, err, FailureForbidden, "refused the request (403 Forbidden)", "because it is being terminated",
		`namespace "shop" is being deleted on this cluster`, "no permission is missing", "wait until it is gone")
	if strings.Contains(err.Error(), "member role") {
		t.Errorf("a terminating namespace is explained as a missing role: %v", err)
	}
	role := ExplainWith("https://berlin", apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "web", errors.New("no")), hints)
	if !strings.Contains(role.Error(), "member role") {
		t.Errorf("a refusal for want of a role lost its hint: %v", role)
	}
}
