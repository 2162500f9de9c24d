package capacity

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// bigMember is 1,000 nodes of 16 cpu and 64Gi, a tenth of them cordoned or
// tainted, running 30 pods each of two containers and an init container.
func bigMember() Member {
	m := Member{Running: 200}
	for i := range 1000 {
		name := "node-" + strconv.Itoa(i)
		var options []func(*corev1.Node)
		switch i % 10 {
		case 3:
			options = append(options, cordoned)
		case 7:
			options = append(options, tainted("dedicated", "db", corev1.TaintEffectNoSchedule))
		}
		options = append(options, labelled("zone", "z"+strconv.Itoa(i%3)))
		m.Nodes = append(m.Nodes, node(name, list("cpu", "16", "memory", "64Gi", "ephemeral-storage", "200Gi", "pods", "110"), options...))
		for range 30 {
			p := pod(name, corev1.PodRunning, list("cpu", "250m", "memory", "512Mi"))
			p.Spec.Containers = append(p.Spec.Containers, container("proxy", list("cpu", "50m", "memory", "64Mi")))
			p.Spec.InitContainers = []corev1.Container{container("init", list("cpu", "500m"))}
			m.Pods = append(m.Pods, p)
		}
	}
	return m
}

func BenchmarkEstimate1000Nodes30000Pods(b *testing.B) {
	m := bigMember()
	replica := Replica{
		Requests:    list("cpu", "500m", "memory", "1Gi"),
		Tolerations: []corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpExists}},
		Affinity:    affinity(expression("zone", corev1.NodeSelectorOpIn, "z0", "z1")),
	}
	b.ReportAllocs()
	for b.Loop() {
		if est := Estimate(replica, m); est.Schedulable == 0 {
			b.Fatal("no schedulable node")
		}
	}
}

func BenchmarkUnschedulable1000Pods(b *testing.B) {
	pods := make([]corev1.Pod, 1000)
	for i := range pods {
		pods[i] = unschedulableFor(time.Duration(i)*time.Second, corev1.PodReasonUnschedulable)
	}
	b.ReportAllocs()
	for b.Loop() {
		if f := Unschedulable(pods, now, DefaultUnschedulableAfter); f.Stuck == 0 {
			b.Fatal("nothing stuck")
		}
	}
}
