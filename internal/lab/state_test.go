package lab

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := &state{
		Mode:                  ModeFull,
		KubeAPIServer:         "/bin/kube-apiserver",
		KubeControllerManager: "/bin/kube-controller-manager",
		KubeScheduler:         "/bin/kube-scheduler",
		Kwok:                  "/bin/kwok",
		Etcd:                  "/usr/bin/etcd",
		EtcdPort:              20000,
		EtcdPeerPort:          20001,
		EtcdProcess:           procInfo{PID: 42, Args: []string{"/usr/bin/etcd", "--name=x"}},
		Clusters: []clusterState{
			{Name: "host", Port: 20002, APIServerPort: 20003, ControllerManager: procInfo{PID: 9, Args: []string{"kcm"}}},
			{Name: "berlin", Port: 20004, APIServerPort: 20005, Latency: duration(80 * time.Millisecond), Region: "eu-central",
				Nodes:     []Node{{Name: "berlin-1", Zone: "eu-central-a", CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi"), Pods: 110}},
				APIServer: procInfo{PID: 7, Args: []string{"kas"}}, Proxy: procInfo{PID: 8, Args: []string{"p"}},
				Scheduler: procInfo{PID: 10, Args: []string{"s"}}, Kwok: procInfo{PID: 11, Args: []string{"k"}}},
		},
	}
	if err := writeState(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Quantities compare by value: a parsed one caches its string.
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	// The file is meant to be read by people too.
	raw, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"latency": "80ms"`) {
		t.Errorf("latency not stored as text:\n%s", raw)
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after writeState, want only %s", len(entries), stateFile)
	}
}

func TestReadStateErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := readState(dir); !errors.Is(err, ErrNoLab) {
		t.Errorf("empty directory: %v, want ErrNoLab", err)
	}
	if err := os.WriteFile(filepath.Join(dir, stateFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readState(dir); err == nil || errors.Is(err, ErrNoLab) {
		t.Errorf("corrupt state: %v, want a parse error", err)
	}
	v1, _ := json.Marshal(map[string]any{"version": 1, "kubeAPIServer": "/kas", "clusters": []map[string]any{{"name": "host", "apiserver": map[string]any{"pid": 7}}}})
	if err := os.WriteFile(filepath.Join(dir, stateFile), v1, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := readState(dir); err != nil || st.Mode != ModePlain || st.Clusters[0].APIServer.PID != 7 {
		t.Errorf("a lab recorded before modes: %+v, %v; want it read as a plain lab with its pids", st, err)
	}
	b, _ := json.Marshal(map[string]any{"version": stateVersion + 1})
	if err := os.WriteFile(filepath.Join(dir, stateFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readState(dir); err == nil || !strings.Contains(err.Error(), "another version") {
		t.Errorf("state of another version: %v, want a version error", err)
	}
}

func TestStateClusterLookup(t *testing.T) {
	s := &state{Clusters: []clusterState{{Name: "host"}, {Name: "berlin"}}}
	c, err := s.cluster("berlin")
	if err != nil || c.Name != "berlin" {
		t.Fatalf("cluster(berlin) = %v, %v", c, err)
	}
	c.Port = 1
	if s.Clusters[1].Port != 1 {
		t.Error("cluster() returned a copy; changes must reach the state")
	}
	if _, err := s.cluster("paris"); err == nil || !strings.Contains(err.Error(), "berlin") {
		t.Errorf("cluster(paris) = %v, want an error listing the clusters", err)
	}
	if !s.isHost("host") || s.isHost("berlin") || (&state{}).isHost("host") {
		t.Error("isHost: want the first cluster only")
	}
}

func TestLockExcludes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	unlock, err := lock(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*lockPollInterval)
	defer cancel()
	if _, err := lock(ctx, dir); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock while held: %v, want a deadline error", err)
	}
	unlock()
	unlock2, err := lock(t.Context(), dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}

// TestLockSurvivesRemoval covers Down, which removes the directory while
// holding the lock: a waiter must then lock the new directory, not the
// deleted file.
func TestLockSurvivesRemoval(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	unlock, err := lock(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	release := make(chan struct{})
	go func() {
		u, err := lock(t.Context(), dir)
		if err == nil {
			defer u()
			if _, serr := os.Stat(filepath.Join(dir, lockFile)); serr != nil {
				err = serr
			}
		}
		got <- err
		<-release
	}()
	time.Sleep(3 * lockPollInterval)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("waiter after removal: %v", err)
	}
	// The waiter holds the lock of the live file, so a third caller waits.
	ctx, cancel := context.WithTimeout(t.Context(), 5*lockPollInterval)
	defer cancel()
	if _, err := lock(ctx, dir); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("third lock while the waiter holds it: %v, want a deadline error", err)
	}
	close(release)
}

func TestChoosePorts(t *testing.T) {
	ports, err := choosePorts(0, 6)
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) != 6 {
		t.Fatalf("got %d ports, want 6", len(ports))
	}
	for i, p := range ports {
		if p < portRangeLow || p >= portRangeHigh {
			t.Errorf("port %d outside [%d, %d)", p, portRangeLow, portRangeHigh)
		}
		if i > 0 && p != ports[i-1]+1 {
			t.Errorf("ports %v not consecutive", ports)
		}
	}
	// A busy port inside a requested block is refused.
	busy, err := freeBlock(ports[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := listenLoopback(busy[0])
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := choosePorts(busy[0], 2); err == nil {
		t.Errorf("choosePorts(%d) succeeded with port %d in use", busy[0], busy[0])
	}
}

func listenLoopback(port int) (interface{ Close() error }, error) {
	return net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
}
