package capacity_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/capacity"
)

// A member of two 4-cpu nodes, one of them cordoned, where the workload
// runs one replica of 1 cpu and has a second pod stuck Unschedulable for two
// minutes.
func ExampleEstimate() {
	requests, err := capacity.ParseRequests(map[string]string{"cpu": "1", "memory": "512Mi"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	allocatable := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods: resource.MustParse("110"),
	}
	nodes := []corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Status: corev1.NodeStatus{Allocatable: allocatable, Conditions: ready}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: corev1.NodeSpec{Unschedulable: true},
			Status: corev1.NodeStatus{Allocatable: allocatable, Conditions: ready}},
	}
	app := corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: requests}}}}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	workload := []corev1.Pod{
		{Spec: corev1.PodSpec{NodeName: "a", Containers: app.Containers}, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
		{Spec: app, Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			LastTransitionTime: metav1.NewTime(now.Add(-2 * time.Minute))}}}},
	}

	est := capacity.Estimate(capacity.ReplicaFromPodSpec(app), capacity.Member{
		Nodes: nodes, Pods: workload, Running: capacity.BoundReplicas(workload),
	})
	fmt.Println(est.Replicas, "-", est.Reason())
	est = est.WithFeedback(capacity.Unschedulable(workload, now, capacity.DefaultUnschedulableAfter))
	fmt.Println(est.Replicas, "-", est.Reason())
	// Output:
	// 4 - 1 of 2 nodes schedulable (1 cordoned); room for 3 more replicas, limited by cpu; plus 1 running
	// 1 - 1 of 2 nodes schedulable (1 cordoned); room for 3 more replicas, limited by cpu; plus 1 running; capped at 1: 1 pod unschedulable for over 1m0s
}
