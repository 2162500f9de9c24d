// Package kube turns connection settings (a kubeconfig and its context, or
// inline endpoint and credentials, or an exec credential plugin) into
// client-go clients, and explains connection failures in words a user can act
// on. It knows nothing of federation.
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
	ConfigPath    string
	ConfigContext string

	Host                 string
	Token                string
	ClusterCACertificate string
	ClientCertificate    string
	ClientKey            string
	Insecure             bool
	TLSServerName        string
	ProxyURL             string
	Exec                 *ExecConfig

	// QPS and Burst set client-go's client-side rate limit.
	QPS     float32
	Burst   int
	Timeout time.Duration
	// UserAgent names the provider and its version in the API server's logs.
	UserAgent string
}

// ExecConfig runs a credential plugin, as a kubeconfig's exec section does.
type ExecConfig struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// ErrNoConfiguration means nothing says where the cluster is. The provider
// deliberately does not fall back to ~/.kube/config or in-cluster settings:
// a plan must never silently target whichever cluster happens to be current.
var ErrNoConfiguration = errors.New("no connection settings: set config_path (and optionally config_context), " +
	"or host with token, client_certificate/client_key or an exec block " +
	"(or the KUBE_CONFIG_PATH / KUBE_HOST environment variables)")

// IsEmpty reports whether c says nothing about where the cluster is.
func (c Config) IsEmpty() bool {
	return c.ConfigPath == "" && c.Host == ""
}

// RESTConfig resolves c into a client-go REST config.
func (c Config) RESTConfig() (*rest.Config, error) {
	if c.IsEmpty() {
		return nil, ErrNoConfiguration
	}
	base := clientcmdapi.NewConfig()
	if c.ConfigPath != "" {
		path, err := expandHome(c.ConfigPath)
		if err != nil {
			return nil, err
		}
		loaded, err := clientcmd.LoadFromFile(path)
		if err != nil {
			return nil, fmt.Errorf("config_path: reading kubeconfig %q: %w", path, err)
		}
		base = loaded
	}
	if c.ConfigContext != "" {
		if _, ok := base.Contexts[c.ConfigContext]; !ok {
			return nil, fmt.Errorf("config_context: context %q is not in the kubeconfig %q (it has: %s)",
				c.ConfigContext, c.ConfigPath, strings.Join(contextNames(base), ", "))
		}
	}

	overrides := &clientcmd.ConfigOverrides{CurrentContext: c.ConfigContext}
	if c.Host != "" {
		overrides.ClusterInfo.Server = c.Host
	}
	if c.ClusterCACertificate != "" {
		overrides.ClusterInfo.CertificateAuthorityData = []byte(c.ClusterCACertificate)
	}
	if c.Insecure {
		overrides.ClusterInfo.InsecureSkipTLSVerify = true
	}
	overrides.ClusterInfo.TLSServerName = c.TLSServerName
	overrides.ClusterInfo.ProxyURL = c.ProxyURL
	if c.Token != "" {
		overrides.AuthInfo.Token = c.Token
	}
	if c.ClientCertificate != "" {
		overrides.AuthInfo.ClientCertificateData = []byte(c.ClientCertificate)
	}
	if c.ClientKey != "" {
		overrides.AuthInfo.ClientKeyData = []byte(c.ClientKey)
	}
	if c.Exec != nil {
		overrides.AuthInfo.Exec = c.Exec.clientcmd()
	}

	restConfig, err := clientcmd.NewDefaultClientConfig(*base, overrides).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("building the client configuration: %w", err)
	}
	if c.QPS > 0 {
		restConfig.QPS = c.QPS
	}
	if c.Burst > 0 {
		restConfig.Burst = c.Burst
	}
	if c.Timeout > 0 {
		restConfig.Timeout = c.Timeout
	}
	if c.UserAgent != "" {
		restConfig.UserAgent = c.UserAgent
	}
	return restConfig, nil
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
		return "", fmt.Errorf("config_path: expanding ~: %w", err)
	}
	return filepath.Join(home, strings.TrimPrefix(path, "~")), nil
}

func contextNames(cfg *clientcmdapi.Config) []string {
	names := make([]string, 0, len(cfg.Contexts))
	for name := range cfg.Contexts {
		names = append(names, name)
	}
	if len(names) == 0 {
		return []string{"no contexts"}
	}
	slices.Sort(names)
	return names
}
