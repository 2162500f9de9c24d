package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateClusterNames(t *testing.T) {
	for _, tc := range []struct {
		names   []string
		wantErr string
	}{
		{names: DefaultClusters},
		{names: []string{"host"}},
		{names: nil, wantErr: "at least one"},
		{names: []string{"host", "Berlin"}, wantErr: `"Berlin"`},
		{names: []string{"host", "new_york"}, wantErr: `"new_york"`},
		{names: []string{"host", "../etc"}, wantErr: `"../etc"`},
		{names: []string{"host", "a", "a"}, wantErr: "twice"},
	} {
		err := validateClusterNames(tc.names)
		if tc.wantErr == "" && err != nil {
			t.Errorf("%v: %v", tc.names, err)
		}
		if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%v: error %v, want one mentioning %s", tc.names, err, tc.wantErr)
		}
	}
}

func TestDefaultDirIsAtTheModuleRoot(t *testing.T) {
	t.Setenv(EnvDir, "")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+ModulePath+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A nested module (a tools module, say) must not capture the lab.
	nested := filepath.Join(root, "tools", "x")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nested, "go.mod"), []byte("module example.com/tools\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(nested)
	got, err := DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".lab"); !sameDir(t, filepath.Dir(got), root) || filepath.Base(got) != ".lab" {
		t.Errorf("DefaultDir() = %s, want %s", got, want)
	}

	t.Setenv(EnvDir, "rel/lab")
	got, err = DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(got) || !strings.HasSuffix(got, filepath.Join("rel", "lab")) {
		t.Errorf("DefaultDir() with %s=rel/lab = %s, want it made absolute", EnvDir, got)
	}
}

func TestResolveDefaults(t *testing.T) {
	t.Setenv(EnvKubeAPIServer, "/opt/kas")
	t.Setenv(EnvEtcd, "")
	c, err := Config{Dir: "x"}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(c.Dir) {
		t.Errorf("Dir = %s, want absolute: processes run elsewhere", c.Dir)
	}
	if c.KubeAPIServer != "/opt/kas" {
		t.Errorf("KubeAPIServer = %q, want it from %s", c.KubeAPIServer, EnvKubeAPIServer)
	}
	if c.ReadyTimeout <= 0 || c.Log == nil {
		t.Error("ReadyTimeout or Log left unset")
	}
	if _, err := (Config{Dir: "x", Clusters: []string{"Host"}}).resolve(); err == nil {
		t.Error("invalid cluster name accepted")
	}
}

func TestCheckBinary(t *testing.T) {
	if err := checkBinary("etcd", "", "install it"); err == nil || !strings.Contains(err.Error(), "install it") {
		t.Errorf("empty path: %v, want the hint", err)
	}
	if err := checkBinary("etcd", filepath.Join(t.TempDir(), "none"), "hint"); err == nil {
		t.Error("missing binary accepted")
	}
	f := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkBinary("etcd", f, "hint"); err == nil {
		t.Error("non-executable file accepted")
	}
	if err := checkBinary("sh", "/bin/sh", "hint"); err != nil {
		t.Errorf("/bin/sh: %v", err)
	}
}

func sameDir(t *testing.T, a, b string) bool {
	t.Helper()
	fa, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := os.Stat(b)
	if err != nil {
		t.Fatal(err)
	}
	return os.SameFile(fa, fb)
}
