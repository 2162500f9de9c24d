package capacity

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Replica is one replica of the workload as the estimate sees it: what it
// requests and which nodes it may run on.
type Replica struct {
	// Requests per replica. Only positive entries bound the estimate; a
	// replica that requests nothing is bounded by the nodes' pod slots alone.
	// "pods" is ignored here: every replica takes one pod slot.
	Requests corev1.ResourceList
	// Tolerations let the replica onto tainted and cordoned nodes.
	Tolerations []corev1.Toleration
	// NodeSelector must be matched by a node's labels.
	NodeSelector map[string]string
	// Affinity contributes its required terms; preferred terms only weigh
	// where the scheduler puts a pod, not whether it fits.
	Affinity *corev1.NodeAffinity
}

// ReplicaFromPodSpec takes the requests, tolerations, node selector and
// node affinity of a workload's pod template.
func ReplicaFromPodSpec(spec corev1.PodSpec) Replica {
	r := Replica{
		Requests:     RequestsFromPodSpec(spec),
		Tolerations:  spec.Tolerations,
		NodeSelector: spec.NodeSelector,
	}
	if spec.Affinity != nil {
		r.Affinity = spec.Affinity.NodeAffinity
	}
	return r
}

// Member is what the estimate reads of one member cluster.
type Member struct {
	// Nodes are the member's Nodes.
	Nodes []corev1.Node
	// Pods are the member's Pods in every namespace, the workload's own
	// included: their requests are what is taken on each node.
	Pods []corev1.Pod
	// Running is how many replicas the workload already runs on the member,
	// holding their resources; BoundReplicas counts them from its pods.
	Running int64
}

// Result is the estimate for one member cluster.
type Result struct {
	// Replicas is the capacity to plan with: Fit plus Running, lowered by
	// the Unschedulable feedback when that applies.
	Replicas int64
	// Fit is how many more replicas the schedulable nodes have room for.
	Fit int64
	// Running is Member.Running.
	Running int64
	// Nodes and Schedulable count the member's nodes and those a replica may
	// run on; Skipped says why the others may not.
	Nodes, Schedulable int
	Skipped            map[Skip]int
	// LimitedBy counts, per resource, the schedulable nodes where that
	// resource ran out first ("pods" for the pod slots).
	LimitedBy map[corev1.ResourceName]int
	// Feedback is what WithFeedback applied; Capped says it lowered Replicas.
	Feedback Feedback
	Capped   bool
}

// Estimate computes how many replicas of r the member can hold. It reads
// each node once and each pod once; the result does not depend on the order
// of nodes or pods.
func Estimate(r Replica, m Member) Result {
	res := Result{Nodes: len(m.Nodes), Running: m.Running, Skipped: map[Skip]int{}, LimitedBy: map[corev1.ResourceName]int{}}
	wanted := requested(r.Requests)
	free := make(map[string]*room, len(m.Nodes))
	for i := range m.Nodes {
		node := &m.Nodes[i]
		if why := r.skip(node); why != "" {
			res.Skipped[why]++
			continue
		}
		res.Schedulable++
		free[node.Name] = newRoom(node, wanted)
	}
	for i := range m.Pods {
		pod := &m.Pods[i]
		if terminated(pod) {
			continue
		}
		if room, ok := free[pod.Spec.NodeName]; ok {
			room.take(RequestsFromPodSpec(pod.Spec), wanted)
		}
	}
	for _, room := range free {
		n, limit := room.fit(wanted)
		res.Fit = saturatingAdd(res.Fit, n)
		res.LimitedBy[limit]++
	}
	res.Replicas = saturatingAdd(res.Fit, max(m.Running, 0))
	return res
}

// demand is one resource the replica requests, in the unit it is counted in.
type demand struct {
	name corev1.ResourceName
	per  int64
}

// requested lists the positive requests in a fixed order (cpu, memory,
// ephemeral-storage, then by name), so that ties in what runs out first are
// reported the same way every time.
func requested(list corev1.ResourceList) []demand {
	var out []demand
	for name, q := range list {
		if name == corev1.ResourcePods {
			continue
		}
		if n := scaled(name, q); n > 0 {
			out = append(out, demand{name: name, per: n})
		}
	}
	slices.SortFunc(out, func(a, b demand) int {
		if c := cmp.Compare(resourceRank(a.name), resourceRank(b.name)); c != 0 {
			return c
		}
		return strings.Compare(string(a.name), string(b.name))
	})
	return out
}

func resourceRank(name corev1.ResourceName) int {
	switch name {
	case corev1.ResourceCPU:
		return 0
	case corev1.ResourceMemory:
		return 1
	case corev1.ResourceEphemeralStorage:
		return 2
	}
	return 3
}

// scaled counts cpu in millicores and everything else in whole units, as
// the scheduler does.
func scaled(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// room is what is left on one schedulable node, for the requested
// resources only (in the order of the demands), and its pod slots.
type room struct {
	left []int64
	pods int64
}

func newRoom(node *corev1.Node, wanted []demand) *room {
	r := &room{left: make([]int64, len(wanted)), pods: node.Status.Allocatable.Pods().Value()}
	for i, d := range wanted {
		// A resource the node does not list is a resource it has none of.
		if q, ok := node.Status.Allocatable[d.name]; ok {
			r.left[i] = scaled(d.name, q)
		}
	}
	return r
}

func (r *room) take(requests corev1.ResourceList, wanted []demand) {
	r.pods--
	for i, d := range wanted {
		if q, ok := requests[d.name]; ok {
			r.left[i] = saturatingAdd(r.left[i], -scaled(d.name, q))
		}
	}
}

// fit is how many replicas the room holds and which resource runs out first.
func (r *room) fit(wanted []demand) (int64, corev1.ResourceName) {
	n, limit := max(r.pods, 0), corev1.ResourcePods
	for i, d := range wanted {
		if k := max(r.left[i], 0) / d.per; k < n || (k == n && limit == corev1.ResourcePods) {
			n, limit = k, d.name
		}
	}
	return n, limit
}

// terminated pods hold nothing on their node any more.
func terminated(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

func saturatingAdd(a, b int64) int64 {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}

// Reason says in one line how the estimate came about, for a plan warning:
// "2 of 3 nodes schedulable (1 cordoned); room for 4 more replicas, limited
// by cpu; plus 3 running".
func (r Result) Reason() string {
	parts := []string{fmt.Sprintf("%d of %d nodes schedulable", r.Schedulable, r.Nodes)}
	var skipped []string
	for _, s := range skips {
		if n := r.Skipped[s]; n > 0 {
			skipped = append(skipped, fmt.Sprintf("%d %s", n, s))
		}
	}
	if len(skipped) > 0 {
		parts[0] += " (" + strings.Join(skipped, ", ") + ")"
	}
	fit := fmt.Sprintf("room for %d more %s", r.Fit, plural(r.Fit, "replica", "replicas"))
	if limits := r.limits(); limits != "" {
		fit += ", limited by " + limits
	}
	parts = append(parts, fit)
	if r.Running > 0 {
		parts = append(parts, fmt.Sprintf("plus %d running", r.Running))
	}
	if r.Capped {
		parts = append(parts, fmt.Sprintf("capped at %d: %d %s unschedulable for over %s",
			r.Replicas, r.Feedback.Stuck, plural(r.Feedback.Stuck, "pod", "pods"), r.Feedback.After))
	}
	return strings.Join(parts, "; ")
}

// limits names the resources that ran out first, the most common first:
// "cpu" when one resource limits every node, "cpu on 2 nodes, pods on 1"
// otherwise.
func (r Result) limits() string {
	names := make([]corev1.ResourceName, 0, len(r.LimitedBy))
	for name, n := range r.LimitedBy {
		if n > 0 {
			names = append(names, name)
		}
	}
	if len(names) == 1 {
		return string(names[0])
	}
	slices.SortFunc(names, func(a, b corev1.ResourceName) int {
		if c := cmp.Compare(r.LimitedBy[b], r.LimitedBy[a]); c != 0 {
			return c
		}
		return strings.Compare(string(a), string(b))
	})
	out := make([]string, len(names))
	for i, name := range names {
		out[i] = fmt.Sprintf("%s on %d %s", name, r.LimitedBy[name], plural(int64(r.LimitedBy[name]), "node", "nodes"))
	}
	return strings.Join(out, ", ")
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
