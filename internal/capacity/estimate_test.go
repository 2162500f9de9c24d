package capacity

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// list builds a ResourceList from name/quantity pairs.
func list(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

// node is a Ready node with the given allocatable, changed by the options.
func node(name string, allocatable corev1.ResourceList, options ...func(*corev1.Node)) corev1.Node {
	n := corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: corev1.NodeStatus{
			Allocatable: allocatable,
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	for _, o := range options {
		o(&n)
	}
	return n
}

// worker is a node of 4 cpu, 16Gi of memory and 110 pod slots.
func worker(name string, options ...func(*corev1.Node)) corev1.Node {
	return node(name, list("cpu", "4", "memory", "16Gi", "pods", "110"), options...)
}

func cordoned(n *corev1.Node) { n.Spec.Unschedulable = true }

func withCondition(status corev1.ConditionStatus) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Status.Conditions[0].Status = status }
}

func withoutConditions(n *corev1.Node) { n.Status.Conditions = nil }

func tainted(key, value string, effect corev1.TaintEffect) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func labelled(key, value string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Labels[key] = value }
}

// pod is a pod of one container with the given requests, bound to nodeName.
func pod(nodeName string, phase corev1.PodPhase, requests corev1.ResourceList) corev1.Pod {
	return corev1.Pod{
		Spec: corev1.PodSpec{
			NodeName:   nodeName,
			Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: requests}}},
		},
		Status: corev1.PodStatus{Phase: phase},
	}
}

func pods(n int, nodeName string, requests corev1.ResourceList) []corev1.Pod {
	out := make([]corev1.Pod, n)
	for i := range out {
		out[i] = pod(nodeName, corev1.PodRunning, requests)
	}
	return out
}

func affinity(terms ...corev1.NodeSelectorTerm) *corev1.NodeAffinity {
	return &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}
}

func expression(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

var oneCPU = Replica{Requests: list("cpu", "1", "memory", "1Gi")}

func TestEstimate(t *testing.T) {
	cases := []struct {
		name        string
		replica     Replica
		member      Member
		replicas    int64
		schedulable int
		skipped     map[Skip]int
		limitedBy   map[corev1.ResourceName]int
	}{
		{
			name: "three empty nodes hold what their cpu allows", replica: oneCPU,
			member:   Member{Nodes: []corev1.Node{worker("a"), worker("b"), worker("c")}},
			replicas: 12, schedulable: 3, limitedBy: map[corev1.ResourceName]int{"cpu": 3},
		},
		{
			name: "memory runs out before cpu", replica: Replica{Requests: list("cpu", "1", "memory", "6Gi")},
			member:   Member{Nodes: []corev1.Node{worker("a")}},
			replicas: 2, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"memory": 1},
		},
		{
			name: "pods already bound take their requests", replica: oneCPU,
			member: Member{Nodes: []corev1.Node{worker("a"), worker("b")},
				Pods: append(pods(3, "a", list("cpu", "1")), pods(1, "b", list("cpu", "500m"))...)},
			replicas: 1 + 3, schedulable: 2, limitedBy: map[corev1.ResourceName]int{"cpu": 2},
		},
		{
			name: "pods bound elsewhere or not bound take nothing here", replica: oneCPU,
			member: Member{Nodes: []corev1.Node{worker("a")},
				Pods: append(pods(2, "gone", list("cpu", "2")), pod("", corev1.PodPending, list("cpu", "4")))},
			replicas: 4, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "terminated pods are ignored", replica: oneCPU,
			member: Member{Nodes: []corev1.Node{worker("a")}, Pods: []corev1.Pod{
				pod("a", corev1.PodSucceeded, list("cpu", "2")),
				pod("a", corev1.PodFailed, list("cpu", "2")),
				pod("a", corev1.PodPending, list("cpu", "1")),
			}},
			replicas: 3, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "an overcommitted node holds none rather than a negative count", replica: oneCPU,
			member:   Member{Nodes: []corev1.Node{worker("a"), worker("b")}, Pods: pods(1, "a", list("cpu", "6"))},
			replicas: 4, schedulable: 2, limitedBy: map[corev1.ResourceName]int{"cpu": 2},
		},
		{
			name: "a cordoned node is skipped", replica: oneCPU,
			member:   Member{Nodes: []corev1.Node{worker("a"), worker("b", cordoned)}},
			replicas: 4, schedulable: 1, skipped: map[Skip]int{SkipCordoned: 1}, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "a cordoned node takes a replica that tolerates unschedulable",
			replica: Replica{Requests: list("cpu", "1"), Tolerations: []corev1.Toleration{
				{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}},
			member:   Member{Nodes: []corev1.Node{worker("a", cordoned)}},
			replicas: 4, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "a NotReady node is skipped", replica: oneCPU,
			member:   Member{Nodes: []corev1.Node{worker("a"), worker("b", withCondition(corev1.ConditionFalse)), worker("c", withCondition(corev1.ConditionUnknown))}},
			replicas: 4, schedulable: 1, skipped: map[Skip]int{SkipNotReady: 2}, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "a node that reports no Ready condition is skipped", replica: oneCPU,
			member:   Member{Nodes: []corev1.Node{worker("a", withoutConditions)}},
			replicas: 0, schedulable: 0, skipped: map[Skip]int{SkipNotReady: 1},
		},
		{
			name: "a not ready node is counted as not ready even when also cordoned", replica: oneCPU,
			member:   Member{Nodes: []corev1.Node{worker("a", cordoned, withCondition(corev1.ConditionFalse))}},
			replicas: 0, skipped: map[Skip]int{SkipNotReady: 1},
		},
		{
			name: "untolerated NoSchedule and NoExecute taints skip the node", replica: oneCPU,
			member: Member{Nodes: []corev1.Node{
				worker("a", tainted("dedicated", "gpu", corev1.TaintEffectNoSchedule)),
				worker("b", tainted("dedicated", "gpu", corev1.TaintEffectNoExecute)),
				worker("c"),
			}},
			replicas: 4, schedulable: 1, skipped: map[Skip]int{SkipTainted: 2}, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "a PreferNoSchedule taint does not skip the node", replica: oneCPU,
			member:   Member{Nodes: []corev1.Node{worker("a", tainted("dedicated", "gpu", corev1.TaintEffectPreferNoSchedule))}},
			replicas: 4, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "tolerated taints keep the node, by value or by key",
			replica: Replica{Requests: list("cpu", "1"), Tolerations: []corev1.Toleration{
				{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
				{Key: "spot", Operator: corev1.TolerationOpExists},
			}},
			member: Member{Nodes: []corev1.Node{
				worker("a", tainted("dedicated", "gpu", corev1.TaintEffectNoSchedule)),
				worker("b", tainted("spot", "true", corev1.TaintEffectNoExecute)),
				worker("c", tainted("dedicated", "db", corev1.TaintEffectNoSchedule)),
			}},
			replicas: 8, schedulable: 2, skipped: map[Skip]int{SkipTainted: 1}, limitedBy: map[corev1.ResourceName]int{"cpu": 2},
		},
		{
			name: "a toleration of another effect does not tolerate the taint",
			replica: Replica{Requests: list("cpu", "1"), Tolerations: []corev1.Toleration{
				{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}},
			member:   Member{Nodes: []corev1.Node{worker("a", tainted("dedicated", "gpu", corev1.TaintEffectNoExecute))}},
			replicas: 0, skipped: map[Skip]int{SkipTainted: 1},
		},
		{
			name:    "the node selector keeps the matching nodes",
			replica: Replica{Requests: list("cpu", "1"), NodeSelector: map[string]string{"disk": "ssd"}},
			member: Member{Nodes: []corev1.Node{
				worker("a", labelled("disk", "ssd")), worker("b", labelled("disk", "hdd")), worker("c"),
			}},
			replicas: 4, schedulable: 1, skipped: map[Skip]int{SkipNodeSelector: 2}, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name:    "required affinity In keeps the listed zones",
			replica: Replica{Requests: list("cpu", "1"), Affinity: affinity(expression("zone", corev1.NodeSelectorOpIn, "z1", "z2"))},
			member: Member{Nodes: []corev1.Node{
				worker("a", labelled("zone", "z1")), worker("b", labelled("zone", "z2")), worker("c", labelled("zone", "z3")),
			}},
			replicas: 8, schedulable: 2, skipped: map[Skip]int{SkipNodeAffinity: 1}, limitedBy: map[corev1.ResourceName]int{"cpu": 2},
		},
		{
			name: "affinity terms are ORed and expressions in a term ANDed",
			replica: Replica{Requests: list("cpu", "1"), Affinity: affinity(
				corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"z1"}},
					{Key: "spot", Operator: corev1.NodeSelectorOpDoesNotExist},
				}},
				expression("cores", corev1.NodeSelectorOpGt, "8"),
			)},
			member: Member{Nodes: []corev1.Node{
				worker("a", labelled("zone", "z1")),
				worker("b", labelled("zone", "z1"), labelled("spot", "true")),
				worker("c", labelled("cores", "16")),
				worker("d", labelled("cores", "4")),
			}},
			replicas: 8, schedulable: 2, skipped: map[Skip]int{SkipNodeAffinity: 2}, limitedBy: map[corev1.ResourceName]int{"cpu": 2},
		},
		{
			name: "affinity can name nodes by field",
			replica: Replica{Requests: list("cpu", "1"), Affinity: affinity(corev1.NodeSelectorTerm{
				MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}}}})},
			member:   Member{Nodes: []corev1.Node{worker("a"), worker("b")}},
			replicas: 4, schedulable: 1, skipped: map[Skip]int{SkipNodeAffinity: 1}, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name:     "an empty affinity term matches no node",
			replica:  Replica{Requests: list("cpu", "1"), Affinity: affinity(corev1.NodeSelectorTerm{})},
			member:   Member{Nodes: []corev1.Node{worker("a")}},
			replicas: 0, skipped: map[Skip]int{SkipNodeAffinity: 1},
		},
		{
			name: "preferred affinity alone keeps every node",
			replica: Replica{Requests: list("cpu", "1"), Affinity: &corev1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 1, Preference: expression("zone", corev1.NodeSelectorOpIn, "z9")}}}},
			member:   Member{Nodes: []corev1.Node{worker("a")}},
			replicas: 4, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "a replica without requests is bounded by the pod slots", replica: Replica{},
			member:   Member{Nodes: []corev1.Node{worker("a"), worker("b")}, Pods: pods(10, "a", list("cpu", "100m"))},
			replicas: 100 + 110, schedulable: 2, limitedBy: map[corev1.ResourceName]int{"pods": 2},
		},
		{
			name: "zero requests count as none", replica: Replica{Requests: list("cpu", "0", "memory", "0")},
			member:   Member{Nodes: []corev1.Node{worker("a")}},
			replicas: 110, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"pods": 1},
		},
		{
			name: "the pod count limits small replicas", replica: Replica{Requests: list("cpu", "100m")},
			member: Member{Nodes: []corev1.Node{node("a", list("cpu", "4", "pods", "5"))},
				Pods: pods(3, "a", list())},
			replicas: 2, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"pods": 1},
		},
		{
			name: "a node that lists no pod slots holds none", replica: oneCPU,
			member:   Member{Nodes: []corev1.Node{node("a", list("cpu", "4", "memory", "16Gi"))}},
			replicas: 0, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"pods": 1},
		},
		{
			name: "ephemeral storage bounds when requested", replica: Replica{Requests: list("ephemeral-storage", "10Gi")},
			member:   Member{Nodes: []corev1.Node{node("a", list("cpu", "4", "ephemeral-storage", "35Gi", "pods", "110"))}},
			replicas: 3, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"ephemeral-storage": 1},
		},
		{
			name: "an extended resource only fits where nodes offer it", replica: Replica{Requests: list("cpu", "1", "example.com/gpu", "1")},
			member: Member{Nodes: []corev1.Node{
				worker("a"), node("b", list("cpu", "8", "example.com/gpu", "2", "pods", "110")),
			}},
			replicas: 2, schedulable: 2, limitedBy: map[corev1.ResourceName]int{"example.com/gpu": 2},
		},
		{
			name: "init containers bigger than the containers hold their peak on the node", replica: oneCPU,
			member: Member{Nodes: []corev1.Node{worker("a")}, Pods: []corev1.Pod{{
				Spec: corev1.PodSpec{NodeName: "a",
					InitContainers: []corev1.Container{{Name: "migrate", Resources: corev1.ResourceRequirements{Requests: list("cpu", "3")}}},
					Containers:     []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: list("cpu", "1")}}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning},
			}}},
			replicas: 1, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "replicas already running are added to what fits", replica: oneCPU,
			member:   Member{Nodes: []corev1.Node{worker("a")}, Pods: pods(3, "a", list("cpu", "1")), Running: 3},
			replicas: 1 + 3, schedulable: 1, limitedBy: map[corev1.ResourceName]int{"cpu": 1},
		},
		{
			name: "no nodes hold only what runs", replica: oneCPU,
			member:   Member{Running: 2},
			replicas: 2,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Estimate(tc.replica, tc.member)
			if got.Replicas != tc.replicas {
				t.Errorf("replicas = %d, want %d (%s)", got.Replicas, tc.replicas, got.Reason())
			}
			if got.Replicas != got.Fit+tc.member.Running {
				t.Errorf("replicas %d is not fit %d plus running %d", got.Replicas, got.Fit, tc.member.Running)
			}
			if got.Schedulable != tc.schedulable || got.Nodes != len(tc.member.Nodes) {
				t.Errorf("schedulable %d of %d nodes, want %d of %d", got.Schedulable, got.Nodes, tc.schedulable, len(tc.member.Nodes))
			}
			if !maps.Equal(got.Skipped, orEmpty(tc.skipped)) {
				t.Errorf("skipped = %v, want %v", got.Skipped, tc.skipped)
			}
			if !maps.Equal(got.LimitedBy, orEmpty(tc.limitedBy)) {
				t.Errorf("limited by %v, want %v", got.LimitedBy, tc.limitedBy)
			}
			reversed := Member{Nodes: slices.Clone(tc.member.Nodes), Pods: slices.Clone(tc.member.Pods), Running: tc.member.Running}
			slices.Reverse(reversed.Nodes)
			slices.Reverse(reversed.Pods)
			if again := Estimate(tc.replica, reversed); again.Replicas != got.Replicas || !maps.Equal(again.LimitedBy, got.LimitedBy) {
				t.Errorf("reversed nodes and pods give %+v, want %+v", again, got)
			}
		})
	}
}

func orEmpty[K comparable](m map[K]int) map[K]int {
	if m == nil {
		return map[K]int{}
	}
	return m
}

func TestEstimateFromPodSpec(t *testing.T) {
	spec := corev1.PodSpec{
		NodeSelector:   map[string]string{"pool": "web"},
		Tolerations:    []corev1.Toleration{{Key: "web", Operator: corev1.TolerationOpExists}},
		Affinity:       &corev1.Affinity{NodeAffinity: affinity(expression("zone", corev1.NodeSelectorOpNotIn, "z3"))},
		InitContainers: []corev1.Container{{Name: "warm", Resources: corev1.ResourceRequirements{Requests: list("cpu", "2")}}},
		Containers:     []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: list("cpu", "500m")}}},
	}
	web := func(n *corev1.Node) { n.Labels["pool"] = "web" }
	member := Member{Nodes: []corev1.Node{
		worker("a", web, tainted("web", "", corev1.TaintEffectNoSchedule), labelled("zone", "z1")),
		worker("b", web, labelled("zone", "z3")),
		worker("c", labelled("zone", "z1")),
	}}
	got := Estimate(ReplicaFromPodSpec(spec), member)
	// The init container's 2 cpu is the replica's request: 2 fit on the 4 cpu of a.
	if got.Replicas != 2 || got.Skipped[SkipNodeAffinity] != 1 || got.Skipped[SkipNodeSelector] != 1 {
		t.Fatalf("estimate = %+v, want 2 replicas on a, b skipped by affinity, c by selector", got)
	}
}

func TestReason(t *testing.T) {
	cases := []struct {
		name   string
		result Result
		want   string
	}{
		{
			name:   "every node schedulable and one resource limiting",
			result: Estimate(oneCPU, Member{Nodes: []corev1.Node{worker("a"), worker("b")}}),
			want:   "2 of 2 nodes schedulable; room for 8 more replicas, limited by cpu",
		},
		{
			name: "skipped nodes, mixed limits and running replicas",
			result: Estimate(oneCPU, Member{
				Nodes: []corev1.Node{worker("a"), worker("b", cordoned), worker("c", withCondition(corev1.ConditionFalse)),
					node("d", list("cpu", "4", "memory", "16Gi", "pods", "1")), worker("e")},
				Running: 3,
			}),
			want: "3 of 5 nodes schedulable (1 not ready, 1 cordoned); room for 9 more replicas, limited by cpu on 2 nodes, pods on 1 node; plus 3 running",
		},
		{
			name:   "a single replica of room",
			result: Estimate(oneCPU, Member{Nodes: []corev1.Node{worker("a")}, Pods: pods(3, "a", list("cpu", "1"))}),
			want:   "1 of 1 nodes schedulable; room for 1 more replica, limited by cpu",
		},
		{
			name:   "no nodes",
			result: Estimate(oneCPU, Member{}),
			want:   "0 of 0 nodes schedulable; room for 0 more replicas",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.result.Reason(); got != tc.want {
				t.Errorf("Reason() = %q\nwant       %q", got, tc.want)
			}
		})
	}
}
