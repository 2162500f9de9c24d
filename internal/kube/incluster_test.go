package kube

import (
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// simulatePod gives the test a pod's environment, with the service
// account's files in a temporary directory. An empty caPEM leaves the CA
// file out.
func simulatePod(t *testing.T, host, port, token string, caPEM []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	if len(caPEM) > 0 {
		if err := os.WriteFile(filepath.Join(dir, "ca.crt"), caPEM, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	setServiceAccountDir(t, dir)
	t.Setenv("KUBERNETES_SERVICE_HOST", host)
	t.Setenv("KUBERNETES_SERVICE_PORT", port)
	return dir
}

// notInAPod takes the pod environment away, wherever the tests run.
func notInAPod(t *testing.T) {
	t.Helper()
	setServiceAccountDir(t, t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
}

func setServiceAccountDir(t *testing.T, dir string) {
	t.Helper()
	previous := ServiceAccountDir
	ServiceAccountDir = dir
	t.Cleanup(func() { ServiceAccountDir = previous })
}

func TestRESTConfig_inClusterWhenNothingIsSet(t *testing.T) {
	dir := simulatePod(t, "10.0.0.1", "443", "pod-token", []byte("CA PEM"))
	cfg, err := Config{AllowInCluster: true, QPS: 50, UserAgent: "ua/1"}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://10.0.0.1:443" || cfg.BearerToken != "pod-token" || cfg.BearerTokenFile != filepath.Join(dir, "token") ||
		cfg.CAFile != filepath.Join(dir, "ca.crt") {
		t.Errorf("not the pod's service account: %+v", cfg)
	}
	if cfg.QPS != 50 || cfg.UserAgent != "ua/1" {
		t.Errorf("client settings not applied in a pod: %+v", cfg)
	}
}

func TestRESTConfig_inClusterDecisions(t *testing.T) {
	kubeconfig := writeFile(t, "a", kubeconfigA)
	inPod := Config{AllowInCluster: true}
	for _, tc := range []struct {
		name     string
		pod      func(t *testing.T)
		config   Config
		wantHost string // empty: ErrNoConfiguration
	}{
		{"IPv6 service address", func(t *testing.T) { simulatePod(t, "fd00::1", "443", "tok", nil) }, inPod, "https://[fd00::1]:443"},
		{"a connection that does not allow it", func(t *testing.T) { simulatePod(t, "10.0.0.1", "443", "tok", nil) }, Config{}, ""},
		{"a kubeconfig wins over the pod", func(t *testing.T) { simulatePod(t, "10.0.0.1", "443", "tok", nil) },
			Config{AllowInCluster: true, ConfigPath: kubeconfig}, "https://east.example:6443"},
		{"a host wins over the pod", func(t *testing.T) { simulatePod(t, "10.0.0.1", "443", "tok", nil) },
			Config{AllowInCluster: true, Host: "https://elsewhere.example"}, "https://elsewhere.example"},
		{"a token alone does not reach the pod's cluster", func(t *testing.T) { simulatePod(t, "10.0.0.1", "443", "tok", nil) },
			Config{AllowInCluster: true, Token: "other"}, ""},
		{"a context alone does not either", func(t *testing.T) { simulatePod(t, "10.0.0.1", "443", "tok", nil) },
			Config{AllowInCluster: true, ConfigContext: "east"}, ""},
		{"service variables without a mounted token", func(t *testing.T) {
			notInAPod(t)
			t.Setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
			t.Setenv("KUBERNETES_SERVICE_PORT", "443")
		}, inPod, ""},
		{"a token file without the service variables", func(t *testing.T) {
			simulatePod(t, "10.0.0.1", "443", "tok", nil)
			t.Setenv("KUBERNETES_SERVICE_PORT", "")
		}, inPod, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.pod(t)
			cfg, err := tc.config.RESTConfig()
			switch {
			case tc.wantHost == "" && !errors.Is(err, ErrNoConfiguration):
				t.Fatalf("want ErrNoConfiguration, got %v (%+v)", err, cfg)
			case tc.wantHost == "":
			case err != nil:
				t.Fatal(err)
			case cfg.Host != tc.wantHost:
				t.Errorf("host %q, want %q", cfg.Host, tc.wantHost)
			}
		})
	}
}

func TestRESTConfig_inClusterWithoutCAFileUsesTheSystemRoots(t *testing.T) {
	simulatePod(t, "10.0.0.1", "443", "tok", nil)
	cfg, err := Config{AllowInCluster: true}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CAFile != "" {
		t.Errorf("CA file %q set, though none is mounted", cfg.CAFile)
	}
}

// The pod's files really authenticate and verify the server, through the
// factory's clients.
func TestRESTConfig_inClusterConnects(t *testing.T) {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer pod-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	}))
	defer server.Close()
	host, port, err := net.SplitHostPort(server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	simulatePod(t, host, port, "pod-token", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw}))
	cfg, err := Config{AllowInCluster: true}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	clients, err := NewClientFactory().NewClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	info, err := clients.Kubernetes.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("in-cluster configuration did not connect: %v", err)
	}
	if info.GitVersion != "v1.37.2" {
		t.Errorf("version %q", info.GitVersion)
	}
}
