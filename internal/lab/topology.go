package lab

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Member is what a member cluster simulates: the region its nodes are in
// and its node pools. It only matters when the lab is created; the nodes of
// a running lab change with AddNode, RemoveNode and CordonNode.
type Member struct {
	// Region is the value of every node's topology.kubernetes.io/region
	// label. Its zones are the region followed by -a, -b and -c.
	Region string `json:"region,omitempty"`
	// Nodes are the pools of simulated nodes. Nil means DefaultMember's;
	// an empty, non-nil list means no nodes at all.
	Nodes []NodePool `json:"nodes"`
}

// NodePool is a number of identical simulated nodes.
type NodePool struct {
	// Count is the number of nodes.
	Count int `json:"count"`
	// CPU, Memory and Pods are each node's capacity (and allocatable).
	CPU    resource.Quantity `json:"cpu"`
	Memory resource.Quantity `json:"memory"`
	Pods   int64             `json:"pods,omitempty"`
}

// Node is one simulated node of a member cluster.
type Node struct {
	Name   string            `json:"name"`
	Zone   string            `json:"zone"`
	CPU    resource.Quantity `json:"cpu"`
	Memory resource.Quantity `json:"memory"`
	Pods   int64             `json:"pods"`
}

// Labels every simulated node carries. NodeSelectorLabel is how kwok tells
// the lab's nodes from any other node of the cluster.
const (
	RegionLabel       = "topology.kubernetes.io/region"
	ZoneLabel         = "topology.kubernetes.io/zone"
	HostnameLabel     = "kubernetes.io/hostname"
	NodeSelectorLabel = "type"
	nodeSelectorValue = "kwok"
)

// defaultPods is a node's pod capacity when none is given, the kubelet's
// default.
const defaultPods = 110

// The failure switch: kwok keeps a pod that carries FailLabel=true, or runs
// a container whose image ends in FailImageSuffix, crash-looping: Running,
// never Ready. A Deployment of such pods never becomes Available and, past
// its progressDeadlineSeconds, reports ProgressDeadlineExceeded.
const (
	FailLabel       = "kubefed-lab/fail"
	FailImageSuffix = ":broken"
)

// knownMembers are the members the lab names by default, in order, with
// their regions. The first three are the default lab; -members N takes the
// first N, and invents names beyond them.
var knownMembers = []struct{ name, region string }{
	{"san-francisco", "us-west"},
	{"new-york", "us-east"},
	{"berlin", "eu-central"},
	{"tokyo", "ap-northeast"},
	{"sydney", "au-southeast"},
	{"sao-paulo", "sa-east"},
	{"mumbai", "ap-south"},
	{"london", "eu-west"},
	{"toronto", "ca-central"},
	{"singapore", "ap-southeast"},
	{"johannesburg", "af-south"},
	{"stockholm", "eu-north"},
}

// MemberNames returns n member names: the known cities first, then
// member-13, member-14 and so on.
func MemberNames(n int) []string {
	names := make([]string, 0, max(n, 0))
	for i := range n {
		if i < len(knownMembers) {
			names = append(names, knownMembers[i].name)
		} else {
			names = append(names, fmt.Sprintf("member-%d", i+1))
		}
	}
	return names
}

// DefaultMember is what a member simulates when nothing is configured:
// san-francisco and new-york have three nodes of 4 CPU and 16 GiB, berlin
// one of 2 CPU and 8 GiB, so that capacity matters; any other member has one
// node of 4 CPU and 16 GiB. A member without a known region is its own
// region.
func DefaultMember(name string) Member {
	m := Member{Region: name, Nodes: []NodePool{pool(1, "4", "16Gi")}}
	for _, k := range knownMembers {
		if k.name == name {
			m.Region = k.region
		}
	}
	switch name {
	case "san-francisco", "new-york":
		m.Nodes = []NodePool{pool(3, "4", "16Gi")}
	case "berlin":
		m.Nodes = []NodePool{pool(1, "2", "8Gi")}
	}
	return m
}

func pool(count int, cpu, memory string) NodePool {
	return NodePool{Count: count, CPU: resource.MustParse(cpu), Memory: resource.MustParse(memory), Pods: defaultPods}
}

// zones are the suffixes of a region's zones; nodes go round them.
var zones = []string{"a", "b", "c"}

// expandNodes names the nodes of a member's pools: CLUSTER-1, CLUSTER-2 and
// so on across pools, spread over the region's zones in turn.
func expandNodes(cluster string, m Member) ([]Node, error) {
	var nodes []Node
	for _, p := range m.Nodes {
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", cluster, err)
		}
		for range p.Count {
			i := len(nodes)
			nodes = append(nodes, Node{
				Name:   fmt.Sprintf("%s-%d", cluster, i+1),
				Zone:   m.Region + "-" + zones[i%len(zones)],
				CPU:    p.CPU,
				Memory: p.Memory,
				Pods:   p.podsOrDefault(),
			})
		}
	}
	return nodes, nil
}

func (p NodePool) podsOrDefault() int64 {
	if p.Pods == 0 {
		return defaultPods
	}
	return p.Pods
}

func (p NodePool) validate() error {
	switch {
	case p.Count < 0:
		return fmt.Errorf("node count %d: must not be negative", p.Count)
	case p.CPU.Sign() <= 0:
		return fmt.Errorf("node CPU %q: must be positive, e.g. 4 or 500m", p.CPU.String())
	case p.Memory.Sign() <= 0:
		return fmt.Errorf("node memory %q: must be positive, e.g. 16Gi", p.Memory.String())
	case p.Pods < 0:
		return fmt.Errorf("node pod capacity %d: must not be negative", p.Pods)
	}
	return nil
}

// nodeSpecPattern is COUNTxCPU/MEMORY[/PODS], e.g. 3x4/16Gi or 1x500m/2Gi/20.
var nodeSpecPattern = regexp.MustCompile(`^(\d+)x([^/]+)/([^/]+)(?:/(\d+))?$`)

// ParseNodeSpec reads one -nodes flag: CLUSTER=POOL[,POOL...], where a pool
// is COUNTxCPU/MEMORY[/PODS]: "berlin=1x2/8Gi" or
// "new-york=2x4/16Gi,1x8/32Gi/250". A count of 0 ("berlin=0x1/1Gi") gives
// a member without nodes.
func ParseNodeSpec(s string) (cluster string, pools []NodePool, err error) {
	cluster, spec, ok := strings.Cut(s, "=")
	if !ok || cluster == "" || spec == "" {
		return "", nil, fmt.Errorf("nodes %q: want CLUSTER=COUNTxCPU/MEMORY[/PODS], e.g. berlin=1x2/8Gi", s)
	}
	if errs := validation.IsDNS1123Label(cluster); len(errs) > 0 {
		return "", nil, fmt.Errorf("nodes %q: cluster name: %s", s, strings.Join(errs, "; "))
	}
	for _, part := range strings.Split(spec, ",") {
		p, err := parsePool(part)
		if err != nil {
			return "", nil, fmt.Errorf("nodes %q: %w", s, err)
		}
		pools = append(pools, p)
	}
	return cluster, pools, nil
}

func parsePool(s string) (NodePool, error) {
	m := nodeSpecPattern.FindStringSubmatch(s)
	if m == nil {
		return NodePool{}, fmt.Errorf("pool %q: want COUNTxCPU/MEMORY[/PODS], e.g. 3x4/16Gi", s)
	}
	count, err := strconv.Atoi(m[1])
	if err != nil {
		return NodePool{}, fmt.Errorf("pool %q: count: %w", s, err)
	}
	p := NodePool{Count: count}
	if p.CPU, err = resource.ParseQuantity(m[2]); err != nil {
		return NodePool{}, fmt.Errorf("pool %q: CPU %q: %w", s, m[2], err)
	}
	if p.Memory, err = resource.ParseQuantity(m[3]); err != nil {
		return NodePool{}, fmt.Errorf("pool %q: memory %q: %w", s, m[3], err)
	}
	if m[4] != "" {
		if p.Pods, err = strconv.ParseInt(m[4], 10, 64); err != nil {
			return NodePool{}, fmt.Errorf("pool %q: pods: %w", s, err)
		}
	}
	return p, p.validate()
}
