package member

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"k8s.io/client-go/rest"
)

// ProbeTimeout bounds one health probe, as KubeFed's cluster controller does.
const ProbeTimeout = 3 * time.Second

// Condition reasons, KubeFed's where KubeFed has one.
const (
	ReasonReady                = "ClusterReady"
	ReasonNotReady             = "ClusterNotReady"
	ReasonNotReachable         = "ClusterNotReachable"
	ReasonAuthenticationFailed = "ClusterAuthenticationFailed"
	ReasonAuthorizationFailed  = "ClusterAuthorizationFailed"
)

// ProbeResult is what one health probe of a member cluster found.
type ProbeResult struct {
	Ready             bool
	Offline           bool
	Reason            string
	Message           string
	KubernetesVersion string
	Time              time.Time
}

// Probe asks the member's /healthz, with the member's own TLS settings and
// credentials, whether it is healthy, and reads its version when it is. It
// uses a plain HTTP client with a short timeout rather than client-go's REST
// client, which retries a closed connection for seconds. Messages name the
// cluster and the attribute to fix; they never contain credentials.
func Probe(ctx context.Context, name string, conn Connection) ProbeResult {
	cfg, err := conn.RESTConfig()
	if err != nil {
		return ProbeResult{Time: probeTime(), Reason: ReasonNotReady, Message: fmt.Sprintf("cluster %q: %v", name, err)}
	}
	cfg.Timeout = ProbeTimeout
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return ProbeResult{Time: probeTime(), Reason: ReasonNotReady, Message: fmt.Sprintf("cluster %q: %v", name, err)}
	}
	defer client.CloseIdleConnections()
	return ProbeWithClient(ctx, name, conn.APIEndpoint, client)
}

// ProbeWithClient is Probe through a client the caller already holds for the
// member, built from the member's connection: the connection it opens is
// then kept for the requests that follow the probe. Each request still gives
// up after ProbeTimeout.
func ProbeWithClient(ctx context.Context, name, endpoint string, client *http.Client) ProbeResult {
	result := ProbeResult{Time: probeTime()}
	// The version and the identity are asked for at the same time as the
	// health, so that a far-away member costs no more round trips than one;
	// they count only when the member turns out healthy.
	versionCh := make(chan string, 1)
	go func() { versionCh <- version(ctx, client, endpoint) }()
	identityCh := make(chan error, 1)
	go func() { identityCh <- authenticated(ctx, client, endpoint) }()
	status, body, err := get(ctx, client, endpoint, "/healthz")
	hints := Hints(name)
	switch {
	case err != nil:
		result.Offline = true
		result.Reason = ReasonNotReachable
		result.Message = fmt.Sprintf("cluster %q is not reachable: %v", name, kube.ExplainWith(endpoint, err, hints))
	case status == http.StatusUnauthorized:
		result.Reason = ReasonAuthenticationFailed
		result.Message = fmt.Sprintf("cluster %q: authentication failed: %v", name, &kube.ConnectionError{
			Kind: kube.FailureUnauthorized, Endpoint: endpoint, Err: fmt.Errorf("GET /healthz: %d", status), Hint: hints.Credentials,
		})
	case status == http.StatusForbidden:
		result.Reason = ReasonAuthorizationFailed
		result.Message = fmt.Sprintf("cluster %q: authorization failed: %v", name, &kube.ConnectionError{
			Kind: kube.FailureForbidden, Endpoint: endpoint, Err: fmt.Errorf("GET /healthz: %d", status), Hint: hints.Permissions,
		})
	case status == http.StatusOK && strings.EqualFold(strings.TrimSpace(body), "ok"):
		if err := <-identityCh; err != nil {
			result.Reason = ReasonAuthenticationFailed
			result.Message = fmt.Sprintf("cluster %q: authentication failed: %v", name, &kube.ConnectionError{
				Kind: kube.FailureUnauthorized, Endpoint: endpoint, Err: err, Hint: hints.Credentials,
			})
			break
		}
		result.Ready = true
		result.Reason = ReasonReady
		result.Message = "/healthz responded with ok and the credentials were accepted"
		result.KubernetesVersion = <-versionCh
	default:
		result.Reason = ReasonNotReady
		result.Message = fmt.Sprintf("/healthz responded without ok (HTTP %d: %s)", status, excerpt(body))
	}
	return result
}

// selfSubjectAccessReview asks nothing that matters: every authenticated
// user may create one, an anonymous request may not, so its answer tells
// whether the member took the credentials. /healthz alone is open to
// anonymous requests on most clusters.
const selfSubjectAccessReview = `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",` +
	`"spec":{"resourceAttributes":{"verb":"get","resource":"namespaces"}}}`

// authenticated reports nil when the member accepts the credentials as a
// user's, else why not.
func authenticated(ctx context.Context, client *http.Client, endpoint string) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		strings.TrimSuffix(endpoint, "/")+"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", strings.NewReader(selfSubjectAccessReview))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch resp.StatusCode {
	case http.StatusCreated, http.StatusOK:
		return nil
	case http.StatusUnauthorized:
		return errors.New("the credentials were rejected (401 on a SelfSubjectAccessReview)")
	case http.StatusForbidden:
		return errors.New("the cluster treats the requests as anonymous: a SelfSubjectAccessReview, which every authenticated user may make, was refused (403)")
	}
	// Anything else says nothing about the credentials.
	return nil
}

func probeTime() time.Time { return time.Now().UTC().Truncate(time.Second) }

// Hints say, in terms of a cluster registration's attributes, what to fix
// when a request to the member fails.
func Hints(name string) kube.Hints {
	return kube.Hints{
		Credentials: fmt.Sprintf("check token, or client_certificate and client_key, of cluster %q", name),
		Permissions: fmt.Sprintf("grant the identity of cluster %q's credentials the member role of the permissions guide (with join, list the type in join.federated_types)", name),
		CA:          fmt.Sprintf("set ca_bundle of cluster %q to the PEM of the CA that signed its serving certificate, or list the check in disabled_tls_validations", name),
		Endpoint:    fmt.Sprintf("check api_endpoint and proxy_url of cluster %q, and that its API server runs", name),
	}
}

func get(ctx context.Context, client *http.Client, endpoint, path string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(endpoint, "/")+path, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return 0, "", err
	}
	return resp.StatusCode, string(body), nil
}

// version is the member's gitVersion, or "" when /version does not say.
func version(ctx context.Context, client *http.Client, endpoint string) string {
	status, body, err := get(ctx, client, endpoint, "/version")
	if err != nil || status != http.StatusOK {
		return ""
	}
	var info struct {
		GitVersion string `json:"gitVersion"`
	}
	if json.Unmarshal([]byte(body), &info) != nil {
		return ""
	}
	return info.GitVersion
}

func excerpt(body string) string {
	body = strings.TrimSpace(body)
	if len(body) > 200 {
		return body[:200] + "..."
	}
	return body
}
