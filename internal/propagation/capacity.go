package propagation

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// CapacitySource is what a member holds that bounds how many replicas of a
// workload it can run: its Nodes, its Pods and the pods of the workload.
type CapacitySource struct {
	Cluster string
	Nodes   []corev1.Node
	// Pods are the member's pods that have not finished, in every namespace.
	Pods []corev1.Pod
	// WorkloadFound is false when the member has no such workload; then
	// WorkloadPods is empty.
	WorkloadFound bool
	// WorkloadPods are those of Pods that the workload's selector picks in
	// its namespace.
	WorkloadPods []corev1.Pod
	// Err is nil when everything was read; Forbidden says the member
	// refused the credentials one of the reads.
	Err       error
	Forbidden bool
}

// pageSize bounds one list response; a member with many pods answers in
// pages rather than in one large body.
const pageSize = 500

var (
	nodesResource = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	podsResource  = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	// unfinished leaves out the pods that hold nothing on their node.
	unfinished = "status.phase!=" + string(corev1.PodSucceeded) + ",status.phase!=" + string(corev1.PodFailed)
)

// ReadCapacity reads, from every member at once (at most opts.MaxParallel
// at a time, each under opts.Timeout), its Nodes, its unfinished Pods and
// the workload, whose selector picks its pods among them; a nil workload is
// one that cannot exist yet (its type is not enabled). The results are
// sorted by cluster; a failure on one member never stops the others.
func ReadCapacity(ctx context.Context, members []Member, workload *Object, opts Options) []CapacitySource {
	sources := make(map[string]*CapacitySource, len(members))
	byName := make(map[string]Member, len(members))
	for _, m := range members {
		sources[m.Name] = &CapacitySource{Cluster: m.Name}
		byName[m.Name] = m
	}
	results := FanOut(ctx, slices.Collect(maps.Keys(byName)), opts, func(ctx context.Context, cluster string) (struct{}, error) {
		return struct{}{}, readCapacity(ctx, byName[cluster], workload, sources[cluster])
	})
	out := make([]CapacitySource, len(results))
	for i, r := range results {
		out[i] = *sources[r.Cluster]
		out[i].Err = r.Err
		out[i].Forbidden = kube.Classify(r.Err) == kube.FailureForbidden
	}
	return out
}

// readCapacity makes the member's three reads concurrently: each costs a
// round trip, and members are often far away.
func readCapacity(ctx context.Context, m Member, workload *Object, into *CapacitySource) error {
	var (
		wg                        sync.WaitGroup
		nodesErr, podsErr, getErr error
		selector                  labels.Selector
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		into.Nodes, nodesErr = listNodes(ctx, m)
	}()
	go func() {
		defer wg.Done()
		into.Pods, podsErr = listPods(ctx, m)
	}()
	go func() {
		defer wg.Done()
		if workload != nil {
			selector, into.WorkloadFound, getErr = workloadSelector(ctx, m, *workload)
		}
	}()
	wg.Wait()
	for _, err := range []error{nodesErr, podsErr, getErr} {
		if err != nil {
			return err
		}
	}
	if into.WorkloadFound {
		for _, pod := range into.Pods {
			if pod.Namespace == workload.Namespace && selector.Matches(labels.Set(pod.Labels)) {
				into.WorkloadPods = append(into.WorkloadPods, pod)
			}
		}
	}
	return nil
}

func listNodes(ctx context.Context, m Member) ([]corev1.Node, error) {
	nodes, err := listAll(ctx, "", func(ctx context.Context, opts metav1.ListOptions) ([]corev1.Node, string, error) {
		list, err := m.Clients.Kubernetes.CoreV1().Nodes().List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		return list.Items, list.Continue, nil
	})
	return nodes, explainList(m, nodesResource, err)
}

func listPods(ctx context.Context, m Member) ([]corev1.Pod, error) {
	pods, err := listAll(ctx, unfinished, func(ctx context.Context, opts metav1.ListOptions) ([]corev1.Pod, string, error) {
		list, err := m.Clients.Kubernetes.CoreV1().Pods(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		return list.Items, list.Continue, nil
	})
	return pods, explainList(m, podsResource, err)
}

// listAll lists page by page. When the continuation expires (the member
// compacted its history meanwhile), it starts over in one piece, as
// client-go's pager does.
func listAll[T any](ctx context.Context, fieldSelector string,
	list func(context.Context, metav1.ListOptions) ([]T, string, error)) ([]T, error) {
	var out []T
	opts := metav1.ListOptions{FieldSelector: fieldSelector, Limit: pageSize}
	for {
		items, next, err := list(ctx, opts)
		if apierrors.IsResourceExpired(err) && opts.Continue != "" {
			items, _, err = list(ctx, metav1.ListOptions{FieldSelector: fieldSelector})
			return items, err
		}
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		opts.Continue = next
	}
}

// workloadSelector reads the workload's pod selector: spec.selector, as a
// label selector (Deployments, ReplicaSets, StatefulSets, Jobs) or as a map
// of labels (ReplicationControllers). found is false when the member has no
// such workload.
func workloadSelector(ctx context.Context, m Member, o Object) (labels.Selector, bool, error) {
	live, err := resourceClient(m.Clients, o).Get(ctx, o.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, explain(m, o, err, Options{})
	}
	raw, found, err := unstructured.NestedMap(live.Object, "spec", "selector")
	if err != nil || !found || len(raw) == 0 {
		return nil, true, fmt.Errorf("%s on cluster %q has no spec.selector, so its pods cannot be told from others", o, m.Name)
	}
	selector, err := selectorFrom(raw)
	if err != nil {
		return nil, true, fmt.Errorf("%s on cluster %q: spec.selector: %w", o, m.Name, err)
	}
	return selector, true, nil
}

func selectorFrom(raw map[string]any) (labels.Selector, error) {
	_, hasLabels := raw["matchLabels"]
	_, hasExpressions := raw["matchExpressions"]
	if !hasLabels && !hasExpressions {
		set := labels.Set{}
		for key, value := range raw {
			s, ok := value.(string)
			if !ok {
				return nil, fmt.Errorf("label %q has a value of type %T, not a string", key, value)
			}
			set[key] = s
		}
		return labels.SelectorFromValidatedSet(set), nil
	}
	var ls metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &ls); err != nil {
		return nil, err
	}
	return metav1.LabelSelectorAsSelector(&ls)
}

// explainList says which list failed on which cluster, and for a refusal
// which permission the member's credentials lack.
func explainList(m Member, resource schema.GroupVersionResource, err error) error {
	if err == nil {
		return nil
	}
	endpoint := ""
	if m.Clients != nil && m.Clients.Config != nil {
		endpoint = m.Clients.Config.Host
	}
	hints := member.Hints(m.Name)
	hints.Permissions = fmt.Sprintf("grant the identity of cluster %q's credentials list on nodes and on pods in every "+
		"namespace (a ClusterRole and its binding)", m.Name)
	return fmt.Errorf("listing %s on cluster %q: %w", resource.Resource, m.Name, kube.ExplainWith(endpoint, err, hints))
}
