package acctest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// EnvProviderBinary names a provider binary already built from this tree
// with the kubefedtest build tag; without it, ProviderBinary builds one once
// per test binary.
const EnvProviderBinary = "KUBEFED_PROVIDER_BINARY"

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// ProviderBinary is the path of this tree's provider binary, for tests
// that run the CLI as a child process.
func ProviderBinary(t testing.TB) string {
	t.Helper()
	if path := os.Getenv(EnvProviderBinary); path != "" {
		return path
	}
	buildOnce.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "kubefed-provider-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "terraform-provider-kubefed")
		cmd := exec.Command("go", "build", "-tags", "kubefedtest", "-o", built, ".")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building the provider: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// moduleRoot finds the directory of this module's go.mod above the
// working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(data), "module github.com/tf-kubefed/terraform-provider-kubefed\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of the provider above the working directory")
		}
		dir = parent
	}
}

// Workspace is a directory with a configuration, run by the CLI under test
// (TF_ACC_TERRAFORM_PATH) as a child process with this tree's provider.
type Workspace struct {
	t   testing.TB
	Dir string
	cli string
	env []string
}

// NewWorkspace prepares an empty workspace whose CLI runs this tree's
// provider for the source tf-kubefed/kubefed, with no init.
func NewWorkspace(t testing.TB) *Workspace {
	t.Helper()
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if cli == "" {
		t.Skip("needs TF_ACC_TERRAFORM_PATH: the CLI to run")
	}
	binary := ProviderBinary(t)
	dir := t.TempDir()
	rc := filepath.Join(dir, "cli.tfrc")
	config := fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/tf-kubefed/kubefed" = %q
    "registry.opentofu.org/tf-kubefed/kubefed" = %q
  }
  direct {}
}
`, filepath.Dir(binary), filepath.Dir(binary))
	if err := os.WriteFile(rc, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return &Workspace{t: t, Dir: dir, cli: cli,
		env: append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")}
}

// MirrorVersion is the version under which NewMirrorWorkspace offers this
// tree's provider.
const MirrorVersion = "0.0.1"

// NewMirrorWorkspace prepares an empty workspace whose CLI installs this
// tree's provider with `init`, from a local mirror under both registries'
// host names: the workspace of a configuration that must be initialised,
// such as one with a backend.
func NewMirrorWorkspace(t testing.TB) *Workspace {
	t.Helper()
	w := NewWorkspace(t)
	binary, err := os.ReadFile(ProviderBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join(w.Dir, ".mirror")
	ours := []string{"registry.terraform.io/tf-kubefed/kubefed", "registry.opentofu.org/tf-kubefed/kubefed"}
	for _, address := range ours {
		dir := filepath.Join(mirror, address, MirrorVersion, runtime.GOOS+"_"+runtime.GOARCH)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "terraform-provider-kubefed_v"+MirrorVersion), binary, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = [%q, %q]
  }
  direct {
    exclude = [%q, %q]
  }
}
`, mirror, ours[0], ours[1], ours[0], ours[1])
	if err := os.WriteFile(filepath.Join(w.Dir, "cli.tfrc"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// Write replaces the workspace's configuration; it names the provider's
// source itself.
func (w *Workspace) Write(config string) {
	w.t.Helper()
	source := "terraform {\n  required_providers {\n    kubefed = { source = \"tf-kubefed/kubefed\" }\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(w.Dir, "main.tf"), []byte(source+config), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// Command is the CLI with the given arguments, not started.
func (w *Workspace) Command(args ...string) *exec.Cmd {
	cmd := exec.Command(w.cli, args...)
	cmd.Dir = w.Dir
	cmd.Env = w.env
	return cmd
}

// Run runs the CLI and returns its exit code and combined output.
func (w *Workspace) Run(args ...string) (int, string) {
	w.t.Helper()
	return w.RunWith(nil, args...)
}

// RunWith is Run with env ("NAME=value") added to the environment of the
// CLI and so of the provider it starts.
func (w *Workspace) RunWith(env []string, args ...string) (int, string) {
	w.t.Helper()
	var out bytes.Buffer
	cmd := w.Command(args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String()
	}
	if err != nil {
		w.t.Fatalf("running %s %v: %v", w.cli, args, err)
	}
	return 0, out.String()
}

// MustRun runs the CLI and fails the test unless it exits with want.
func (w *Workspace) MustRun(want int, args ...string) string {
	w.t.Helper()
	return w.MustRunWith(want, nil, args...)
}

// MustRunWith runs the CLI with env added to the workspace's environment
// and fails the test unless it exits with want; it returns the output.
func (w *Workspace) MustRunWith(want int, env []string, args ...string) string {
	w.t.Helper()
	code, out := w.RunWith(env, args...)
	if code != want {
		w.t.Fatalf("%s %s exited %d, want %d:\n%s", filepath.Base(w.cli), strings.Join(args, " "), code, want, out)
	}
	return out
}
