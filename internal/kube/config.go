// Package kube turns connection settings (kubeconfig files and a context,
// or inline endpoint and credentials, or an exec credential plugin, or a
// pod's service account) into client-go clients, logs every request they
// make, and explains connection failures in words a user can act on. It
// knows nothing of federation.
package kube

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Config is how to reach one cluster. Inline values override what the
// kubeconfig context says, as with kubectl's flags.
type Config struct {
	// ConfigPath is one kubeconfig file; ConfigPaths are several, merged as
	// kubectl merges the files of KUBECONFIG (the first file to set a name
	// wins). At most one of the two is set.
	ConfigPath  string
	ConfigPaths []string
	// ConfigContext picks a context of the kubeconfig, its current context
	// when empty; ConfigContextAuthInfo and ConfigContextCluster replace the
	// user and the cluster of that context, as kubectl's --user and --cluster.
	ConfigContext         string
	ConfigContextAuthInfo string
	ConfigContextCluster  string

	Host                 string
	Token                string
	ClusterCACertificate string
	ClientCertificate    string
	ClientKey            string
	Insecure             bool
	TLSServerName        string
	ProxyURL             string
	Exec                 *ExecConfig

	// QPS and Burst set a client-side rate limit; with QPS zero there is
	// none (see SetRateLimit).
	QPS     float32
	Burst   int
	Timeout time.Duration
	// RequestsInFlight bounds the requests waiting for an answer at once
	// (LimitInFlight); zero: no bound.
	RequestsInFlight int
	// UserAgent names the provider and its version in the API server's logs.
	UserAgent string

	// AllowInCluster lets RESTConfig use the pod's service account when
	// nothing else is set, as the provider does for its host. Other
	// connections (a member to join) leave it off: for them an empty
	// configuration is a mistake, never the pod's own cluster.
	AllowInCluster bool
}

// ExecConfig runs a credential plugin, as a kubeconfig's exec section does.
type ExecConfig struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// ErrNoConfiguration means nothing says where the cluster is. The provider
// deliberately does not fall back to ~/.kube/config: a plan must never
// silently target whichever cluster happens to be current. Only a pod's own
// service account is used unasked, when nothing at all is set.
var ErrNoConfiguration = errors.New("no connection settings: set config_path or config_paths (and optionally config_context), " +
	"or host with token, client_certificate/client_key or an exec block " +
	"(or the KUBE_CONFIG_PATH, KUBE_CONFIG_PATHS or KUBE_HOST environment variables), " +
	"or run the provider in a pod with a mounted service account token and nothing set")

// IsEmpty reports whether c names neither a kubeconfig nor a host.
func (c Config) IsEmpty() bool {
	return c.ConfigPath == "" && len(c.ConfigPaths) == 0 && c.Host == ""
}

// RESTConfig resolves c into a client-go REST config: from the kubeconfig
// files and inline values when c names either, else, with AllowInCluster,
// from the pod's service account when the provider runs in a pod and c sets
// nothing at all.
func (c Config) RESTConfig() (*rest.Config, error) {
	var (
		restConfig *rest.Config
		err        error
	)
	switch {
	case !c.IsEmpty():
		restConfig, err = c.fromKubeconfigAndInline()
	case !c.AllowInCluster || c.setsConnection() || !inClusterPossible():
		err = ErrNoConfiguration
	default:
		restConfig, err = inClusterConfig()
	}
	if err != nil {
		return nil, err
	}
	SetRateLimit(restConfig, c.QPS, c.Burst)
	if c.Timeout > 0 {
		restConfig.Timeout = c.Timeout
	}
	LimitInFlight(restConfig, c.RequestsInFlight)
	if c.UserAgent != "" {
		restConfig.UserAgent = c.UserAgent
	}
	return restConfig, nil
}

// setsConnection reports whether any connection setting is given, even one
// that cannot stand alone (a token without a host): then the pod's service
// account is not used, so that a half-written configuration fails instead of
// reaching the pod's own cluster.
func (c Config) setsConnection() bool {
	return !c.IsEmpty() || c.ConfigContext != "" || c.ConfigContextAuthInfo != "" || c.ConfigContextCluster != "" ||
		c.Token != "" || c.ClusterCACertificate != "" || c.ClientCertificate != "" || c.ClientKey != "" ||
		c.Insecure || c.TLSServerName != "" || c.ProxyURL != "" || c.Exec != nil
}

// fromKubeconfigAndInline loads and merges the kubeconfig files with
// clientcmd's loading rules and applies the inline values on top. It never
// consults KUBECONFIG, ~/.kube/config or the pod environment.
func (c Config) fromKubeconfigAndInline() (*rest.Config, error) {
	paths, err := c.kubeconfigPaths()
	if err != nil {
		return nil, err
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: paths}
	loaded, err := rules.Load()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the kubeconfig: %w", c.pathAttribute(), err)
	}
	if err := c.checkNames(loaded, paths); err != nil {
		return nil, err
	}
	restConfig, err := clientcmd.NewNonInteractiveClientConfig(*loaded, c.ConfigContext, c.overrides(), rules).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("building the client configuration: %w", err)
	}
	return restConfig, nil
}

// kubeconfigPaths returns the kubeconfig files to merge, with ~ expanded.
// Each must exist: a file named but absent is a mistake here, not an
// optional layer as in KUBECONFIG.
func (c Config) kubeconfigPaths() ([]string, error) {
	if c.ConfigPath != "" && len(c.ConfigPaths) > 0 {
		return nil, errors.New("config_path and config_paths are both set: keep one (config_paths may list a single file)")
	}
	given := c.ConfigPaths
	if c.ConfigPath != "" {
		given = []string{c.ConfigPath}
	}
	paths := make([]string, 0, len(given))
	for i, p := range given {
		attribute := c.pathAttribute()
		if len(c.ConfigPaths) > 0 {
			attribute = fmt.Sprintf("config_paths[%d]", i)
		}
		if p == "" {
			return nil, fmt.Errorf("%s is empty: give the path of a kubeconfig file", attribute)
		}
		path, err := expandHome(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", attribute, err)
		}
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%s: reading kubeconfig %q: %w", attribute, path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func (c Config) pathAttribute() string {
	if len(c.ConfigPaths) > 0 {
		return "config_paths"
	}
	return "config_path"
}

// checkNames makes sure the context, user and cluster named exist in the
// merged kubeconfig, and that something picks a context, so that errors name
// the attribute and list what the kubeconfig has.
func (c Config) checkNames(cfg *clientcmdapi.Config, paths []string) error {
	where := "the kubeconfig " + strings.Join(quoted(paths), ", ")
	checks := []struct {
		attribute, kind, name string
		known                 []string
	}{
		{"config_context", "context", c.ConfigContext, slices.Sorted(maps.Keys(cfg.Contexts))},
		{"config_context_auth_info", "user", c.ConfigContextAuthInfo, slices.Sorted(maps.Keys(cfg.AuthInfos))},
		{"config_context_cluster", "cluster", c.ConfigContextCluster, slices.Sorted(maps.Keys(cfg.Clusters))},
	}
	for _, check := range checks {
		switch {
		case check.name == "" || slices.Contains(check.known, check.name):
		case len(paths) == 0:
			return fmt.Errorf("%s %q needs a kubeconfig to pick it from: set config_path or config_paths", check.attribute, check.name)
		default:
			return fmt.Errorf("%s: %s %q is not in %s (it has: %s)", check.attribute, check.kind, check.name, where, namesOrNone(check.known))
		}
	}
	if len(paths) > 0 && c.Host == "" && c.ConfigContext == "" && cfg.CurrentContext == "" && c.ConfigContextCluster == "" {
		return fmt.Errorf("config_context: %s has no current context: pick one of %s", where,
			namesOrNone(slices.Sorted(maps.Keys(cfg.Contexts))))
	}
	return nil
}

// overrides are the inline values, applied over the kubeconfig's context.
func (c Config) overrides() *clientcmd.ConfigOverrides {
	overrides := &clientcmd.ConfigOverrides{
		CurrentContext: c.ConfigContext,
		Context:        clientcmdapi.Context{AuthInfo: c.ConfigContextAuthInfo, Cluster: c.ConfigContextCluster},
	}
	overrides.ClusterInfo.Server = c.Host
	if c.ClusterCACertificate != "" {
		overrides.ClusterInfo.CertificateAuthorityData = []byte(c.ClusterCACertificate)
	}
	overrides.ClusterInfo.InsecureSkipTLSVerify = c.Insecure
	overrides.ClusterInfo.TLSServerName = c.TLSServerName
	overrides.ClusterInfo.ProxyURL = c.ProxyURL
	overrides.AuthInfo.Token = c.Token
	if c.ClientCertificate != "" {
		overrides.AuthInfo.ClientCertificateData = []byte(c.ClientCertificate)
	}
	if c.ClientKey != "" {
		overrides.AuthInfo.ClientKeyData = []byte(c.ClientKey)
	}
	if c.Exec != nil {
		overrides.AuthInfo.Exec = c.Exec.clientcmd()
	}
	return overrides
}

func (e *ExecConfig) clientcmd() *clientcmdapi.ExecConfig {
	exec := &clientcmdapi.ExecConfig{
		APIVersion:      e.APIVersion,
		Command:         e.Command,
		Args:            e.Args,
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}
	for _, name := range slices.Sorted(maps.Keys(e.Env)) {
		exec.Env = append(exec.Env, clientcmdapi.ExecEnvVar{Name: name, Value: e.Env[name]})
	}
	return exec
}

func expandHome(path string) (string, error) {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		return path, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expanding ~: %w", err)
	}
	return filepath.Join(home, strings.TrimPrefix(path, "~")), nil
}

func quoted(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

func namesOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// SetRateLimit limits cfg's clients to qps requests per second, in bursts of
// up to burst, or, with qps zero or less, sets no client-side limit: the
// API server's priority and fairness (on by default since Kubernetes 1.20)
// shares its capacity among its clients, and a limit on this side would
// only hold back a run that writes many objects. client-go itself reads a
// zero QPS as its default of 5 requests per second; a negative one turns
// the limiter off.
func SetRateLimit(cfg *rest.Config, qps float32, burst int) {
	if qps <= 0 {
		cfg.QPS, cfg.Burst = -1, 0
		return
	}
	cfg.QPS, cfg.Burst = qps, max(burst, 1)
}
