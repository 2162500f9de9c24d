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
		if err := adopt(cfg, st); err != nil {
			return nil, err
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

// adopt checks that cfg can describe the lab recorded in st, and lets the
// binaries it names replace the recorded ones for whatever has to be
// (re)started.
func adopt(cfg Config, st *state) error {
	if len(cfg.Clusters) > 0 && !slices.Equal(cfg.Clusters, st.clusterNames()) {
		return fmt.Errorf("the lab in %s has clusters %v, not %v: run kubefed-lab down first to change them", cfg.Dir, st.clusterNames(), cfg.Clusters)
	}
	if cfg.Mode != "" && cfg.Mode != st.Mode {
		return fmt.Errorf("the lab in %s runs in %s mode, not %s: run kubefed-lab down first to change it", cfg.Dir, st.Mode, cfg.Mode)
	}
	if cfg.Members != nil {
		cfg.Log("the lab in %s exists: its nodes stay as they are (change them with kubefed-lab nodes, or run down first)", cfg.Dir)
	}
	for _, b := range []struct{ given, recorded *string }{
		{&cfg.KubeAPIServer, &st.KubeAPIServer},
		{&cfg.Etcd, &st.Etcd},
		{&cfg.KubeControllerManager, &st.KubeControllerManager},
		{&cfg.KubeScheduler, &st.KubeScheduler},
		{&cfg.Kwok, &st.Kwok},
	} {
		if *b.given != "" {
			*b.recorded = *b.given
		}
	}
	return nil
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
	// Control components first, so they do not spend their grace period
	// retrying a vanished apiserver; etcd last, for the same reason.
	var control, servers []procInfo
	for _, c := range st.Clusters {
		control = append(control, c.ControllerManager, c.Scheduler, c.Kwok)
		servers = append(servers, c.Proxy, c.APIServer)
	}
	for _, procs := range [][]procInfo{control, servers, {st.EtcdProcess}} {
		if err := stopAll(ctx, procs); err != nil {
			return err
		}
	}
	return os.RemoveAll(l.dir)
}

// Stop stops the named cluster: its proxy first, then its control
// components, then its kube-apiserver. Connections open at the time are
// cut, and new ones to the cluster's URL are refused. Refused rather than
// accepted and reset: client-go retries a GET ten times over about ten
// seconds on a reset, but fails at once on a refusal, which keeps failure
// tests fast.
func (l *Lab) Stop(ctx context.Context, name string) error {
	return l.update(ctx, func(st *state) error {
		c, err := st.cluster(name)
		if err != nil {
			return err
		}
		for _, step := range [][]component{{compProxy}, {compKwok, compScheduler, compControllerManager}, {compAPIServer}} {
			procs := make([]procInfo, len(step))
			for i, comp := range step {
				procs[i] = *c.proc(comp)
			}
			if err := stopAll(ctx, procs); err != nil {
				return fmt.Errorf("cluster %s: stopping %v: %w", name, step, err)
			}
			for _, comp := range step {
				*c.proc(comp) = procInfo{}
			}
		}
		l.log("stopped %s", name)
		return nil
	})
}

// Start starts the named cluster again (its kube-apiserver, its proxy,
// with the latency set last, and its control components), with the same
// port, certificates and etcd data, and waits until it is ready. A running
// cluster is only checked for readiness, and whatever of it stopped is
// started.
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
// 2*d more. Zero removes it. It returns once the proxy applies it, to open
// connections too.
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
			if err := waitLatencyApplied(ctx, appliedLatencyPath(filepath.Join(l.clusterDir(name), latencyFile)), d); err != nil {
				return fmt.Errorf("cluster %s: %w", name, err)
			}
		}
		l.log("latency of %s: %v each way", name, d)
		return nil
	})
}

// Connections is how many client connections the named cluster's proxy
// accepted since it started.
func (l *Lab) Connections(name string) (int64, error) {
	if l.Cluster(name).Name == "" {
		return 0, fmt.Errorf("the lab has no cluster %q", name)
	}
	return readConnectionsFile(filepath.Join(l.clusterDir(name), connectionsFile))
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
	// Mode is ModeFull or ModePlain.
	Mode string
	// EtcdURL is etcd's client URL.
	EtcdURL string
	// EtcdPID is etcd's pid, 0 if it does not run.
	EtcdPID int
	// EtcdRSS is etcd's resident memory in bytes.
	EtcdRSS int64
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
	// Components lists every process of the cluster, the kube-apiserver
	// and the proxy first, then the control components of a full lab.
	Components []ComponentStatus
	// Ready reports whether /readyz answered ok through the proxy.
	Ready bool
	// Latency is the one-way delay of the proxy.
	Latency time.Duration
	// Connections is how many client connections the proxy accepted since
	// it started.
	Connections int64
	// Region is the region of a member's nodes; empty on the host and in a
	// plain lab.
	Region string
	// Nodes is the number of the lab's simulated nodes in the cluster, and
	// NodesReady how many of them are Ready; both are read from the
	// cluster when it is ready.
	Nodes, NodesReady int
}

// ComponentStatus is one process of a cluster.
type ComponentStatus struct {
	// Name is kube-apiserver, proxy, kube-controller-manager,
	// kube-scheduler or kwok.
	Name string
	// PID is its pid, 0 if it does not run.
	PID int
	// RSS is its resident memory in bytes, 0 if it does not run.
	RSS int64
}

// Status reports which processes run and which clusters answer, probing
// each running cluster's /readyz, and counting its Ready nodes, briefly.
func (l *Lab) Status(ctx context.Context) (Status, error) {
	st, err := readState(l.dir)
	if err != nil {
		return Status{}, err
	}
	s := Status{
		Dir:     l.dir,
		Mode:    st.Mode,
		EtcdURL: fmt.Sprintf("http://127.0.0.1:%d", st.EtcdPort),
		EtcdPID: livePID(st.EtcdProcess),
	}
	s.EtcdRSS = residentBytes(s.EtcdPID)
	s.Clusters = make([]ClusterStatus, len(st.Clusters))
	var wg sync.WaitGroup
	for i := range st.Clusters {
		cs := &st.Clusters[i]
		s.Clusters[i] = ClusterStatus{
			Cluster:  l.Cluster(cs.Name),
			PID:      livePID(cs.APIServer),
			ProxyPID: livePID(cs.Proxy),
			Latency:  time.Duration(cs.Latency),
			Region:   cs.Region,
		}
		s.Clusters[i].Connections, _ = readConnectionsFile(filepath.Join(l.clusterDir(cs.Name), connectionsFile))
		for _, comp := range append([]component{compAPIServer, compProxy}, controlComponents(st.Mode, st.isHost(cs.Name))...) {
			pid := livePID(*cs.proc(comp))
			s.Clusters[i].Components = append(s.Clusters[i].Components, ComponentStatus{Name: string(comp), PID: pid, RSS: residentBytes(pid)})
		}
		if s.Clusters[i].PID == 0 || s.Clusters[i].ProxyPID == 0 {
			continue
		}
		wg.Go(func() {
			pctx, cancel := context.WithTimeout(ctx, 3*time.Second+2*time.Duration(cs.Latency))
			defer cancel()
			s.Clusters[i].Ready = probeReady(pctx, s.Clusters[i].Cluster) == nil
			if s.Clusters[i].Ready && len(cs.Nodes) > 0 {
				s.Clusters[i].Nodes, s.Clusters[i].NodesReady = l.countNodes(pctx, cs)
			}
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
	if cfg.Mode == "" {
		cfg.Mode = ModeFull
	}
	if cfg.Etcd == "" {
		cfg.Etcd = defaultEtcd()
	}
	if err := checkBinaries(cfg); err != nil {
		return nil, err
	}
	members, err := memberNodes(cfg)
	if err != nil {
		return nil, err
	}
	ports, err := choosePorts(cfg.BasePort, 2+2*len(cfg.Clusters))
	if err != nil {
		return nil, err
	}
	st := &state{
		Mode:                  cfg.Mode,
		KubeAPIServer:         cfg.KubeAPIServer,
		KubeControllerManager: cfg.KubeControllerManager,
		KubeScheduler:         cfg.KubeScheduler,
		Kwok:                  cfg.Kwok,
		Etcd:                  cfg.Etcd,
		EtcdPort:              ports[0],
		EtcdPeerPort:          ports[1],
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, etcdDir), 0o700); err != nil {
		return nil, err
	}
	now := time.Now()
	for i, name := range cfg.Clusters {
		c := clusterState{Name: name, Port: ports[2+2*i], APIServerPort: ports[3+2*i]}
		if m, ok := members[name]; ok {
			c.Region, c.Nodes = m.region, m.nodes
		}
		if err := createCluster(filepath.Join(cfg.Dir, clustersDir, name), c, now); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", name, err)
		}
		st.Clusters = append(st.Clusters, c)
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

// checkBinaries checks the programs a new lab of cfg's mode runs.
func checkBinaries(cfg Config) error {
	checks := []struct{ what, path, hint string }{
		{"kube-apiserver", cfg.KubeAPIServer, "set " + EnvKubeAPIServer + " or pass -kube-apiserver"},
		{"etcd", cfg.Etcd, "build it with `scripts/tool.sh etcd` and set " + EnvEtcd + " to the path it prints, or pass -etcd"},
	}
	if cfg.Mode == ModeFull {
		const plain = "; or run a plain lab of kube-apiservers only (-plain)"
		checks = append(checks,
			struct{ what, path, hint string }{"kube-controller-manager", cfg.KubeControllerManager, "set " + EnvKubeControllerManager + " or pass -kube-controller-manager" + plain},
			struct{ what, path, hint string }{"kube-scheduler", cfg.KubeScheduler, "set " + EnvKubeScheduler + " or pass -kube-scheduler" + plain},
			struct{ what, path, hint string }{"kwok", cfg.Kwok, "set " + EnvKwok + " or pass -kwok" + plain},
		)
	}
	for _, c := range checks {
		if err := checkBinary(c.what, c.path, c.hint); err != nil {
			return err
		}
	}
	return nil
}

// memberSetup is the region and nodes a new member is created with.
type memberSetup struct {
	region string
	nodes  []Node
}

// memberNodes works out each member's region and nodes in a full lab:
// cfg.Members where given, DefaultMember otherwise.
func memberNodes(cfg Config) (map[string]memberSetup, error) {
	for name := range cfg.Members {
		switch i := slices.Index(cfg.Clusters, name); {
		case i < 0:
			return nil, fmt.Errorf("nodes are set for cluster %s, which is not in the lab (clusters: %v)", name, cfg.Clusters)
		case i == 0:
			return nil, fmt.Errorf("nodes are set for cluster %s, the host: only members have nodes", name)
		}
	}
	out := map[string]memberSetup{}
	if cfg.Mode == ModePlain {
		return out, nil
	}
	for _, name := range cfg.Clusters[1:] {
		m, ok := cfg.Members[name]
		if !ok {
			m = DefaultMember(name)
		}
		if m.Region == "" {
			m.Region = DefaultMember(name).Region
		}
		nodes, err := expandNodes(name, m)
		if err != nil {
			return nil, err
		}
		out[name] = memberSetup{region: m.Region, nodes: nodes}
	}
	return out, nil
}

// createCluster writes one cluster's CA, serving and admin certificates,
// service-account key, token and empty latency, and the certificates and
// kubeconfigs of its control components.
func createCluster(dir string, c clusterState, now time.Time) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := func(f string) string { return filepath.Join(dir, f) }
	ca, err := newCA("kubefed-lab "+c.Name+" CA", now)
	if err != nil {
		return err
	}
	serving, err := ca.issueServing("kube-apiserver "+c.Name, now)
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
	server := fmt.Sprintf("https://127.0.0.1:%d", c.APIServerPort)
	for _, comp := range []component{compControllerManager, compScheduler, compKwok} {
		kp, err := ca.issueClient(componentUsers[comp], nil, now)
		if err != nil {
			return err
		}
		if err := kp.write(path(componentCert(comp)), path(componentKey(comp))); err != nil {
			return err
		}
		err = writeComponentKubeconfig(path(componentKubeconfig(comp)), server, path(caCertFile), path(componentCert(comp)), path(componentKey(comp)))
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
