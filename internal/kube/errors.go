package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// FailureKind sorts connection failures by what the user has to fix.
type FailureKind string

// The kinds of connection failure.
const (
	FailureUnauthorized FailureKind = "Unauthorized"
	FailureForbidden    FailureKind = "Forbidden"
	FailureTLS          FailureKind = "TLSVerificationFailed"
	FailureUnreachable  FailureKind = "Unreachable"
	FailureOther        FailureKind = "Failed"
)

// ConnectionError is a failure to talk to a cluster, with the endpoint and
// a hint that says what to change.
type ConnectionError struct {
	Kind     FailureKind
	Endpoint string
	Err      error
	Hint     string
}

func (e *ConnectionError) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("%s: %v", e.summary(), e.Err)
	}
	return fmt.Sprintf("%s: %v; %s", e.summary(), e.Err, e.Hint)
}

func (e *ConnectionError) Unwrap() error { return e.Err }

func (e *ConnectionError) summary() string {
	switch e.Kind {
	case FailureUnauthorized:
		return fmt.Sprintf("the API server at %s rejected the credentials (401 Unauthorized)", e.Endpoint)
	case FailureForbidden:
		return fmt.Sprintf("the API server at %s refused the request (403 Forbidden)", e.Endpoint)
	case FailureTLS:
		return fmt.Sprintf("TLS verification of the API server at %s failed", e.Endpoint)
	case FailureUnreachable:
		return fmt.Sprintf("cannot reach the API server at %s", e.Endpoint)
	default:
		return fmt.Sprintf("request to the API server at %s failed", e.Endpoint)
	}
}

// Hints name the provider's attributes; callers for member clusters pass
// their own attribute names through ExplainWith.
var defaultHints = Hints{
	Credentials: "check token, client_certificate/client_key or the exec plugin (or the kubeconfig user of the context)",
	Permissions: "grant the identity the RBAC permissions it needs on this cluster",
	CA:          "set cluster_ca_certificate to the PEM of the CA that signed the server's certificate (or fix tls_server_name)",
	Endpoint:    "check host (or the kubeconfig context's server), that the API server runs, and proxy_url",
}

// Hints are the words that tell the user what to change for each kind of
// failure.
type Hints struct {
	Credentials, Permissions, CA, Endpoint string
}

// Explain classifies err from a request to endpoint, with hints in terms of
// the provider's own attributes. It returns nil for nil, and err itself when
// err is already a ConnectionError.
func Explain(endpoint string, err error) error {
	return ExplainWith(endpoint, err, defaultHints)
}

// ExplainWith is Explain with the caller's hints.
func ExplainWith(endpoint string, err error, hints Hints) error {
	if err == nil {
		return nil
	}
	var already *ConnectionError
	if errors.As(err, &already) {
		return err
	}
	kind := Classify(err)
	var hint string
	switch kind {
	case FailureUnauthorized:
		hint = hints.Credentials
	case FailureForbidden:
		hint = hints.Permissions
		if namespace, ok := TerminatingNamespace(err); ok {
			hint = terminatingHint(namespace)
		}
	case FailureTLS:
		hint = hints.CA
	case FailureUnreachable:
		hint = hints.Endpoint
	}
	return &ConnectionError{Kind: kind, Endpoint: endpoint, Err: err, Hint: hint}
}

// Classify tells which kind of failure err is.
func Classify(err error) FailureKind {
	var (
		explained        *ConnectionError
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verification     *tls.CertificateVerificationError
		record           tls.RecordHeaderError
		netErr           net.Error
		opErr            *net.OpError
		dnsErr           *net.DNSError
		urlErr           *url.Error
	)
	switch {
	case errors.As(err, &explained):
		return explained.Kind
	case apierrors.IsUnauthorized(err):
		return FailureUnauthorized
	case apierrors.IsForbidden(err):
		return FailureForbidden
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid),
		errors.As(err, &verification), errors.As(err, &record):
		return FailureTLS
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &opErr), errors.As(err, &dnsErr):
		return FailureUnreachable
	case errors.As(err, &netErr) && netErr.Timeout():
		return FailureUnreachable
	case errors.As(err, &urlErr):
		// What is left under a url.Error is the transport giving up: an EOF or
		// a reset from something that accepted the connection and closed it.
		return FailureUnreachable
	default:
		return FailureOther
	}
}

// terminatingMessage is how the API server's namespace lifecycle check
// ends the message of a create it refuses in a namespace being deleted;
// servers older than the NamespaceTerminating cause say only that.
const terminatingMessage = " because it is being terminated"

// TerminatingNamespace reports whether err is a 403 refusing to create in a
// namespace that is being deleted, and which namespace: no permission is
// missing then, the namespace is going away.
func TerminatingNamespace(err error) (string, bool) {
	var status apierrors.APIStatus
	if !apierrors.IsForbidden(err) || !errors.As(err, &status) {
		return "", false
	}
	message := status.Status().Message
	if !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) && !strings.Contains(message, terminatingMessage) {
		return "", false
	}
	before, _, _ := strings.Cut(message, terminatingMessage)
	_, namespace, found := strings.Cut(before, "in namespace ")
	if !found || strings.ContainsAny(namespace, " :") {
		namespace = ""
	}
	return namespace, true
}

// terminatingHint says to wait for a namespace being deleted, rather than
// to grant a permission that is not missing.
func terminatingHint(namespace string) string {
	which := "the namespace"
	if namespace != "" {
		which = fmt.Sprintf("namespace %q", namespace)
	}
	return which + " is being deleted on this cluster (a destroy that just ran, or someone else, deleted it), which " +
		"refuses new objects until it is gone; no permission is missing: wait until it is gone " +
		"(kubectl get namespace shows it no more), then run the apply again"
}
