package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const twoContexts = `apiVersion: v1
kind: Config
current-context: east
clusters:
- name: east
  cluster: {server: "https://east.example:6443"}
- name: west
  cluster: {server: "https://west.example:6443"}
users:
- name: admin
  user: {token: from-file}
contexts:
- name: east
  context: {cluster: east, user: admin}
- name: west
  context: {cluster: west, user: admin}
`

func writeKubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRESTConfig_nothingSetIsAnError(t *testing.T) {
	// Even with a kubeconfig where kubectl would look, nothing is guessed.
	t.Setenv("KUBECONFIG", writeKubeconfig(t))
	_, err := Config{}.RESTConfig()
	if !errors.Is(err, ErrNoConfiguration) {
		t.Fatalf("want ErrNoConfiguration, got %v", err)
	}
	if !strings.Contains(err.Error(), "set config_path") {
		t.Errorf("error should say what to set: %v", err)
	}
}

func TestRESTConfig_kubeconfigContexts(t *testing.T) {
	path := writeKubeconfig(t)
	for _, tc := range []struct{ context, wantHost string }{
		{"", "https://east.example:6443"},
		{"west", "https://west.example:6443"},
	} {
		cfg, err := Config{ConfigPath: path, ConfigContext: tc.context}.RESTConfig()
		if err != nil {
			t.Fatalf("context %q: %v", tc.context, err)
		}
		if cfg.Host != tc.wantHost || cfg.BearerToken != "from-file" {
			t.Errorf("context %q: host %q token %q", tc.context, cfg.Host, cfg.BearerToken)
		}
	}
}

func TestRESTConfig_unknownContextListsTheKnownOnes(t *testing.T) {
	_, err := Config{ConfigPath: writeKubeconfig(t), ConfigContext: "north"}.RESTConfig()
	if err == nil || !strings.Contains(err.Error(), `config_context: context "north" is not in the kubeconfig`) ||
		!strings.Contains(err.Error(), "east, west") {
		t.Fatalf("unexpected error: %v", err)
	}
}

func TestRESTConfig_missingFile(t *testing.T) {
	_, err := Config{ConfigPath: filepath.Join(t.TempDir(), "absent")}.RESTConfig()
	if err == nil || !strings.HasPrefix(err.Error(), "config_path: reading kubeconfig") {
		t.Fatalf("unexpected error: %v", err)
	}
}

func TestRESTConfig_inlineOverridesKubeconfig(t *testing.T) {
	cfg, err := Config{
		ConfigPath: writeKubeconfig(t), ConfigContext: "west",
		Host: "https://inline.example:443", Token: "inline-token",
		TLSServerName: "api.internal", QPS: 50, Burst: 100, Timeout: 7 * time.Second, UserAgent: "ua/1",
	}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://inline.example:443" || cfg.BearerToken != "inline-token" || cfg.ServerName != "api.internal" {
		t.Errorf("inline values not applied: host %q token %q server name %q", cfg.Host, cfg.BearerToken, cfg.ServerName)
	}
	if cfg.QPS != 50 || cfg.Burst != 100 || cfg.Timeout != 7*time.Second || cfg.UserAgent != "ua/1" {
		t.Errorf("client settings not applied: %+v", cfg)
	}
}

func TestRESTConfig_inlineOnlyWithExec(t *testing.T) {
	cfg, err := Config{
		Host: "https://inline.example", ClusterCACertificate: "PEM",
		Exec: &ExecConfig{APIVersion: "client.authentication.k8s.io/v1", Command: "get-token", Args: []string{"--a"},
			Env: map[string]string{"B": "2", "A": "1"}},
	}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ExecProvider == nil || cfg.ExecProvider.Command != "get-token" || len(cfg.ExecProvider.Env) != 2 ||
		cfg.ExecProvider.Env[0].Name != "A" {
		t.Fatalf("exec not carried over in a stable order: %+v", cfg.ExecProvider)
	}
	if string(cfg.CAData) != "PEM" {
		t.Errorf("CA data %q", cfg.CAData)
	}
}

func TestRESTConfig_homeExpansion(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.WriteFile(filepath.Join(home, "kc"), []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Config{ConfigPath: "~/kc"}).RESTConfig(); err != nil {
		t.Fatalf("~ not expanded: %v", err)
	}
}
