package rollout

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkCheck is one poll of one cluster: a 100-replica Deployment
// mid-rollout, its two ReplicaSets and its pods, one of them crash-looping.
func BenchmarkCheck(b *testing.B) {
	obj := object(b, webDeployment(100, "web:2",
		"{observedGeneration: 2, replicas: 150, updatedReplicas: 50, readyReplicas: 100, availableReplicas: 100}"))
	replicaSets := webReplicaSets(b)
	var pods []corev1.Pod
	for i := range 150 {
		hash := "old"
		if i < 50 {
			hash = "new"
		}
		pods = append(pods, pod(fmt.Sprintf("web-%s-%03d", hash, i), hash, running("app")))
	}
	pods[49] = pod("web-new-049", "new", crashLooping("app", 3, 1))
	w, errs := NewWaiter("apps/v1", "Deployment", Config{})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	o := Observation{Object: obj, ReplicaSets: replicaSets, Pods: pods, Now: now}
	if st := w.Check(o); !st.Failed {
		b.Fatalf("Check = %+v, want the crash loop found", st)
	}
	b.ReportAllocs()
	for b.Loop() {
		w.Check(o)
	}
}
