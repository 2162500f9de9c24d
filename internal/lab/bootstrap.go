package lab

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// bootstrapPoll paces the waits on a cluster's API: fast enough that a
// ready lab is reported within a fraction of a second, slow enough not to
// load four apiservers on two cores.
const bootstrapPoll = 200 * time.Millisecond

// directConfig reaches a cluster's kube-apiserver as its administrator
// without going through the latency proxy: the lab's own work on a
// cluster happens inside it, not across the simulated network.
func (l *Lab) directConfig(c *clusterState) *rest.Config {
	cfg := l.Cluster(c.Name).RESTConfig()
	cfg.Host = fmt.Sprintf("https://127.0.0.1:%d", c.APIServerPort)
	cfg.QPS, cfg.Burst = 50, 100
	return cfg
}

// bootstrapMember writes what a member's control components need before
// they start: kwok's rights, and the simulated nodes still missing.
func bootstrapMember(ctx context.Context, cs kubernetes.Interface, c *clusterState) error {
	if err := bootstrapRBAC(ctx, cs); err != nil {
		return fmt.Errorf("cluster %s: granting kwok its rights: %w", c.Name, err)
	}
	for _, n := range c.Nodes {
		_, err := cs.CoreV1().Nodes().Create(ctx, nodeObject(n, c.Region), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("cluster %s: creating node %s: %w", c.Name, n.Name, err)
		}
	}
	return nil
}

// releaseNodeLeases deletes the leases of a member's nodes before kwok
// starts. A kwok that ran before left them held in its own name, and a new
// kwok, which has another, keeps off the nodes until they expire: for 40
// seconds after a restart the member would run no pod. Without them the new
// kwok takes the nodes at once.
func releaseNodeLeases(ctx context.Context, cs kubernetes.Interface, c *clusterState) error {
	for _, n := range c.Nodes {
		err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(ctx, n.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("cluster %s: releasing the lease of node %s for kwok: %w", c.Name, n.Name, err)
		}
	}
	return nil
}

// kwokRole is what kwok needs to act as the kubelet of its nodes: see
// nodes and pods, write their status, renew the nodes' leases, delete pods
// that are going away, and record events.
var kwokRole = &rbacv1.ClusterRole{
	ObjectMeta: metav1.ObjectMeta{Name: kwokUser},
	Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"nodes/status", "pods/status"}, Verbs: []string{"patch", "update"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"delete"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
	},
}

func bootstrapRBAC(ctx context.Context, cs kubernetes.Interface) error {
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, kwokRole, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: kwokUser},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: kwokUser},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: kwokUser}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// nodeObject is the Node the lab creates for n: labelled for kwok and the
// scheduler's topology, with its capacity in the status, which kwok keeps
// when it makes the node Ready.
func nodeObject(n Node, region string) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    n.CPU,
		corev1.ResourceMemory: n.Memory,
		corev1.ResourcePods:   *resource.NewQuantity(n.Pods, resource.DecimalSI),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: n.Name,
			Labels: map[string]string{
				NodeSelectorLabel:        nodeSelectorValue,
				HostnameLabel:            n.Name,
				RegionLabel:              region,
				ZoneLabel:                n.Zone,
				corev1.LabelOSStable:     "linux",
				corev1.LabelArchStable:   "amd64",
				corev1.LabelInstanceType: "kwok",
			},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity.DeepCopy()},
	}
}

// waitWorking waits until a cluster's control components do their work:
// the service-account controller has given the default namespace its
// service account (without which no pod can be created), and kwok has made
// every node of the lab Ready and holds its lease. It checks that the
// components still run while it waits, and quotes the log of one that
// exited.
func (l *Lab) waitWorking(ctx context.Context, cs kubernetes.Interface, c *clusterState, comps []component) error {
	for {
		last := working(ctx, cs, c)
		if last == nil {
			return nil
		}
		for _, comp := range comps {
			if !c.proc(comp).running() {
				return l.exitedError(c.Name, comp)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster %s: not working (%w): %w; see the logs in %s", c.Name, last, ctx.Err(), l.clusterDir(c.Name))
		case <-time.After(bootstrapPoll):
		}
	}
}

// working reports what a cluster still lacks, or nil.
func working(ctx context.Context, cs kubernetes.Interface, c *clusterState) error {
	if _, err := cs.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{}); err != nil {
		return fmt.Errorf("no default service account yet (kube-controller-manager): %w", err)
	}
	if len(c.Nodes) == 0 {
		return nil
	}
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: labNodes})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	ready := readyNodes(list.Items)
	for _, n := range c.Nodes {
		if !ready[n.Name] {
			return fmt.Errorf("node %s not Ready yet (kwok)", n.Name)
		}
	}
	leases, err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing node leases: %w", err)
	}
	held := map[string]bool{}
	for _, l := range leases.Items {
		held[l.Name] = l.Spec.HolderIdentity != nil
	}
	for _, n := range c.Nodes {
		if !held[n.Name] {
			return fmt.Errorf("node %s has no lease yet (kwok)", n.Name)
		}
	}
	return nil
}

// readyNodes is the set of nodes whose Ready condition is True.
func readyNodes(nodes []corev1.Node) map[string]bool {
	ready := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready[n.Name] = true
			}
		}
	}
	return ready
}
