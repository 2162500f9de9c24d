package capacity

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// DefaultUnschedulableAfter is how long a pod of the workload must have been
// unschedulable before the feedback caps the cluster, KubeFed's threshold.
const DefaultUnschedulableAfter = 60 * time.Second

// Feedback is what the member's scheduler said of the workload's own pods.
type Feedback struct {
	// Pods counts the workload's pods that are not terminated.
	Pods int64
	// Stuck counts those of them that are Pending with PodScheduled=False,
	// reason Unschedulable, since longer than After.
	Stuck int64
	// After is the threshold the pods were judged with.
	After time.Duration
}

// Unschedulable reads the feedback from the workload's pods on one member,
// judged at now. A pod counts as stuck once its PodScheduled condition has
// been False with reason Unschedulable for strictly longer than after; a
// threshold of 0 or less counts every such pod at once.
func Unschedulable(workloadPods []corev1.Pod, now time.Time, after time.Duration) Feedback {
	f := Feedback{After: max(after, 0)}
	for i := range workloadPods {
		pod := &workloadPods[i]
		if terminated(pod) {
			continue
		}
		f.Pods++
		if stuck(pod, now, f.After) {
			f.Stuck++
		}
	}
	return f
}

func stuck(pod *corev1.Pod, now time.Time, after time.Duration) bool {
	if pod.Status.Phase != corev1.PodPending {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable &&
				c.LastTransitionTime.Add(after).Before(now)
		}
	}
	return false
}

// Cap is the capacity the feedback allows: the workload's pods that the
// scheduler did not give up on. It is meaningful only when Stuck > 0.
func (f Feedback) Cap() int64 {
	return f.Pods - f.Stuck
}

// WithFeedback caps the estimate at f.Cap() when some pods are stuck: the
// member's scheduler knows better than an estimate from requests alone (it
// sees pod affinity, ports, volumes). Without stuck pods the estimate stands.
func (r Result) WithFeedback(f Feedback) Result {
	r.Feedback = f
	if f.Stuck > 0 && f.Cap() < r.Replicas {
		r.Replicas = f.Cap()
		r.Capped = true
	}
	return r
}

// BoundReplicas counts the workload's pods that hold resources on a node:
// bound to one and not terminated. It is what Member.Running should be.
func BoundReplicas(workloadPods []corev1.Pod) int64 {
	var n int64
	for i := range workloadPods {
		if workloadPods[i].Spec.NodeName != "" && !terminated(&workloadPods[i]) {
			n++
		}
	}
	return n
}
