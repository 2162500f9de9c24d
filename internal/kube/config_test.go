package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// kubeconfigA and kubeconfigB overlap on the cluster "shared" and the user
// "admin", so merging them shows which file wins.
const kubeconfigA = `apiVersion: v1
kind: Config
current-context: east
clusters:
- name: east
  cluster: {server: "https://east.example:6443"}
- name: shared
  cluster: {server: "https://shared-from-a.example:6443"}
users:
- name: admin
  user: {token: a-admin}
- name: ops
  user: {token: a-ops}
contexts:
- name: east
  context: {cluster: east, user: admin}
- name: shared
  context: {cluster: shared, user: admin}
`

const kubeconfigB = `apiVersion: v1
kind: Config
current-context: west
clusters:
- name: west
  cluster: {server: "https://west.example:6443"}
- name: shared
  cluster: {server: "https://shared-from-b.example:6443"}
users:
- name: admin
  user: {token: b-admin}
- name: viewer
  user: {token: b-viewer}
contexts:
- name: west
  context: {cluster: west, user: viewer}
`

// kubeconfigNoCurrent has no current context: something must pick one.
const kubeconfigNoCurrent = `apiVersion: v1
kind: Config
clusters:
- name: lone
  cluster: {server: "https://lone.example:6443"}
users:
- name: lone
  user: {token: lone-token}
contexts:
- name: lone
  context: {cluster: lone, user: lone}
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRESTConfig_loadingRules(t *testing.T) {
	a, b := writeFile(t, "a", kubeconfigA), writeFile(t, "b", kubeconfigB)
	none := writeFile(t, "none", kubeconfigNoCurrent)
	for _, tc := range []struct {
		name              string
		config            Config
		wantHost, wantTok string
	}{
		{"one file, its current context", Config{ConfigPath: a}, "https://east.example:6443", "a-admin"},
		{"one file, a named context", Config{ConfigPath: a, ConfigContext: "shared"}, "https://shared-from-a.example:6443", "a-admin"},
		{"a list of one file", Config{ConfigPaths: []string{b}}, "https://west.example:6443", "b-viewer"},
		{"merged: the first file's current context", Config{ConfigPaths: []string{a, b}}, "https://east.example:6443", "a-admin"},
		{"merged the other way round", Config{ConfigPaths: []string{b, a}}, "https://west.example:6443", "b-viewer"},
		{"merged: a context of the second file", Config{ConfigPaths: []string{a, b}, ConfigContext: "west"},
			"https://west.example:6443", "b-viewer"},
		{"merged: the first file's cluster wins a name both have", Config{ConfigPaths: []string{b, a}, ConfigContext: "shared"},
			"https://shared-from-b.example:6443", "b-admin"},
		{"auth info override from the other file", Config{ConfigPaths: []string{a, b}, ConfigContextAuthInfo: "viewer"},
			"https://east.example:6443", "b-viewer"},
		{"cluster override", Config{ConfigPath: a, ConfigContext: "east", ConfigContextCluster: "shared"},
			"https://shared-from-a.example:6443", "a-admin"},
		{"user and cluster picked without any context", Config{ConfigPath: none, ConfigContextAuthInfo: "lone", ConfigContextCluster: "lone"},
			"https://lone.example:6443", "lone-token"},
		{"inline values over the context", Config{ConfigPaths: []string{a, b}, ConfigContext: "west", Host: "https://inline.example", Token: "inline"},
			"https://inline.example", "inline"},
		{"inline only", Config{Host: "https://inline.example", Token: "inline"}, "https://inline.example", "inline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.config.RESTConfig()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tc.wantHost || cfg.BearerToken != tc.wantTok {
				t.Errorf("host %q token %q, want %q %q", cfg.Host, cfg.BearerToken, tc.wantHost, tc.wantTok)
			}
		})
	}
}

func TestRESTConfig_errorsNameTheAttribute(t *testing.T) {
	a, b := writeFile(t, "a", kubeconfigA), writeFile(t, "b", kubeconfigB)
	absent := filepath.Join(t.TempDir(), "absent")
	for _, tc := range []struct {
		name   string
		config Config
		want   []string
	}{
		{"config_path absent", Config{ConfigPath: absent}, []string{"config_path: reading kubeconfig", absent}},
		{"second of config_paths absent", Config{ConfigPaths: []string{a, absent}}, []string{"config_paths[1]: reading kubeconfig", absent}},
		{"empty entry in config_paths", Config{ConfigPaths: []string{a, ""}}, []string{"config_paths[1] is empty"}},
		{"both path attributes", Config{ConfigPath: a, ConfigPaths: []string{b}}, []string{"config_path and config_paths are both set"}},
		{"not YAML", Config{ConfigPath: writeFile(t, "bad", "clusters: [")}, []string{"config_path: reading the kubeconfig"}},
		{"unknown context", Config{ConfigPaths: []string{a, b}, ConfigContext: "north"},
			[]string{`config_context: context "north" is not in the kubeconfig`, a, b, "(it has: east, shared, west)"}},
		{"unknown user", Config{ConfigPath: a, ConfigContextAuthInfo: "nobody"},
			[]string{`config_context_auth_info: user "nobody" is not in the kubeconfig`, "(it has: admin, ops)"}},
		{"unknown cluster", Config{ConfigPath: b, ConfigContextCluster: "nowhere"},
			[]string{`config_context_cluster: cluster "nowhere" is not in the kubeconfig`, "(it has: shared, west)"}},
		{"context without a kubeconfig", Config{Host: "https://h", ConfigContext: "east"},
			[]string{`config_context "east" needs a kubeconfig`, "set config_path or config_paths"}},
		{"no current context", Config{ConfigPath: writeFile(t, "none", kubeconfigNoCurrent)},
			[]string{"config_context: the kubeconfig", "has no current context: pick one of lone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.config.RESTConfig()
			if err == nil {
				t.Fatal("want an error")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q lacks %q", err, want)
				}
			}
		})
	}
}

func TestRESTConfig_nothingSetIsAnError(t *testing.T) {
	notInAPod(t)
	// Even with a kubeconfig where kubectl would look, nothing is guessed.
	t.Setenv("KUBECONFIG", writeFile(t, "kubeconfig", kubeconfigA))
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".kube", "config"), []byte(kubeconfigA), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	_, err := Config{AllowInCluster: true}.RESTConfig()
	if !errors.Is(err, ErrNoConfiguration) {
		t.Fatalf("want ErrNoConfiguration, got %v", err)
	}
	if !strings.Contains(err.Error(), "set config_path or config_paths") {
		t.Errorf("error should say what to set: %v", err)
	}
}

func TestRESTConfig_clientSettings(t *testing.T) {
	cfg, err := Config{
		ConfigPath: writeFile(t, "a", kubeconfigA), TLSServerName: "api.internal",
		QPS: 50, Burst: 100, Timeout: 7 * time.Second, UserAgent: "ua/1",
	}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ServerName != "api.internal" || cfg.QPS != 50 || cfg.Burst != 100 || cfg.Timeout != 7*time.Second || cfg.UserAgent != "ua/1" {
		t.Errorf("client settings not applied: %+v", cfg)
	}
}

func TestSetRateLimit(t *testing.T) {
	cases := []struct {
		name      string
		qps       float32
		burst     int
		wantLimit bool
		wantQPS   float32
		wantBurst int
	}{
		{"no qps: no limiter, not client-go's default of 5", 0, 0, false, -1, 0},
		{"a burst without qps is no limit either", 0, 100, false, -1, 0},
		{"qps and burst", 20, 40, true, 20, 40},
		{"at least one request at a time", 5, 0, true, 5, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &rest.Config{Host: "https://127.0.0.1:6443"}
			SetRateLimit(cfg, tc.qps, tc.burst)
			if cfg.QPS != tc.wantQPS || cfg.Burst != tc.wantBurst {
				t.Fatalf("qps %v, burst %d; want %v, %d", cfg.QPS, cfg.Burst, tc.wantQPS, tc.wantBurst)
			}
			client, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			limiter := client.CoreV1().RESTClient().GetRateLimiter()
			if got := limiter != nil; got != tc.wantLimit {
				t.Fatalf("client has a rate limiter: %v, want %v", got, tc.wantLimit)
			}
			if tc.wantLimit && limiter.QPS() != tc.wantQPS {
				t.Errorf("limiter at %v requests per second, want %v", limiter.QPS(), tc.wantQPS)
			}
		})
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
	if err := os.WriteFile(filepath.Join(home, "kc"), []byte(kubeconfigA), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Config{{ConfigPath: "~/kc"}, {ConfigPaths: []string{"~/kc"}}} {
		if _, err := c.RESTConfig(); err != nil {
			t.Errorf("~ not expanded in %+v: %v", c, err)
		}
	}
}

func TestRESTConfig_pathsInAKubeconfigAreRelativeToIt(t *testing.T) {
	path := writeFile(t, "kubeconfig", `apiVersion: v1
kind: Config
current-context: c
clusters:
- name: c
  cluster: {server: "https://c.example", certificate-authority: certs/ca.crt}
users:
- name: u
  user: {token: t}
contexts:
- name: c
  context: {cluster: c, user: u}
`)
	want := filepath.Join(filepath.Dir(path), "certs", "ca.crt")
	if err := os.MkdirAll(filepath.Dir(want), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, []byte("PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Config{ConfigPath: path}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CAFile != want {
		t.Errorf("CA file %q, want %q", cfg.CAFile, want)
	}
}
