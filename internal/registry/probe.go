package registry

import (
	"context"
	"encoding/json"
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
	result := ProbeResult{Time: time.Now().UTC().Truncate(time.Second)}
	cfg, err := conn.RESTConfig()
	if err != nil {
		result.Reason, result.Message = ReasonNotReady, fmt.Sprintf("cluster %q: %v", name, err)
		return result
	}
	cfg.Timeout = ProbeTimeout
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		result.Reason, result.Message = ReasonNotReady, fmt.Sprintf("cluster %q: %v", name, err)
		return result
	}
	client.Timeout = ProbeTimeout
	defer client.CloseIdleConnections()

	// The version is asked for at the same time as the health, so that a
	// far-away member costs one round trip the less; it is used only when
	// the member turns out healthy.
	versionCh := make(chan string, 1)
	go func() { versionCh <- version(ctx, client, conn.APIEndpoint) }()
	status, body, err := get(ctx, client, conn.APIEndpoint, "/healthz")
	hints := memberHints(name)
	switch {
	case err != nil:
		result.Offline = true
		result.Reason = ReasonNotReachable
		result.Message = fmt.Sprintf("cluster %q is not reachable: %v", name, kube.ExplainWith(conn.APIEndpoint, err, hints))
	case status == http.StatusUnauthorized:
		result.Reason = ReasonAuthenticationFailed
		result.Message = fmt.Sprintf("cluster %q: authentication failed: %v", name, &kube.ConnectionError{
			Kind: kube.FailureUnauthorized, Endpoint: conn.APIEndpoint, Err: fmt.Errorf("GET /healthz: %d", status), Hint: hints.Credentials,
		})
	case status == http.StatusForbidden:
		result.Reason = ReasonAuthorizationFailed
		result.Message = fmt.Sprintf("cluster %q: authorization failed: %v", name, &kube.ConnectionError{
			Kind: kube.FailureForbidden, Endpoint: conn.APIEndpoint, Err: fmt.Errorf("GET /healthz: %d", status), Hint: hints.Permissions,
		})
	case status == http.StatusOK && strings.EqualFold(strings.TrimSpace(body), "ok"):
		result.Ready = true
		result.Reason = ReasonReady
		result.Message = "/healthz responded with ok"
		result.KubernetesVersion = <-versionCh
	default:
		result.Reason = ReasonNotReady
		result.Message = fmt.Sprintf("/healthz responded without ok (HTTP %d: %s)", status, excerpt(body))
	}
	return result
}

func memberHints(name string) kube.Hints {
	return kube.Hints{
		Credentials: fmt.Sprintf("check token, or client_certificate and client_key, of cluster %q", name),
		Permissions: fmt.Sprintf("grant the identity of cluster %q's credentials access to /healthz (and what the federation writes)", name),
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
