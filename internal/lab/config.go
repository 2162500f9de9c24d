package lab

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Environment variables read when the matching Config field is empty.
const (
	// EnvKubeAPIServer names the kube-apiserver binary.
	EnvKubeAPIServer = "KUBEFED_LAB_KUBE_APISERVER"
	// EnvEtcd names the etcd binary.
	EnvEtcd = "KUBEFED_LAB_ETCD"
	// EnvDir names the state directory.
	EnvDir = "KUBEFED_LAB_DIR"
	// EnvKubeControllerManager, EnvKubeScheduler and EnvKwok name the
	// binaries a full lab runs besides kube-apiserver.
	EnvKubeControllerManager = "KUBEFED_LAB_KUBE_CONTROLLER_MANAGER"
	EnvKubeScheduler         = "KUBEFED_LAB_KUBE_SCHEDULER"
	EnvKwok                  = "KUBEFED_LAB_KWOK"
)

// Modes of a lab.
const (
	// ModeFull makes every cluster a working one: the host runs a
	// kube-controller-manager next to its kube-apiserver, and each member
	// runs a kube-controller-manager, a kube-scheduler and kwok, which
	// simulates the member's nodes and the pods placed on them.
	ModeFull = "full"
	// ModePlain runs kube-apiservers only: objects are stored and nothing
	// acts on them. It costs a fraction of the memory, for benchmarks with
	// many members.
	ModePlain = "plain"
)

// ModulePath is the Go module whose root holds the default state directory.
const ModulePath = "github.com/tf-kubefed/terraform-provider-kubefed"

// DefaultClusters are the clusters of a lab when none are configured: the
// federation host followed by three regions.
var DefaultClusters = []string{"host", "san-francisco", "new-york", "berlin"}

// Config describes a lab. The zero value is a valid configuration as long as
// the kube-apiserver binary can be found through EnvKubeAPIServer.
type Config struct {
	// Dir is the state directory. Empty means DefaultDir().
	Dir string
	// Clusters names the clusters, the host first. Each name must be a DNS
	// label; it names the kubeconfig context, cluster and user, the etcd
	// prefix and the cluster's directory. Empty means DefaultClusters, or the
	// clusters of the lab already recorded in Dir.
	Clusters []string
	// KubeAPIServer is the kube-apiserver binary. Empty means the value of
	// EnvKubeAPIServer, or the binary recorded in Dir.
	KubeAPIServer string
	// Etcd is the etcd binary. Empty means the value of EnvEtcd, or the
	// binary recorded in Dir, or "etcd" on PATH, or /usr/bin/etcd.
	Etcd string
	// KubeControllerManager, KubeScheduler and Kwok are the binaries of a
	// full lab. Empty means the value of EnvKubeControllerManager,
	// EnvKubeScheduler and EnvKwok, or the binary recorded in Dir.
	KubeControllerManager, KubeScheduler, Kwok string
	// Mode is ModeFull or ModePlain. Empty means the mode of the lab
	// recorded in Dir, or ModeFull for a new one.
	Mode string
	// Members sets the region and nodes of members by name when the lab is
	// created; a member not in it gets DefaultMember(name). A running lab
	// keeps its nodes: change them with AddNode and RemoveNode.
	Members map[string]Member
	// BasePort, when not zero, makes the ports deterministic: etcd uses
	// BasePort and BasePort+1, cluster i uses BasePort+2+2i for clients and
	// BasePort+3+2i for its kube-apiserver. Zero picks free ports. Ports are
	// chosen when the lab is created and kept for its whole life.
	BasePort int
	// ReadyTimeout bounds the wait for the processes started by one call.
	// Zero means 3 minutes: four apiservers starting together on two cores
	// take a while.
	ReadyTimeout time.Duration
	// Log receives one line per action (a process started or stopped).
	// Nil discards them.
	Log func(format string, args ...any)
}

// DefaultDir returns the state directory used when Config.Dir is empty: the
// value of EnvDir if set, else ".lab" at the root of this Go module found by
// walking up from the working directory, else ".lab" in the working
// directory.
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Abs(d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the lab directory: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if moduleOf(filepath.Join(d, "go.mod")) == ModulePath {
			return filepath.Join(d, ".lab"), nil
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, ".lab"), nil
		}
	}
}

// moduleOf returns the module path declared in a go.mod file, or "".
func moduleOf(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// resolve fills the defaults that do not depend on an existing lab and
// validates what was given.
func (c Config) resolve() (Config, error) {
	if c.Dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return c, err
		}
		c.Dir = d
	}
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return c, fmt.Errorf("lab directory %q: %w", c.Dir, err)
	}
	c.Dir = abs
	if c.KubeAPIServer == "" {
		c.KubeAPIServer = os.Getenv(EnvKubeAPIServer)
	}
	if c.Etcd == "" {
		c.Etcd = os.Getenv(EnvEtcd)
	}
	for _, b := range []struct {
		field *string
		env   string
	}{
		{&c.KubeControllerManager, EnvKubeControllerManager},
		{&c.KubeScheduler, EnvKubeScheduler},
		{&c.Kwok, EnvKwok},
	} {
		if *b.field == "" {
			*b.field = os.Getenv(b.env)
		}
	}
	if err := validateMode(c.Mode); err != nil {
		return c, err
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = 3 * time.Minute
	}
	if c.Log == nil {
		c.Log = func(string, ...any) {}
	}
	if c.BasePort < 0 || c.BasePort > 65535-2-2*max(len(c.Clusters), len(DefaultClusters)) {
		return c, fmt.Errorf("base port %d leaves no room for the lab's ports", c.BasePort)
	}
	if len(c.Clusters) > 0 {
		if err := validateClusterNames(c.Clusters); err != nil {
			return c, err
		}
	}
	return c, nil
}

// validateMode accepts the modes and the empty string.
func validateMode(m string) error {
	switch m {
	case "", ModeFull, ModePlain:
		return nil
	}
	return fmt.Errorf("lab mode %q: want %s or %s", m, ModeFull, ModePlain)
}

// defaultEtcd finds etcd when nothing names it.
func defaultEtcd() string {
	if p, err := exec.LookPath("etcd"); err == nil {
		return p
	}
	return "/usr/bin/etcd"
}

// validateClusterNames checks that names can serve as file names, etcd
// prefixes and kubeconfig names at once.
func validateClusterNames(names []string) error {
	if len(names) == 0 {
		return errors.New("a lab needs at least one cluster (the host)")
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if errs := validation.IsDNS1123Label(n); len(errs) > 0 {
			return fmt.Errorf("cluster name %q: %s", n, strings.Join(errs, "; "))
		}
		if seen[n] {
			return fmt.Errorf("cluster name %q appears twice", n)
		}
		seen[n] = true
	}
	return nil
}

// checkBinary gives an actionable error for a missing binary.
func checkBinary(what, path, hint string) error {
	if path == "" {
		return fmt.Errorf("no %s binary: %s", what, hint)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s binary %s: %w (%s)", what, path, err, hint)
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s binary %s is not an executable file (%s)", what, path, hint)
	}
	return nil
}
