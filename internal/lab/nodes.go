package lab

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
)

// NodeStatus is a simulated node as its cluster reports it.
type NodeStatus struct {
	Node
	// Ready reports the node's Ready condition.
	Ready bool
	// Unschedulable reports a cordoned node.
	Unschedulable bool
	// BoundPods counts the pods bound to the node that have not finished.
	BoundPods int
}

// Nodes lists the simulated nodes of a member, by name.
func (l *Lab) Nodes(ctx context.Context, cluster string) ([]NodeStatus, error) {
	st, err := readState(l.dir)
	if err != nil {
		return nil, err
	}
	c, cs, err := l.nodeClient(st, cluster)
	if err != nil {
		return nil, err
	}
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: labNodes})
	if err != nil {
		return nil, fmt.Errorf("cluster %s: listing nodes: %w", c.Name, err)
	}
	pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("cluster %s: listing pods: %w", c.Name, err)
	}
	perNode := map[string]int{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			perNode[p.Spec.NodeName]++
		}
	}
	ready := readyNodes(list.Items)
	out := make([]NodeStatus, 0, len(list.Items))
	for _, n := range list.Items {
		out = append(out, NodeStatus{
			Node: Node{
				Name:   n.Name,
				Zone:   n.Labels[ZoneLabel],
				CPU:    n.Status.Capacity[corev1.ResourceCPU],
				Memory: n.Status.Capacity[corev1.ResourceMemory],
				Pods:   n.Status.Capacity.Pods().Value(),
			},
			Ready:         ready[n.Name],
			Unschedulable: n.Spec.Unschedulable,
			BoundPods:     perNode[n.Name],
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// labNodes selects the lab's simulated nodes.
var labNodes = labels.Set{NodeSelectorLabel: nodeSelectorValue}.String()

// AddNode adds a simulated node to a running member and returns it as
// created. A zero CPU, Memory or Pods is taken from the member's last node
// (or DefaultMember's), an empty Zone is the next of the region's zones in
// turn. kwok makes the node Ready within a second or so; AddNode does not
// wait for it.
func (l *Lab) AddNode(ctx context.Context, cluster string, n Node) (Node, error) {
	err := l.update(ctx, func(st *state) error {
		c, cs, err := l.nodeClient(st, cluster)
		if err != nil {
			return err
		}
		if n, err = completeNode(c.Nodes, c.Name, c.Region, n); err != nil {
			return err
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, nodeObject(n, c.Region), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("cluster %s: creating node %s: %w", c.Name, n.Name, err)
		}
		c.Nodes = append(c.Nodes, n)
		l.log("added node %s to %s: %s CPU, %s memory, %d pods, zone %s", n.Name, c.Name, n.CPU.String(), n.Memory.String(), n.Pods, n.Zone)
		return nil
	})
	return n, err
}

// RemoveNode deletes a simulated node of a running member, and its pods at
// once, as when a machine is lost: their controllers create them again on
// the nodes that remain, where they fit.
func (l *Lab) RemoveNode(ctx context.Context, cluster, name string) error {
	return l.update(ctx, func(st *state) error {
		c, cs, err := l.nodeClient(st, cluster)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(c.Nodes, func(n Node) bool { return n.Name == name })
		if i < 0 {
			return fmt.Errorf("cluster %s has no node %s of the lab (nodes: %s)", c.Name, name, nodeNames(c.Nodes))
		}
		if err := cs.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("cluster %s: deleting node %s: %w", c.Name, name, err)
		}
		c.Nodes = slices.Delete(c.Nodes, i, i+1)
		pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + name})
		if err != nil {
			return fmt.Errorf("cluster %s: node %s is gone, but listing its pods failed (they stay until deleted): %w", c.Name, name, err)
		}
		now := int64(0)
		for _, p := range pods.Items {
			err := cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &now})
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("cluster %s: node %s is gone, but deleting its pod %s/%s failed: %w", c.Name, name, p.Namespace, p.Name, err)
			}
		}
		l.log("removed node %s from %s, and its %d pods", name, c.Name, len(pods.Items))
		return nil
	})
}

// CordonNode marks a simulated node unschedulable, or schedulable again:
// the scheduler places no new pod on a cordoned node, and the pods it runs
// stay. It returns once the node's unschedulable taint, which the
// controller manager adds and removes after the mark, agrees with it: the
// mark has then gone out to the cluster's components, and a pod created
// next is scheduled by it.
func (l *Lab) CordonNode(ctx context.Context, cluster, name string, cordon bool) error {
	st, err := readState(l.dir)
	if err != nil {
		return err
	}
	c, cs, err := l.nodeClient(st, cluster)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, cordon)
	if _, err := cs.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("cluster %s: marking node %s unschedulable=%t: %w", c.Name, name, cordon, err)
	}
	ctx, cancel := context.WithTimeout(ctx, taintWait)
	defer cancel()
	for {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("cluster %s: node %s marked unschedulable=%t, but reading it back failed: %w", c.Name, name, cordon, err)
		}
		if hasUnschedulableTaint(n) == cordon {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster %s: node %s marked unschedulable=%t, but kube-controller-manager has not followed with its taint: %w", c.Name, name, cordon, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}

// taintWait bounds CordonNode's wait for the controller manager, which
// follows a cordon within milliseconds when it runs.
const taintWait = 30 * time.Second

// hasUnschedulableTaint reports whether n carries the taint the controller
// manager gives a cordoned node.
func hasUnschedulableTaint(n *corev1.Node) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeUnschedulable })
}

// nodeClient checks that a cluster can have nodes now, and returns its
// record and a client of its kube-apiserver.
func (l *Lab) nodeClient(st *state, cluster string) (*clusterState, kubernetes.Interface, error) {
	c, err := st.cluster(cluster)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case st.Mode == ModePlain:
		return nil, nil, fmt.Errorf("the lab in %s is plain (kube-apiservers only): its clusters have no nodes; run a full lab for nodes", l.dir)
	case st.isHost(c.Name):
		return nil, nil, fmt.Errorf("cluster %s is the federation host: only members have nodes", c.Name)
	case !c.APIServer.running():
		return nil, nil, fmt.Errorf("cluster %s is stopped: start it first (kubefed-lab start %s)", c.Name, c.Name)
	}
	cs, err := kubernetes.NewForConfig(l.directConfig(c))
	if err != nil {
		return nil, nil, fmt.Errorf("cluster %s: %w", c.Name, err)
	}
	return c, cs, nil
}

// completeNode checks a node to add to a member and fills in what was left
// out, from the member's existing nodes.
func completeNode(existing []Node, cluster, region string, n Node) (Node, error) {
	if errs := validation.IsDNS1123Subdomain(n.Name); len(errs) > 0 {
		return Node{}, fmt.Errorf("node name %q: %s", n.Name, strings.Join(errs, "; "))
	}
	if slices.ContainsFunc(existing, func(e Node) bool { return e.Name == n.Name }) {
		return Node{}, fmt.Errorf("cluster %s already has a node %s", cluster, n.Name)
	}
	like := Node{CPU: DefaultMember(cluster).Nodes[0].CPU, Memory: DefaultMember(cluster).Nodes[0].Memory, Pods: defaultPods}
	if len(existing) > 0 {
		like = existing[len(existing)-1]
	}
	if n.CPU.IsZero() {
		n.CPU = like.CPU
	}
	if n.Memory.IsZero() {
		n.Memory = like.Memory
	}
	if n.Pods == 0 {
		n.Pods = like.Pods
	}
	if n.Zone == "" {
		n.Zone = region + "-" + zones[len(existing)%len(zones)]
	}
	p := NodePool{Count: 1, CPU: n.CPU, Memory: n.Memory, Pods: n.Pods}
	if err := p.validate(); err != nil {
		return Node{}, fmt.Errorf("node %s: %w", n.Name, err)
	}
	return n, nil
}

// countNodes reads how many of a member's simulated nodes are Ready.
func (l *Lab) countNodes(ctx context.Context, c *clusterState) (total, ready int) {
	total = len(c.Nodes)
	cs, err := kubernetes.NewForConfig(l.directConfig(c))
	if err != nil {
		return total, 0
	}
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: labNodes})
	if err != nil {
		return total, 0
	}
	r := readyNodes(list.Items)
	for _, n := range c.Nodes {
		if r[n.Name] {
			ready++
		}
	}
	return total, ready
}

func nodeNames(nodes []Node) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	return strings.Join(names, ", ")
}
