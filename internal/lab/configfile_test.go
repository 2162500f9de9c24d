package lab

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseConfigFile(t *testing.T) {
	for _, tc := range []struct {
		name         string
		yaml         string
		wantClusters []string
		wantMode     string
		// wantNodes is each member's nodes as name@zone/cpu/memory/pods.
		wantNodes map[string][]string
		wantErr   string
	}{
		{
			name: "regions and pools, numbers as numbers or strings",
			yaml: `
mode: full
clusters:
- name: host
- name: sf
  region: us-west
  nodes:
  - {count: 2, cpu: 4, memory: 16Gi}
- name: edge
  region: eu-north
  nodes:
  - {count: 1, cpu: "500m", memory: 2Gi, pods: 20}
`,
			wantClusters: []string{"host", "sf", "edge"},
			wantMode:     ModeFull,
			wantNodes: map[string][]string{
				"sf":   {"sf-1@us-west-a/4/16Gi/110", "sf-2@us-west-b/4/16Gi/110"},
				"edge": {"edge-1@eu-north-a/500m/2Gi/20"},
			},
		},
		{
			name:         "a member left out gets its defaults",
			yaml:         "clusters: [{name: host}, {name: berlin}]",
			wantClusters: []string{"host", "berlin"},
			wantNodes:    map[string][]string{"berlin": {"berlin-1@eu-central-a/2/8Gi/110"}},
		},
		{
			name:         "an empty node list is a member without nodes",
			yaml:         "clusters: [{name: host}, {name: berlin, nodes: []}]",
			wantClusters: []string{"host", "berlin"},
			wantNodes:    map[string][]string{"berlin": nil},
		},
		{
			name:         "plain",
			yaml:         "mode: plain\nclusters: [{name: host}, {name: a}]",
			wantClusters: []string{"host", "a"},
			wantMode:     ModePlain,
			wantNodes:    map[string][]string{"a": {"a-1@a-a/4/16Gi/110"}},
		},
		{name: "a misspelt key", yaml: "clusters: [{name: host}, {name: a, node: []}]", wantErr: `unknown field "node"`},
		{name: "nodes on the host", yaml: "clusters: [{name: host, nodes: [{count: 1, cpu: 1, memory: 1Gi}]}]", wantErr: "is the host"},
		{name: "an unknown mode", yaml: "mode: fast\nclusters: [{name: host}]", wantErr: `mode "fast"`},
		{name: "no clusters", yaml: "mode: full", wantErr: "at least one cluster"},
		{name: "a bad pool", yaml: "clusters: [{name: host}, {name: a, nodes: [{count: 1, memory: 1Gi}]}]", wantErr: "node CPU"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseConfigFile([]byte(tc.yaml))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one mentioning %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Clusters, tc.wantClusters) || cfg.Mode != tc.wantMode {
				t.Errorf("clusters %v, mode %q; want %v, %q", cfg.Clusters, cfg.Mode, tc.wantClusters, tc.wantMode)
			}
			for name, want := range tc.wantNodes {
				nodes, err := expandNodes(name, cfg.Members[name])
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, n := range nodes {
					got = append(got, nodeString(n))
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: nodes %v, want %v", name, got, want)
				}
			}
		})
	}
}

func TestReadConfigFileNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(path, []byte("clusters: [{name: Host}]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadConfigFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadConfigFile of a bad file: %v, want an error naming %s", err, path)
	}
	if _, err := ReadConfigFile(path + ".missing"); err == nil {
		t.Error("ReadConfigFile of a missing file: no error")
	}
}

// nodeString renders a node as name@zone/cpu/memory/pods.
func nodeString(n Node) string {
	return n.Name + "@" + n.Zone + "/" + n.CPU.String() + "/" + n.Memory.String() + "/" + strconv.FormatInt(n.Pods, 10)
}
