package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
)

func TestParseLatency(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"80ms", 80 * time.Millisecond, false},
		{"0", 0, false},
		{"0s", 0, false},
		{"1.5s", 1500 * time.Millisecond, false},
		{"80", 0, true},
		{"-10ms", 0, true},
		{"fast", 0, true},
	} {
		got, err := parseLatency(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseLatency(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestRunWithoutALab(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	for _, tc := range []struct {
		args     []string
		code     int
		inOutput string
	}{
		{nil, 2, "Usage"},
		{[]string{"help"}, 0, "Usage"},
		{[]string{"launch"}, 2, `unknown command "launch"`},
		{[]string{"-dir", dir, "status"}, 1, "no lab in " + dir},
		{[]string{"status", "-dir", dir}, 1, "no lab in " + dir},
		{[]string{"-dir", dir, "down"}, 0, "no lab running"},
		{[]string{"-dir", dir, "stop"}, 2, "want 1 argument"},
		{[]string{"-dir", dir, "latency", "berlin"}, 2, "want 2 argument"},
		{[]string{"-dir", dir, "up", "extra"}, 2, "unexpected arguments"},
		{[]string{"-dir", dir, "up", "-members", "2", "-clusters", "host,a"}, 2, "give one of them"},
		{[]string{"-dir", dir, "nodes"}, 2, "want CLUSTER"},
		{[]string{"-dir", dir, "nodes", "berlin", "add"}, 2, "want CLUSTER"},
		{[]string{"-dir", dir, "nodes", "berlin"}, 1, "no lab in " + dir},
		{[]string{"help"}, 0, lab.FailLabel},
	} {
		var out bytes.Buffer
		code := run(t.Context(), tc.args, &out, &out)
		if code != tc.code || !strings.Contains(out.String(), tc.inOutput) {
			t.Errorf("kubefed-lab %s: exit %d, output\n%s\nwant exit %d and %q", strings.Join(tc.args, " "), code, out.String(), tc.code, tc.inOutput)
		}
	}
	// Looking for a lab must not create its directory.
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s exists after commands on a missing lab (%v)", dir, err)
	}
}

func TestUpOptionsConfig(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         upOptions
		wantClusters []string
		wantMode     string
		wantNodes    map[string]int // pools per member given
		wantErr      string
	}{
		{name: "nothing: the default lab", opts: upOptions{}},
		{name: "named clusters", opts: upOptions{clusters: "host,a,b"}, wantClusters: []string{"host", "a", "b"}},
		{name: "twelve plain members", opts: upOptions{members: 12, plain: true},
			wantClusters: append([]string{"host"}, lab.MemberNames(12)...), wantMode: lab.ModePlain},
		{name: "nodes of one member", opts: upOptions{nodes: []string{"berlin=2x4/16Gi", "new-york=1x8/32Gi,1x2/4Gi"}},
			wantNodes: map[string]int{"berlin": 1, "new-york": 2}},
		{name: "the later -nodes of a member wins", opts: upOptions{nodes: []string{"berlin=2x4/16Gi", "berlin=1x4/16Gi,1x1/1Gi"}},
			wantNodes: map[string]int{"berlin": 2}},
		{name: "two ways to name clusters", opts: upOptions{clusters: "host,a", members: 2}, wantErr: "give one of them"},
		{name: "negative members", opts: upOptions{members: -1}, wantErr: "-members -1"},
		{name: "a bad node spec", opts: upOptions{nodes: []string{"berlin"}}, wantErr: "CLUSTER="},
		{name: "a missing file", opts: upOptions{configFile: "/nonexistent/lab.yaml"}, wantErr: "lab configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.opts.config()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one mentioning %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cfg.Clusters, tc.wantClusters) || cfg.Mode != tc.wantMode {
				t.Errorf("clusters %v, mode %q; want %v, %q", cfg.Clusters, cfg.Mode, tc.wantClusters, tc.wantMode)
			}
			if len(cfg.Members) != len(tc.wantNodes) {
				t.Errorf("members %v, want %v", cfg.Members, tc.wantNodes)
			}
			for name, pools := range tc.wantNodes {
				m := cfg.Members[name]
				if len(m.Nodes) != pools || m.Region != lab.DefaultMember(name).Region {
					t.Errorf("%s: %d pools in %q, want %d in its default region", name, len(m.Nodes), m.Region, pools)
				}
			}
		})
	}
}

func TestParseNewNode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rest    []string
		want    string
		wantErr string
	}{
		{name: "like the others", rest: nil, want: "0 0 0"},
		{name: "CPU and memory", rest: []string{"4", "16Gi"}, want: "4 16Gi 0"},
		{name: "and pods", rest: []string{"500m", "2Gi", "30"}, want: "500m 2Gi 30"},
		{name: "CPU alone", rest: []string{"4"}, wantErr: "a CPU and a memory"},
		{name: "no quantity", rest: []string{"four", "16Gi"}, wantErr: `CPU "four"`},
		{name: "zero pods", rest: []string{"4", "16Gi", "0"}, wantErr: `pods "0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := parseNewNode("n1", tc.rest)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one mentioning %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%s %s %d", n.CPU.String(), n.Memory.String(), n.Pods); n.Name != "n1" || got != tc.want {
				t.Errorf("node %s: %s, want %s", n.Name, got, tc.want)
			}
		})
	}
}
