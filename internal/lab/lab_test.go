package lab

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestLab brings up a real two-cluster plain lab (kube-apiservers only) in
// a temporary directory and walks through what tests and benchmarks rely
// on. It needs a kube-apiserver binary, named by KUBEFED_LAB_KUBE_APISERVER,
// and skips without one; etcd comes from PATH or /usr/bin/etcd. TestFullLab
// covers what the control components add.
func TestLab(t *testing.T) {
	kas := os.Getenv(EnvKubeAPIServer)
	if kas == "" {
		t.Skipf("integration test: set %s to a kube-apiserver binary to run it", EnvKubeAPIServer)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "lab")
	cfg := Config{Dir: dir, Clusters: []string{"host", "berlin"}, Mode: ModePlain, KubeAPIServer: kas, Log: t.Logf}

	start := time.Now()
	l, err := Up(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("two clusters ready in %v", time.Since(start))
	downed := false
	t.Cleanup(func() {
		if !downed {
			_ = l.Down(context.WithoutCancel(ctx))
		}
	})
	if !l.Created() {
		t.Error("Created() = false for a lab made from nothing")
	}
	if got := names(l.Clusters()); !slices.Equal(got, []string{"host", "berlin"}) {
		t.Fatalf("clusters = %v", got)
	}
	if l.Host().Name != "host" || len(l.Members()) != 1 || l.Members()[0].Name != "berlin" {
		t.Fatalf("host %q, members %v", l.Host().Name, names(l.Members()))
	}

	t.Run("kubeconfig contexts verify TLS and authenticate", func(t *testing.T) {
		for _, c := range l.Clusters() {
			cfg := kubeconfigContext(t, c)
			if cfg.Insecure || len(cfg.CAData) == 0 {
				t.Fatalf("context %s: insecure=%v, %d bytes of CA: want a verified connection", c.Name, cfg.Insecure, len(cfg.CAData))
			}
			cs := kubernetes.NewForConfigOrDie(cfg)
			body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
			if err != nil || string(body) != "ok" {
				t.Fatalf("context %s: /readyz = %q, %v", c.Name, body, err)
			}
			if _, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
				t.Errorf("context %s: admin cannot list namespaces: %v", c.Name, err)
			}
		}
	})

	t.Run("each cluster trusts only its own CA", func(t *testing.T) {
		cfg := l.Host().RESTConfig()
		cfg.CAData = l.Cluster("berlin").CAPEM
		_, err := kubernetes.NewForConfigOrDie(cfg).Discovery().ServerVersion()
		if err == nil {
			t.Fatal("host verified against berlin's CA")
		}
	})

	t.Run("client certificates authenticate", func(t *testing.T) {
		member := l.Cluster("berlin")
		certPEM, keyPEM, err := l.ClientCertificate("berlin", "alice", []string{"developers"})
		if err != nil {
			t.Fatal(err)
		}
		cfg := &rest.Config{Host: member.URL, TLSClientConfig: rest.TLSClientConfig{CAData: member.CAPEM, CertData: certPEM, KeyData: keyPEM}}
		_, err = kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		// Known but without rights: RBAC says forbidden, not unauthorized.
		if !apierrors.IsForbidden(err) {
			t.Errorf("alice listing namespaces: %v, want forbidden", err)
		}
		// The admin certificate written for the cluster has every right.
		admin := &rest.Config{Host: member.URL, TLSClientConfig: rest.TLSClientConfig{CAFile: member.CAFile, CertFile: member.ClientCertFile, KeyFile: member.ClientKeyFile}}
		if _, err := kubernetes.NewForConfigOrDie(admin).CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("admin certificate: %v", err)
		}
		// berlin's certificates mean nothing to the host.
		cfg.Host, cfg.CAData = l.Host().URL, l.Host().CAPEM
		_, err = kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if !apierrors.IsUnauthorized(err) {
			t.Errorf("berlin's client certificate on the host: %v, want unauthorized", err)
		}
	})

	t.Run("TokenRequest mints least-privilege tokens", func(t *testing.T) {
		tok, err := l.ServiceAccountToken(ctx, "berlin", "federation-test", "member-agent", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		cfg := &rest.Config{Host: l.Cluster("berlin").URL, BearerToken: tok, TLSClientConfig: rest.TLSClientConfig{CAData: l.Cluster("berlin").CAPEM}}
		_, err = kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if !apierrors.IsForbidden(err) {
			t.Errorf("service-account token listing namespaces: %v, want forbidden", err)
		}
	})

	t.Run("Up again changes nothing", func(t *testing.T) {
		before := pids(t, l)
		again, err := Up(ctx, Config{Dir: dir, KubeAPIServer: kas})
		if err != nil {
			t.Fatal(err)
		}
		if again.Created() {
			t.Error("Created() = true for a lab that was running")
		}
		if after := pids(t, l); !slices.Equal(before, after) {
			t.Errorf("pids changed from %v to %v", before, after)
		}
		if _, err := Up(ctx, Config{Dir: dir, Clusters: []string{"host", "paris"}, KubeAPIServer: kas}); err == nil {
			t.Error("Up with other clusters than the running lab's: no error")
		}
		if _, err := Up(ctx, Config{Dir: dir, Mode: ModeFull, KubeAPIServer: kas}); err == nil || !strings.Contains(err.Error(), "plain mode") {
			t.Errorf("Up in full mode on a plain lab: %v, want an error naming its mode", err)
		}
	})

	t.Run("a stopped member refuses, then comes back with its data", func(t *testing.T) {
		member := l.Cluster("berlin")
		cs := kubernetes.NewForConfigOrDie(kubeconfigContext(t, member))
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "survives-restart"}}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := l.Stop(ctx, "berlin"); err != nil {
			t.Fatal(err)
		}
		// A generous deadline that only turns a hang into a failure.
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := cs.CoreV1().Namespaces().Get(rctx, "survives-restart", metav1.GetOptions{})
		cancel()
		if err == nil {
			t.Fatal("request to a stopped member succeeded")
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("request to a stopped member hung: %v", err)
		}
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			t.Fatalf("request to a stopped member got an API answer (%v), want a transport error", err)
		}
		t.Logf("stopped member: %v", err)
		if _, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err == nil {
			t.Fatal("list on a stopped member succeeded")
		}
		host := kubernetes.NewForConfigOrDie(l.Host().RESTConfig())
		if _, err := host.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("host while berlin is stopped: %v", err)
		}
		if st, err := l.Status(ctx); err != nil || st.Clusters[1].PID != 0 || st.Clusters[1].Ready {
			t.Errorf("status of stopped berlin: %+v, %v", st.Clusters[1], err)
		}

		if err := l.Start(ctx, "berlin"); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CoreV1().Namespaces().Get(ctx, "survives-restart", metav1.GetOptions{}); err != nil {
			t.Errorf("after start: %v", err)
		}
	})

	t.Run("latency delays every round trip", func(t *testing.T) {
		const d = 150 * time.Millisecond
		if err := l.SetLatency(ctx, "berlin", d); err != nil {
			t.Fatal(err)
		}
		cs := kubernetes.NewForConfigOrDie(l.Cluster("berlin").RESTConfig())
		// Warm the connection, so what is timed is one request and answer.
		if _, err := cs.Discovery().ServerVersion(); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := cs.Discovery().ServerVersion(); err != nil {
			t.Fatal(err)
		}
		if rtt := time.Since(start); rtt < 2*d {
			t.Errorf("request with %v each way took %v, want at least %v", d, rtt, 2*d)
		}
		st, err := l.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Clusters[1].Latency != d || !st.Clusters[1].Ready {
			t.Errorf("status of berlin: latency %v, ready %v", st.Clusters[1].Latency, st.Clusters[1].Ready)
		}
		if err := l.SetLatency(ctx, "berlin", 0); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("another process attaches with Load", func(t *testing.T) {
		loaded, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := loaded.Cluster("berlin"), l.Cluster("berlin"); got.URL != want.URL || got.Token != want.Token {
			t.Errorf("loaded berlin %s, want %s", got.URL, want.URL)
		}
	})

	all := pids(t, l)
	if err := l.Down(ctx); err != nil {
		t.Fatal(err)
	}
	downed = true
	for _, pid := range all {
		if !isZombie(pid) {
			t.Errorf("pid %d still runs after Down", pid)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("state directory after Down: %v, want it removed", err)
	}
	if _, err := Load(dir); !errors.Is(err, ErrNoLab) {
		t.Errorf("Load after Down: %v, want ErrNoLab", err)
	}
}

// kubeconfigContext loads a cluster's context from the lab's kubeconfig the
// way users and the provider do.
func kubeconfigContext(t *testing.T, c Cluster) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: c.KubeconfigPath},
		&clientcmd.ConfigOverrides{CurrentContext: c.Context},
	).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// pids lists every process of the lab: etcd, then each cluster's
// kube-apiserver, proxy and control components.
func pids(t *testing.T, l *Lab) []int {
	t.Helper()
	st, err := readState(l.Dir())
	if err != nil {
		t.Fatal(err)
	}
	out := []int{st.EtcdProcess.PID}
	for _, c := range st.Clusters {
		out = append(out, c.APIServer.PID, c.Proxy.PID)
		for _, comp := range controlComponents(st.Mode, st.isHost(c.Name)) {
			out = append(out, c.proc(comp).PID)
		}
	}
	for _, p := range out {
		if p == 0 {
			t.Fatalf("a process of the lab does not run: pids %v", out)
		}
	}
	return out
}

func names(cs []Cluster) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestUpWithoutKubeAPIServerSaysWhatToSet(t *testing.T) {
	t.Setenv(EnvKubeAPIServer, "")
	dir := filepath.Join(t.TempDir(), "lab")
	_, err := Up(t.Context(), Config{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), EnvKubeAPIServer) {
		t.Fatalf("Up without a kube-apiserver: %v, want an error naming %s", err, EnvKubeAPIServer)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("failed Up left %s behind (%v)", dir, err)
	}
}

func TestUpRefusesADirectoryThatIsNotALab(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Up(t.Context(), Config{Dir: dir, KubeAPIServer: "/bin/true"})
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("Up in a directory with other files: %v, want a refusal naming the file", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("the file is gone: %v", err)
	}
}

func TestFullUpWithoutTheControlComponentsSaysWhatToSet(t *testing.T) {
	for _, env := range []string{EnvKubeControllerManager, EnvKubeScheduler, EnvKwok} {
		t.Setenv(env, "")
	}
	dir := filepath.Join(t.TempDir(), "lab")
	_, err := Up(t.Context(), Config{Dir: dir, KubeAPIServer: "/bin/true", Etcd: "/bin/true"})
	if err == nil || !strings.Contains(err.Error(), EnvKubeControllerManager) || !strings.Contains(err.Error(), "-plain") {
		t.Fatalf("full Up without kube-controller-manager: %v, want an error naming %s and the plain mode", err, EnvKubeControllerManager)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("failed Up left %s behind (%v)", dir, err)
	}
}
