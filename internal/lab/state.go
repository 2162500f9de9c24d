package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// stateVersion changes when the state file stops being readable by older
// code; a lab recorded with another version must be brought down first.
// Version 1 labs, recorded before labs had modes, are read as plain ones:
// that is what they ran, so they can still be stopped and brought down.
const (
	stateVersion      = 2
	plainStateVersion = 1
)

// Names inside the state directory.
const (
	stateFile      = "state.json"
	lockFile       = ".lock"
	kubeconfigFile = "kubeconfig"
	clustersDir    = "clusters"
	etcdDir        = "etcd"
)

// state is what a process needs to find and manage a lab started by another
// process. It is stored as JSON in the state directory.
type state struct {
	Version               int            `json:"version"`
	Mode                  string         `json:"mode"`
	KubeAPIServer         string         `json:"kubeAPIServer"`
	KubeControllerManager string         `json:"kubeControllerManager,omitempty"`
	KubeScheduler         string         `json:"kubeScheduler,omitempty"`
	Kwok                  string         `json:"kwok,omitempty"`
	Etcd                  string         `json:"etcd"`
	EtcdPort              int            `json:"etcdPort"`
	EtcdPeerPort          int            `json:"etcdPeerPort"`
	EtcdProcess           procInfo       `json:"etcdProcess"`
	Clusters              []clusterState `json:"clusters"`
}

// clusterState records one cluster. Port is the one clients use (the
// latency proxy); APIServerPort is kube-apiserver's own, behind the proxy.
// Nodes are the simulated nodes the lab keeps in the cluster: created
// when missing, whenever the cluster starts.
type clusterState struct {
	Name              string   `json:"name"`
	Port              int      `json:"port"`
	APIServerPort     int      `json:"apiserverPort"`
	Latency           duration `json:"latency"`
	Region            string   `json:"region,omitempty"`
	Nodes             []Node   `json:"nodes,omitempty"`
	APIServer         procInfo `json:"apiserver"`
	Proxy             procInfo `json:"proxy"`
	ControllerManager procInfo `json:"controllerManager"`
	Scheduler         procInfo `json:"scheduler"`
	Kwok              procInfo `json:"kwok"`
}

// duration is a time.Duration stored as text ("80ms") so the file reads well.
type duration time.Duration

// MarshalJSON implements json.Marshaler.
func (d duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}

// cluster returns the record of the named cluster.
func (s *state) cluster(name string) (*clusterState, error) {
	for i := range s.Clusters {
		if s.Clusters[i].Name == name {
			return &s.Clusters[i], nil
		}
	}
	names := make([]string, len(s.Clusters))
	for i, c := range s.Clusters {
		names[i] = c.Name
	}
	return nil, fmt.Errorf("no cluster %q in this lab (clusters: %v)", name, names)
}

// isHost reports whether name is the federation host: the first cluster.
func (s *state) isHost(name string) bool {
	return len(s.Clusters) > 0 && s.Clusters[0].Name == name
}

// clusterNames lists the clusters in order, the host first.
func (s *state) clusterNames() []string {
	names := make([]string, len(s.Clusters))
	for i, c := range s.Clusters {
		names[i] = c.Name
	}
	return names
}

// ErrNoLab is wrapped by the errors of Load, and of every operation that
// needs a lab, when the directory holds none.
var ErrNoLab = errors.New("no lab")

// readState loads the state file of dir. It returns an error wrapping
// ErrNoLab when there is none.
func readState(dir string) (*state, error) {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s (start one with kubefed-lab up)", ErrNoLab, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the lab state: %w", err)
	}
	var s state
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("reading the lab state %s: %w", filepath.Join(dir, stateFile), err)
	}
	if s.Version == plainStateVersion {
		s.Mode, s.Version = ModePlain, stateVersion
	}
	if s.Version != stateVersion {
		return nil, fmt.Errorf("the lab in %s was recorded by another version (state version %d, want %d): stop its processes and remove the directory", dir, s.Version, stateVersion)
	}
	return &s, nil
}

// writeState replaces the state file atomically, so a reader never sees a
// half-written file.
func writeState(dir string, s *state) error {
	s.Version = stateVersion
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, stateFile), append(b, '\n'), 0o644)
}

// writeFileAtomic writes through a temporary file and a rename.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// lockPollInterval is how often a waiting caller retries the lock; flock
// itself cannot be interrupted by a context.
const lockPollInterval = 50 * time.Millisecond

// lock takes the exclusive lock of dir, creating dir if needed, and returns
// the function that releases it. Because Down removes the directory while
// holding the lock, a waiter may end up holding the lock of a deleted file;
// it then starts over on the new one.
func lock(ctx context.Context, dir string) (unlock func(), err error) {
	path := filepath.Join(dir, lockFile)
	for {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating the lab directory: %w", err)
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("opening the lab lock: %w", err)
		}
		for {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if !errors.Is(err, syscall.EWOULDBLOCK) {
				break
			}
			select {
			case <-ctx.Done():
				f.Close()
				return nil, fmt.Errorf("waiting for another kubefed-lab command on %s: %w", dir, ctx.Err())
			case <-time.After(lockPollInterval):
			}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking the lab: %w", err)
		}
		held, herr := f.Stat()
		cur, cerr := os.Stat(path)
		if herr == nil && cerr == nil && os.SameFile(held, cur) {
			return func() { f.Close() }, nil
		}
		f.Close()
	}
}
