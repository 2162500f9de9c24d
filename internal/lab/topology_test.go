package lab

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestMemberNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		want []string
	}{
		{"the default lab", 3, []string{"san-francisco", "new-york", "berlin"}},
		{"none", 0, []string{}},
		{"past the known cities", 14, append(namesOfKnown(), "member-13", "member-14")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MemberNames(tc.n); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MemberNames(%d) = %v, want %v", tc.n, got, tc.want)
			}
		})
	}
	if got := MemberNames(3); !reflect.DeepEqual(append([]string{"host"}, got...), DefaultClusters) {
		t.Errorf("the first three members %v are not the default lab's %v", got, DefaultClusters[1:])
	}
}

func namesOfKnown() []string {
	var out []string
	for _, k := range knownMembers {
		out = append(out, k.name)
	}
	return out
}

func TestDefaultMember(t *testing.T) {
	for _, tc := range []struct {
		name       string
		wantRegion string
		wantNodes  int
		wantCPU    string
		wantMemory string
	}{
		{"san-francisco", "us-west", 3, "4", "16Gi"},
		{"new-york", "us-east", 3, "4", "16Gi"},
		{"berlin", "eu-central", 1, "2", "8Gi"},
		{"tokyo", "ap-northeast", 1, "4", "16Gi"},
		{"edge-7", "edge-7", 1, "4", "16Gi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, err := expandNodes(tc.name, DefaultMember(tc.name))
			if err != nil {
				t.Fatal(err)
			}
			if got := DefaultMember(tc.name).Region; got != tc.wantRegion {
				t.Errorf("region %q, want %q", got, tc.wantRegion)
			}
			if len(nodes) != tc.wantNodes {
				t.Fatalf("%d nodes, want %d", len(nodes), tc.wantNodes)
			}
			for _, n := range nodes {
				if n.CPU.String() != tc.wantCPU || n.Memory.String() != tc.wantMemory || n.Pods != defaultPods {
					t.Errorf("node %s: %s CPU, %s memory, %d pods; want %s, %s, %d", n.Name, n.CPU.String(), n.Memory.String(), n.Pods, tc.wantCPU, tc.wantMemory, defaultPods)
				}
			}
		})
	}
}

func TestExpandNodesNamesThemAndSpreadsThemOverZones(t *testing.T) {
	m := Member{Region: "us-west", Nodes: []NodePool{pool(2, "4", "16Gi"), {Count: 2, CPU: resource.MustParse("8"), Memory: resource.MustParse("32Gi")}}}
	nodes, err := expandNodes("sf", m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, n.Name+"@"+n.Zone+"/"+n.CPU.String())
	}
	want := []string{"sf-1@us-west-a/4", "sf-2@us-west-b/4", "sf-3@us-west-c/8", "sf-4@us-west-a/8"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("nodes %v, want %v", got, want)
	}
	if nodes[3].Pods != defaultPods {
		t.Errorf("a pool without pods gives nodes of %d pods, want the kubelet's %d", nodes[3].Pods, defaultPods)
	}
	if _, err := expandNodes("sf", Member{Region: "r", Nodes: []NodePool{{Count: 1}}}); err == nil || !strings.Contains(err.Error(), "cluster sf") {
		t.Errorf("a pool without CPU: %v, want an error naming the cluster", err)
	}
}

func TestParseNodeSpec(t *testing.T) {
	for _, tc := range []struct {
		name        string
		spec        string
		wantCluster string
		wantPools   []string
		wantErr     string
	}{
		{name: "one pool", spec: "berlin=1x2/8Gi", wantCluster: "berlin", wantPools: []string{"1x2/8Gi/0"}},
		{name: "pods and millicores", spec: "edge=3x500m/2Gi/20", wantCluster: "edge", wantPools: []string{"3x500m/2Gi/20"}},
		{name: "two pools", spec: "new-york=2x4/16Gi,1x8/32Gi/250", wantCluster: "new-york", wantPools: []string{"2x4/16Gi/0", "1x8/32Gi/250"}},
		{name: "no nodes at all", spec: "berlin=0x1/1Gi", wantCluster: "berlin", wantPools: []string{"0x1/1Gi/0"}},
		{name: "no cluster", spec: "1x2/8Gi", wantErr: "CLUSTER="},
		{name: "a cluster name that is no DNS label", spec: "Berlin=1x2/8Gi", wantErr: "cluster name"},
		{name: "no count", spec: "berlin=2/8Gi", wantErr: `pool "2/8Gi"`},
		{name: "memory that is no quantity", spec: "berlin=1x2/lots", wantErr: `memory "lots"`},
		{name: "zero CPU", spec: "berlin=1x0/8Gi", wantErr: "must be positive"},
		{name: "an empty pool", spec: "berlin=1x2/8Gi,", wantErr: `pool ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cluster, pools, err := ParseNodeSpec(tc.spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseNodeSpec(%q) error %v, want one mentioning %s", tc.spec, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range pools {
				got = append(got, poolString(p))
			}
			if cluster != tc.wantCluster || !reflect.DeepEqual(got, tc.wantPools) {
				t.Errorf("ParseNodeSpec(%q) = %s %v, want %s %v", tc.spec, cluster, got, tc.wantCluster, tc.wantPools)
			}
		})
	}
}

// poolString renders a pool as a -nodes flag writes it, for comparisons.
func poolString(p NodePool) string {
	return fmt.Sprintf("%dx%s/%s/%d", p.Count, p.CPU.String(), p.Memory.String(), p.Pods)
}
