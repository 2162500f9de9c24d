package lab

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
)

// logTailLines is how much of a process log an error message quotes.
const logTailLines = 25

// ensure starts whatever of the lab does not run, waits for all of it and
// records the result. The caller holds the lock.
func (l *Lab) ensure(ctx context.Context) error {
	err := l.ensureOnly(ctx, l.st, l.st.clusterNames()...)
	if werr := writeState(l.dir, l.st); werr != nil {
		return errors.Join(err, werr)
	}
	if err != nil {
		return err
	}
	// Rewritten every time: cheap, and it repairs a deleted kubeconfig.
	return writeKubeconfig(l.KubeconfigPath(), l.clusters)
}

// ensureOnly makes etcd and the named clusters run and waits until each
// cluster answers /readyz through its proxy and, in a full lab, until its
// control components work. On failure it stops what it started, so a
// failed call leaves no half-started process behind, and returns an error
// quoting the log of what failed. The caller holds the lock and saves st.
func (l *Lab) ensureOnly(ctx context.Context, st *state, names ...string) (err error) {
	ctx, cancel := context.WithTimeout(ctx, l.readyTimeout)
	defer cancel()
	var mu sync.Mutex
	var started []*procInfo
	defer func() {
		if err == nil {
			return
		}
		stopCtx := context.WithoutCancel(ctx)
		for _, p := range started {
			_ = stopProcess(stopCtx, *p, stopGrace)
			*p = procInfo{}
		}
	}()
	// record keeps a pid on disk as soon as it exists, so that even a
	// crash of this process cannot orphan it. Clusters start their control
	// components concurrently, hence the lock.
	record := func(slot *procInfo, p procInfo) {
		mu.Lock()
		defer mu.Unlock()
		*slot = p
		started = append(started, slot)
		_ = writeState(l.dir, st)
	}

	if err := l.ensureEtcd(ctx, st, record); err != nil {
		return err
	}
	if err := l.startServers(st, names, record); err != nil {
		return err
	}
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		c, _ := st.cluster(name)
		wg.Go(func() {
			if errs[i] = l.waitReady(ctx, l.Cluster(name), c); errs[i] == nil {
				errs[i] = l.ensureControl(ctx, st, c, record)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// recorder stores the pid of a process just started.
type recorder func(slot *procInfo, p procInfo)

// ensureEtcd starts etcd unless it runs, and waits until it is healthy.
func (l *Lab) ensureEtcd(ctx context.Context, st *state, record recorder) error {
	if st.EtcdProcess.running() {
		return nil
	}
	log := filepath.Join(l.dir, etcdDir, etcdLog)
	p, err := startProcess(st.Etcd, etcdArgs(st, filepath.Join(l.dir, etcdDir, etcdDataSubdir)), childEnv(), l.dir, log)
	if err != nil {
		return err
	}
	record(&st.EtcdProcess, p)
	l.log("started etcd (pid %d) on http://127.0.0.1:%d", p.PID, st.EtcdPort)
	return waitEtcd(ctx, st.EtcdPort, p, log)
}

// startServers starts the proxy and kube-apiserver of each named cluster
// that lacks them, without waiting for them.
func (l *Lab) startServers(st *state, names []string, record recorder) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program to run the latency proxies: %w", err)
	}
	for _, name := range names {
		c, err := st.cluster(name)
		if err != nil {
			return err
		}
		dir := l.clusterDir(name)
		if !c.Proxy.running() {
			p, err := startProcess(exe, proxyArgs(name, c.Port, c.APIServerPort, filepath.Join(dir, latencyFile)),
				append(childEnv(), proxyEnv+"="+proxyEnvValue), dir, filepath.Join(dir, proxyLog))
			if err != nil {
				return fmt.Errorf("cluster %s: %w", name, err)
			}
			record(&c.Proxy, p)
			l.log("started proxy %s (pid %d) on https://127.0.0.1:%d", name, p.PID, c.Port)
		}
		if !c.APIServer.running() {
			p, err := startProcess(st.KubeAPIServer, apiserverArgs(st, c, dir), childEnv(), dir, filepath.Join(dir, apiserverLog))
			if err != nil {
				return fmt.Errorf("cluster %s: %w", name, err)
			}
			record(&c.APIServer, p)
			l.log("started kube-apiserver %s (pid %d) on 127.0.0.1:%d", name, p.PID, c.APIServerPort)
		}
	}
	return nil
}

// ensureControl starts the control components of a cluster whose
// kube-apiserver is ready, after writing what they need, and waits until
// they work.
func (l *Lab) ensureControl(ctx context.Context, st *state, c *clusterState, record recorder) error {
	comps := controlComponents(st.Mode, st.isHost(c.Name))
	if len(comps) == 0 {
		return nil
	}
	cs, err := kubernetes.NewForConfig(l.directConfig(c))
	if err != nil {
		return fmt.Errorf("cluster %s: %w", c.Name, err)
	}
	dir := l.clusterDir(c.Name)
	if slices.Contains(comps, compKwok) {
		if err := bootstrapMember(ctx, cs, c); err != nil {
			return err
		}
		if !c.proc(compKwok).running() {
			if err := releaseNodeLeases(ctx, cs, c); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(filepath.Join(dir, kwokWorkDir), 0o700); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(dir, kwokStagesFile), kwokStages(), 0o644); err != nil {
			return fmt.Errorf("cluster %s: writing kwok's stages: %w", c.Name, err)
		}
	}
	for _, comp := range comps {
		if c.proc(comp).running() {
			continue
		}
		p, err := startProcess(st.binary(comp), componentArgs(st, comp, dir, st.isHost(c.Name)), componentEnv(comp, dir), dir,
			filepath.Join(dir, componentLog(comp)))
		if err != nil {
			return fmt.Errorf("cluster %s: %w", c.Name, err)
		}
		record(c.proc(comp), p)
		l.log("started %s %s (pid %d)", comp, c.Name, p.PID)
	}
	return l.waitWorking(ctx, cs, c, comps)
}

// exitedError says that a component of a cluster exited, quoting its log.
func (l *Lab) exitedError(cluster string, comp component) error {
	log := filepath.Join(l.clusterDir(cluster), componentLog(comp))
	return fmt.Errorf("cluster %s: %s exited; end of %s:\n%s", cluster, comp, log, logTail(log, logTailLines))
}

// etcdArgs is etcd's command line. etcd is private to the lab, so it
// listens on loopback only, peer port included (a second etcd on the
// machine would otherwise collide on the default 2380).
func etcdArgs(st *state, dataDir string) []string {
	client := fmt.Sprintf("http://127.0.0.1:%d", st.EtcdPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", st.EtcdPeerPort)
	return []string{
		st.Etcd,
		"--name=kubefed-lab",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=kubefed-lab=" + peer,
		"--logger=zap",
		"--log-outputs=stderr",
	}
}

// apiserverArgs is a cluster's kube-apiserver command line.
func apiserverArgs(st *state, c *clusterState, dir string) []string {
	path := func(f string) string { return filepath.Join(dir, f) }
	args := []string{
		st.KubeAPIServer,
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", st.EtcdPort),
		"--etcd-prefix=/" + c.Name,
		fmt.Sprintf("--secure-port=%d", c.APIServerPort),
		"--bind-address=127.0.0.1",
		"--tls-cert-file=" + path(servingCert),
		"--tls-private-key-file=" + path(servingKey),
		"--client-ca-file=" + path(caCertFile),
		"--token-auth-file=" + path(tokenAuthFile),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + path(saPubFile),
		"--service-account-signing-key-file=" + path(saKeyFile),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--profiling=false",
	}
	if st.Mode == ModePlain {
		// No controller manager creates the default service accounts
		// this plugin insists on.
		args = append(args, "--disable-admission-plugins=ServiceAccount")
	}
	return args
}

// childEnv is the environment of the lab's processes: the caller's, minus
// the marker that turns a binary into a proxy.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, proxyEnv+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// waitEtcd waits until etcd reports itself healthy.
func waitEtcd(ctx context.Context, port int, p procInfo, logPath string) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/health", port)
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var last error
	for {
		last = func() error {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return err
			}
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"health":"true"`) {
				return fmt.Errorf("%s: %s %s", url, resp.Status, body)
			}
			return nil
		}()
		if last == nil {
			return nil
		}
		if !p.running() {
			return fmt.Errorf("etcd exited before it was healthy; end of %s:\n%s", logPath, logTail(logPath, logTailLines))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("etcd not healthy at %s (%w): %w; end of %s:\n%s", url, last, ctx.Err(), logPath, logTail(logPath, logTailLines))
		case <-time.After(pollInterval):
		}
	}
}

// waitReady waits until a cluster answers /readyz through its proxy, and
// fails early, with the relevant log, if a process it depends on exits.
func (l *Lab) waitReady(ctx context.Context, c Cluster, cs *clusterState) error {
	dir := l.clusterDir(c.Name)
	var last error
	for {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second+2*time.Duration(cs.Latency))
		last = probeReady(pctx, c)
		cancel()
		if last == nil {
			return nil
		}
		if !cs.APIServer.running() {
			log := filepath.Join(dir, apiserverLog)
			return fmt.Errorf("cluster %s: kube-apiserver exited before it was ready; end of %s:\n%s", c.Name, log, logTail(log, logTailLines))
		}
		if !cs.Proxy.running() {
			log := filepath.Join(dir, proxyLog)
			return fmt.Errorf("cluster %s: the proxy exited; end of %s:\n%s", c.Name, log, logTail(log, logTailLines))
		}
		select {
		case <-ctx.Done():
			log := filepath.Join(dir, apiserverLog)
			return fmt.Errorf("cluster %s: not ready at %s/readyz (last answer: %w): %w; end of %s:\n%s",
				c.Name, c.URL, last, ctx.Err(), log, logTail(log, logTailLines))
		case <-time.After(4 * pollInterval):
		}
	}
}

// probeReady asks a cluster's /readyz as its administrator, verifying the
// serving certificate against the cluster's CA.
func probeReady(ctx context.Context, c Cluster) error {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.CAPEM) {
		return fmt.Errorf("cluster %s: no certificate in its CA file", c.Name)
	}
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		DisableKeepAlives: true,
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/readyz", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

// stopAll stops processes in parallel.
func stopAll(ctx context.Context, procs []procInfo) error {
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Go(func() { errs[i] = stopProcess(ctx, p, stopGrace) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Port choice. Ports are taken below Linux's default ephemeral range
// (32768-60999) so that an outgoing connection cannot grab the port of a
// stopped member before it starts again.
const (
	portRangeLow  = 20000
	portRangeHigh = 32000
	portAttempts  = 100
)

// choosePorts returns n consecutive free loopback ports: from base when it
// is set, else from a random free block.
func choosePorts(base, n int) ([]int, error) {
	if base > 0 {
		ports, err := freeBlock(base, n)
		if err != nil {
			return nil, fmt.Errorf("ports from %d: %w (choose another base port, or none)", base, err)
		}
		return ports, nil
	}
	for range portAttempts {
		if ports, err := freeBlock(portRangeLow+rand.IntN(portRangeHigh-portRangeLow-n), n); err == nil {
			return ports, nil
		}
	}
	return nil, fmt.Errorf("no block of %d free ports between %d and %d", n, portRangeLow, portRangeHigh)
}

// freeBlock checks that ports base..base+n-1 can be bound on loopback.
func freeBlock(base, n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for p := base; p < base+n; p++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, p)
	}
	return ports, nil
}
