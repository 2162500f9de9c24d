package capacity

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var now = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// unschedulableFor is a Pending pod the scheduler gave up on d ago.
func unschedulableFor(d time.Duration, reason string) corev1.Pod {
	p := pod("", corev1.PodPending, list("cpu", "1"))
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: reason, LastTransitionTime: metav1.NewTime(now.Add(-d))}}
	return p
}

func running(n int) []corev1.Pod { return pods(n, "a", list("cpu", "1")) }

func TestUnschedulable(t *testing.T) {
	cases := []struct {
		name  string
		pods  []corev1.Pod
		after time.Duration
		want  Feedback
	}{
		{name: "every pod placed", pods: running(3), after: time.Minute, want: Feedback{Pods: 3, After: time.Minute}},
		{name: "unschedulable for less than the threshold is not judged yet",
			pods: append(running(2), unschedulableFor(59*time.Second, corev1.PodReasonUnschedulable)), after: time.Minute,
			want: Feedback{Pods: 3, After: time.Minute}},
		{name: "unschedulable for exactly the threshold is not judged yet",
			pods: append(running(2), unschedulableFor(time.Minute, corev1.PodReasonUnschedulable)), after: time.Minute,
			want: Feedback{Pods: 3, After: time.Minute}},
		{name: "unschedulable past the threshold is stuck",
			pods: append(running(2), unschedulableFor(61*time.Second, corev1.PodReasonUnschedulable),
				unschedulableFor(time.Hour, corev1.PodReasonUnschedulable)), after: time.Minute,
			want: Feedback{Pods: 4, Stuck: 2, After: time.Minute}},
		{name: "a longer threshold waits longer",
			pods: append(running(1), unschedulableFor(2*time.Minute, corev1.PodReasonUnschedulable)), after: 5 * time.Minute,
			want: Feedback{Pods: 2, After: 5 * time.Minute}},
		{name: "a zero threshold judges at once",
			pods: append(running(1), unschedulableFor(time.Second, corev1.PodReasonUnschedulable)), after: 0,
			want: Feedback{Pods: 2, Stuck: 1}},
		{name: "a scheduler error is not a verdict on capacity",
			pods: append(running(1), unschedulableFor(time.Hour, corev1.PodReasonSchedulerError)), after: time.Minute,
			want: Feedback{Pods: 2, After: time.Minute}},
		{name: "terminated pods count for nothing",
			pods:  []corev1.Pod{pod("a", corev1.PodSucceeded, nil), pod("a", corev1.PodFailed, nil), pod("a", corev1.PodRunning, nil)},
			after: time.Minute, want: Feedback{Pods: 1, After: time.Minute}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unschedulable(tc.pods, now, tc.after); got != tc.want {
				t.Errorf("feedback = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestUnschedulableIgnoresAStaleConditionOfARunningPod(t *testing.T) {
	p := unschedulableFor(time.Hour, corev1.PodReasonUnschedulable)
	p.Status.Phase = corev1.PodRunning
	if got := Unschedulable([]corev1.Pod{p}, now, time.Minute); got.Stuck != 0 {
		t.Fatalf("a running pod counted as stuck: %+v", got)
	}
}

func TestWithFeedback(t *testing.T) {
	// Two nodes with room for 8 more, 2 replicas running: an estimate of 10.
	estimate := Estimate(oneCPU, Member{Nodes: []corev1.Node{worker("a"), worker("b")}, Running: 2})
	cases := []struct {
		name     string
		pods     []corev1.Pod
		replicas int64
		capped   bool
	}{
		{name: "before the threshold the estimate stands",
			pods: append(running(2), unschedulableFor(30*time.Second, corev1.PodReasonUnschedulable)), replicas: 10},
		{name: "after the threshold the cluster is capped at what it runs",
			pods: append(running(2), unschedulableFor(90*time.Second, corev1.PodReasonUnschedulable)), replicas: 2, capped: true},
		{name: "a cap above the estimate changes nothing",
			pods: append(running(12), unschedulableFor(90*time.Second, corev1.PodReasonUnschedulable)), replicas: 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := estimate.WithFeedback(Unschedulable(tc.pods, now, DefaultUnschedulableAfter))
			if got.Replicas != tc.replicas || got.Capped != tc.capped {
				t.Fatalf("replicas %d capped %v, want %d capped %v", got.Replicas, got.Capped, tc.replicas, tc.capped)
			}
			if says := strings.Contains(got.Reason(), "unschedulable for over 1m0s"); says != tc.capped {
				t.Errorf("reason %q mentions the cap: %v, want %v", got.Reason(), says, tc.capped)
			}
		})
	}
}

func TestBoundReplicas(t *testing.T) {
	workload := []corev1.Pod{
		pod("a", corev1.PodRunning, nil),
		pod("b", corev1.PodPending, nil),
		pod("", corev1.PodPending, nil),
		pod("a", corev1.PodSucceeded, nil),
		pod("c", corev1.PodFailed, nil),
	}
	if got := BoundReplicas(workload); got != 2 {
		t.Fatalf("BoundReplicas = %d, want 2 (the running pod and the pending one bound to b)", got)
	}
}
