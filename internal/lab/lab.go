package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Lab is a federation running on loopback, as recorded in its state
// directory. Its methods may be called from any process, not only the one
// that started the lab.
type Lab struct {
	dir          string
	st           *state
	clusters     []Cluster
	created      bool
	readyTimeout time.Duration
	log          func(format string, args ...any)
}

// Cluster is how to reach one cluster of the lab as its administrator.
type Cluster struct {
	// Name names the cluster, and its kubeconfig context, cluster and user.
	Name string
	// URL is the https address clients use. It goes through the cluster's
	// latency proxy and stays the same for the life of the lab.
	URL string
	// CAPEM is the PEM certificate of the cluster's own CA, which signed
	// its serving certificate and the client certificates it accepts.
	CAPEM []byte
	// Token is a static bearer token of a user in group system:masters.
	Token string
	// KubeconfigPath is the lab's kubeconfig, holding every cluster.
	KubeconfigPath string
	// Context is the cluster's context in KubeconfigPath.
	Context string
	// CAFile holds CAPEM.
	CAFile string
	// TokenFile holds Token.
	TokenFile string
	// ClientCertFile and ClientKeyFile are a client certificate and key of
	// an administrator (user lab-admin in group system:masters).
	ClientCertFile, ClientKeyFile string
}

// The administrator identities written for every cluster.
const (
	adminUser  = "lab-admin"
	adminGroup = "system:masters"
)

// Files in each cluster's directory.
const (
	caCertFile     = "ca.crt"
	caKeyFile      = "ca.key"
	servingCert    = "apiserver.crt"
	servingKey     = "apiserver.key"
	adminCertFile  = "admin.crt"
	adminKeyFile   = "admin.key"
	saKeyFile      = "sa.key"
	saPubFile      = "sa.pub"
	tokenFile      = "token"
	tokenAuthFile  = "tokens.csv"
	latencyFile    = "latency"
	apiserverLog   = "apiserver.log"
	proxyLog       = "proxy.log"
	etcdLog        = "etcd.log"
	etcdDataSubdir = "data"
)

// Up starts the lab described by cfg, or completes the one already recorded
// in cfg.Dir: it starts whatever is not running, waits until every
// kube-apiserver answers /readyz through its proxy, and returns. Calling it
// on a lab that runs changes nothing. If it fails, it stops the processes it
// started itself and leaves the logs in place.
func Up(ctx context.Context, cfg Config) (*Lab, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(cfg.Dir)
	existed := statErr == nil
	unlock, err := lock(ctx, cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()

	st, err := readState(cfg.Dir)
	created := false
	switch {
	case errors.Is(err, ErrNoLab):
		// Down removes the whole directory: never adopt one holding
		// anything but the remains of an earlier attempt.
		if err := checkEmpty(cfg.Dir); err != nil {
			return nil, err
		}
		if st, err = create(cfg); err != nil {
			if !existed {
				_ = os.RemoveAll(cfg.Dir)
			}
			return nil, err
		}
		created = true
	case err != nil:
		return nil, err
	default:
		if len(cfg.Clusters) > 0 && !slices.Equal(cfg.Clusters, st.clusterNames()) {
			return nil, fmt.Errorf("the lab in %s has clusters %v, not %v: run kubefed-lab down first to change them", cfg.Dir, st.clusterNames(), cfg.Clusters)
		}
		// A binary given now wins over the recorded one, for whatever has
		// to be (re)started.
		if cfg.KubeAPIServer != "" {
			st.KubeAPIServer = cfg.KubeAPIServer
		}
		if cfg.Etcd != "" {
			st.Etcd = cfg.Etcd
		}
	}
	l, err := newLab(cfg.Dir, st)
	if err != nil {
		return nil, err
	}
	l.created, l.readyTimeout, l.log = created, cfg.ReadyTimeout, cfg.Log
	if err := l.ensure(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// Load attaches to the lab recorded in dir ("" means DefaultDir()) without
// starting or checking anything. Its error wraps ErrNoLab when there is no
// lab there.
func Load(dir string) (*Lab, error) {
	cfg, err := Config{Dir: dir}.resolve()
	if err != nil {
		return nil, err
	}
	st, err := readState(cfg.Dir)
	if err != nil {
		return nil, err
	}
	l, err := newLab(cfg.Dir, st)
	if err != nil {
		return nil, err
	}
	l.readyTimeout, l.log = cfg.ReadyTimeout, cfg.Log
	return l, nil
}

// newLab builds the Lab of a state, reading each cluster's credentials.
func newLab(dir string, st *state) (*Lab, error) {
	l := &Lab{dir: dir, st: st}
	for _, cs := range st.Clusters {
		cdir := l.clusterDir(cs.Name)
		ca, err := os.ReadFile(filepath.Join(cdir, caCertFile))
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w (the lab directory is damaged: run kubefed-lab down, then up)", cs.Name, err)
		}
		tok, err := os.ReadFile(filepath.Join(cdir, tokenFile))
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w (the lab directory is damaged: run kubefed-lab down, then up)", cs.Name, err)
		}
		l.clusters = append(l.clusters, Cluster{
			Name:           cs.Name,
			URL:            fmt.Sprintf("https://127.0.0.1:%d", cs.Port),
			CAPEM:          ca,
			Token:          strings.TrimSpace(string(tok)),
			KubeconfigPath: l.KubeconfigPath(),
			Context:        cs.Name,
			CAFile:         filepath.Join(cdir, caCertFile),
			TokenFile:      filepath.Join(cdir, tokenFile),
			ClientCertFile: filepath.Join(cdir, adminCertFile),
			ClientKeyFile:  filepath.Join(cdir, adminKeyFile),
		})
	}
	return l, nil
}

// Dir is the lab's state directory.
func (l *Lab) Dir() string { return l.dir }

// KubeconfigPath is the kubeconfig with one context per cluster.
func (l *Lab) KubeconfigPath() string { return filepath.Join(l.dir, kubeconfigFile) }

// Created reports whether the Up call that returned l created the lab, as
// opposed to finding it recorded. A TestMain can use it to bring down only a
// lab it created itself.
func (l *Lab) Created() bool { return l.created }

// Clusters returns every cluster, the host first.
func (l *Lab) Clusters() []Cluster { return slices.Clone(l.clusters) }

// Cluster returns the named cluster, or the zero Cluster if there is none.
func (l *Lab) Cluster(name string) Cluster {
	for _, c := range l.clusters {
		if c.Name == name {
			return c
		}
	}
	return Cluster{}
}

// Host returns the federation host: the first cluster.
func (l *Lab) Host() Cluster { return l.clusters[0] }

// Members returns every cluster but the host, in order.
func (l *Lab) Members() []Cluster { return slices.Clone(l.clusters[1:]) }

// Down stops every process of the lab, verifying each pid is still the
// process the lab started, and removes the state directory.
func (l *Lab) Down(ctx context.Context) error {
	unlock, err := lock(ctx, l.dir)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := readState(l.dir)
	if errors.Is(err, ErrNoLab) {
		// Brought down by someone else meanwhile; lock recreated the
		// directory, empty.
		if checkEmpty(l.dir) == nil {
			return os.RemoveAll(l.dir)
		}
		return nil
	}
	if err != nil {
		return err
	}
	var procs []procInfo
	for _, c := range st.Clusters {
		procs = append(procs, c.Proxy, c.APIServer)
	}
	// etcd goes last, so apiservers do not spend their grace period
	// retrying a vanished store.
	if err := stopAll(ctx, procs); err != nil {
		return err
	}
	if err := stopAll(ctx, []procInfo{st.EtcdProcess}); err != nil {
		return err
	}
	return os.RemoveAll(l.dir)
}

// Stop stops the named cluster: its proxy first, then its kube-apiserver.
// Connections open at the time are cut, and new ones to the cluster's URL
// are refused. Refused rather than accepted and reset: client-go retries a
// GET ten times over about ten seconds on a reset, but fails at once on a
// refusal, which keeps failure tests fast.
func (l *Lab) Stop(ctx context.Context, name string) error {
	return l.update(ctx, func(st *state) error {
		c, err := st.cluster(name)
		if err != nil {
			return err
		}
		if err := stopProcess(ctx, c.Proxy, stopGrace); err != nil {
			return fmt.Errorf("cluster %s: stopping the proxy: %w", name, err)
		}
		c.Proxy = procInfo{}
		if err := stopProcess(ctx, c.APIServer, stopGrace); err != nil {
			return fmt.Errorf("cluster %s: stopping kube-apiserver: %w", name, err)
		}
		c.APIServer = procInfo{}
		l.log("stopped %s", name)
		return nil
	})
}

// Start starts the named cluster again (its kube-apiserver and its proxy,
// with the latency set last), with the same port, certificates and etcd
// data, and waits until it is ready. A running cluster is only checked for
// readiness.
func (l *Lab) Start(ctx context.Context, name string) error {
	return l.update(ctx, func(st *state) error {
		if _, err := st.cluster(name); err != nil {
			return err
		}
		return l.ensureOnly(ctx, st, name)
	})
}

// SetLatency sets the one-way delay the named cluster's proxy adds to every
// chunk of data in each direction, so a request and its answer take at least
// 2*d more. Zero removes it. It applies at once, to open connections too.
func (l *Lab) SetLatency(ctx context.Context, name string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("latency %v: must not be negative", d)
	}
	return l.update(ctx, func(st *state) error {
		c, err := st.cluster(name)
		if err != nil {
			return err
		}
		if err := writeLatencyFile(filepath.Join(l.clusterDir(name), latencyFile), d); err != nil {
			return err
		}
		c.Latency = duration(d)
		if c.Proxy.running() {
			if err := syscall.Kill(c.Proxy.PID, syscall.SIGHUP); err != nil {
				return fmt.Errorf("cluster %s: telling the proxy (pid %d) about the new latency: %w", name, c.Proxy.PID, err)
			}
		}
		l.log("latency of %s: %v each way", name, d)
		return nil
	})
}

// update runs fn on the current state under the lab's lock and saves the
// result, even when fn fails part way (the pids must not be lost).
func (l *Lab) update(ctx context.Context, fn func(*state) error) error {
	unlock, err := lock(ctx, l.dir)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := readState(l.dir)
	if err != nil {
		return err
	}
	ferr := fn(st)
	if err := writeState(l.dir, st); err != nil {
		return errors.Join(ferr, err)
	}
	l.st = st
	return ferr
}

// Status describes what runs.
type Status struct {
	// Dir is the state directory.
	Dir string
	// EtcdURL is etcd's client URL.
	EtcdURL string
	// EtcdPID is etcd's pid, 0 if it does not run.
	EtcdPID int
	// Clusters describes each cluster, the host first.
	Clusters []ClusterStatus
}

// ClusterStatus describes one cluster.
type ClusterStatus struct {
	Cluster
	// PID is the kube-apiserver's pid, 0 if it does not run.
	PID int
	// ProxyPID is the latency proxy's pid, 0 if it does not run.
	ProxyPID int
	// Ready reports whether /readyz answered ok through the proxy.
	Ready bool
	// Latency is the one-way delay of the proxy.
	Latency time.Duration
}

// Status reports which processes run and which clusters answer, probing
// each running cluster's /readyz briefly.
func (l *Lab) Status(ctx context.Context) (Status, error) {
	st, err := readState(l.dir)
	if err != nil {
		return Status{}, err
	}
	s := Status{
		Dir:     l.dir,
		EtcdURL: fmt.Sprintf("http://127.0.0.1:%d", st.EtcdPort),
		EtcdPID: livePID(st.EtcdProcess),
	}
	s.Clusters = make([]ClusterStatus, len(st.Clusters))
	var wg sync.WaitGroup
	for i, cs := range st.Clusters {
		s.Clusters[i] = ClusterStatus{
			Cluster:  l.Cluster(cs.Name),
			PID:      livePID(cs.APIServer),
			ProxyPID: livePID(cs.Proxy),
			Latency:  time.Duration(cs.Latency),
		}
		if s.Clusters[i].PID == 0 || s.Clusters[i].ProxyPID == 0 {
			continue
		}
		wg.Go(func() {
			pctx, cancel := context.WithTimeout(ctx, 3*time.Second+2*time.Duration(cs.Latency))
			defer cancel()
			s.Clusters[i].Ready = probeReady(pctx, s.Clusters[i].Cluster) == nil
		})
	}
	wg.Wait()
	return s, nil
}

// livePID is p's pid if it runs, else 0.
func livePID(p procInfo) int {
	if p.running() {
		return p.PID
	}
	return 0
}

// clusterDir is where a cluster's credentials, logs and latency live.
func (l *Lab) clusterDir(name string) string { return filepath.Join(l.dir, clustersDir, name) }

// checkEmpty accepts a directory holding only what a failed Up may have
// left: the lock, credentials, etcd data and temporary files.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		switch n := e.Name(); {
		case n == lockFile, n == clustersDir, n == etcdDir, n == kubeconfigFile, strings.HasPrefix(n, "."+stateFile+"."), strings.HasPrefix(n, "."+kubeconfigFile+"."):
		default:
			return fmt.Errorf("%s holds %s but no lab: a lab needs a directory of its own, since down removes it", dir, n)
		}
	}
	return nil
}

// create makes a new lab's directory: ports, credentials, kubeconfig and a
// state file without processes.
func create(cfg Config) (*state, error) {
	if len(cfg.Clusters) == 0 {
		cfg.Clusters = DefaultClusters
	}
	if cfg.Etcd == "" {
		cfg.Etcd = defaultEtcd()
	}
	if err := checkBinary("kube-apiserver", cfg.KubeAPIServer, "set "+EnvKubeAPIServer+" or pass -kube-apiserver"); err != nil {
		return nil, err
	}
	if err := checkBinary("etcd", cfg.Etcd, "install Debian's etcd-server package, or set "+EnvEtcd+" or pass -etcd"); err != nil {
		return nil, err
	}
	ports, err := choosePorts(cfg.BasePort, 2+2*len(cfg.Clusters))
	if err != nil {
		return nil, err
	}
	st := &state{
		KubeAPIServer: cfg.KubeAPIServer,
		Etcd:          cfg.Etcd,
		EtcdPort:      ports[0],
		EtcdPeerPort:  ports[1],
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, etcdDir), 0o700); err != nil {
		return nil, err
	}
	now := time.Now()
	for i, name := range cfg.Clusters {
		if err := createCluster(filepath.Join(cfg.Dir, clustersDir, name), name, now); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", name, err)
		}
		st.Clusters = append(st.Clusters, clusterState{Name: name, Port: ports[2+2*i], APIServerPort: ports[3+2*i]})
	}
	l, err := newLab(cfg.Dir, st)
	if err != nil {
		return nil, err
	}
	if err := writeKubeconfig(l.KubeconfigPath(), l.clusters); err != nil {
		return nil, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	if err := writeState(cfg.Dir, st); err != nil {
		return nil, err
	}
	return st, nil
}

// createCluster writes one cluster's CA, serving and admin certificates,
// service-account key, token and empty latency.
func createCluster(dir, name string, now time.Time) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := func(f string) string { return filepath.Join(dir, f) }
	ca, err := newCA("kubefed-lab "+name+" CA", now)
	if err != nil {
		return err
	}
	serving, err := ca.issueServing("kube-apiserver "+name, now)
	if err != nil {
		return err
	}
	admin, err := ca.issueClient(adminUser, []string{adminGroup}, now)
	if err != nil {
		return err
	}
	saKey, saPub, err := newServiceAccountKey()
	if err != nil {
		return err
	}
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return err
	}
	token := hex.EncodeToString(tok)
	// Format of --token-auth-file: token,user,uid,"group1,group2".
	tokens := fmt.Sprintf("%s,%s,%s,%q\n", token, adminUser, adminUser, adminGroup)
	for _, err := range []error{
		ca.write(path(caCertFile), path(caKeyFile)),
		serving.write(path(servingCert), path(servingKey)),
		admin.write(path(adminCertFile), path(adminKeyFile)),
		os.WriteFile(path(saKeyFile), saKey, 0o600),
		os.WriteFile(path(saPubFile), saPub, 0o644),
		os.WriteFile(path(tokenFile), []byte(token+"\n"), 0o600),
		os.WriteFile(path(tokenAuthFile), []byte(tokens), 0o600),
		writeLatencyFile(path(latencyFile), 0),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// ClientCertificate signs a client certificate for user and groups with
// the named cluster's CA, which that cluster (and only that one) accepts.
// It returns the certificate and its private key as PEM.
func (l *Lab) ClientCertificate(cluster, user string, groups []string) (certPEM, keyPEM []byte, err error) {
	if l.Cluster(cluster).Name == "" {
		return nil, nil, fmt.Errorf("no cluster %q in this lab", cluster)
	}
	dir := l.clusterDir(cluster)
	ca, err := loadKeyPair(filepath.Join(dir, caCertFile), filepath.Join(dir, caKeyFile))
	if err != nil {
		return nil, nil, fmt.Errorf("cluster %s: loading the CA: %w", cluster, err)
	}
	kp, err := ca.issueClient(user, groups, time.Now())
	if err != nil {
		return nil, nil, err
	}
	return kp.certPEM, kp.keyPEM, nil
}
