package rollout

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// pod is a running pod of the web Deployment's ReplicaSet with the given
// hash.
func pod(name, hash string, containers ...corev1.ContainerStatus) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web", podTemplateHashLabel: hash}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: containers},
	}
}

func waiting(container, reason, message string, restarts int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: container, Image: "registry.example.com/web:2", RestartCount: restarts,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}
}

func running(container string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: container, Ready: true,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
}

func crashLooping(container string, restarts, exitCode int32) corev1.ContainerStatus {
	cs := waiting(container, "CrashLoopBackOff", "back-off 40s restarting failed container="+container, restarts)
	cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: "Error"}
	return cs
}

func unschedulable(name string, since time.Duration) corev1.Pod {
	p := pod(name, "new")
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: ReasonUnschedulable,
		Message:            "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available.",
		LastTransitionTime: metav1.NewTime(now.Add(-since)),
	}}}
	return p
}

func TestFailingPods(t *testing.T) {
	terminating := pod("web-new-old1", "new", crashLooping("app", 9, 1))
	terminating.DeletionTimestamp = &metav1.Time{Time: now}
	initLoop := pod("web-new-init", "new", running("app"))
	initLoop.Status.InitContainerStatuses = []corev1.ContainerStatus{crashLooping("migrate", 2, 3)}
	tests := []struct {
		name string
		pods []corev1.Pod
		want []PodFailure
	}{
		{
			name: "running pods are fine",
			pods: []corev1.Pod{pod("web-new-a", "new", running("app"), running("sidecar"))},
		},
		{
			name: "a crash-looping pod",
			pods: []corev1.Pod{pod("web-new-a", "new", running("sidecar"), crashLooping("app", 4, 1))},
			want: []PodFailure{{Reason: "CrashLoopBackOff", Pod: "web-new-a", Container: "app", Restarts: 4,
				Message: "pod web-new-a, container app, restarted 4 times, last exit code 1 (Error)"}},
		},
		{
			name: "a crash-looping init container",
			pods: []corev1.Pod{initLoop},
			want: []PodFailure{{Reason: "CrashLoopBackOff", Pod: "web-new-init", Container: "migrate", Restarts: 2,
				Message: "pod web-new-init, container migrate, restarted 2 times, last exit code 3 (Error)"}},
		},
		{
			name: "an image pull error",
			pods: []corev1.Pod{pod("web-new-a", "new", waiting("app", "ImagePullBackOff", `Back-off pulling image "registry.example.com/web:2"`, 0))},
			want: []PodFailure{{Reason: "ImagePullBackOff", Pod: "web-new-a", Container: "app",
				Message: `pod web-new-a, container app: Back-off pulling image "registry.example.com/web:2"`}},
		},
		{
			name: "the first failed pull of an image, without a message",
			pods: []corev1.Pod{pod("web-new-a", "new", waiting("app", "ErrImagePull", "", 0))},
			want: []PodFailure{{Reason: "ErrImagePull", Pod: "web-new-a", Container: "app",
				Message: `pod web-new-a, container app: image "registry.example.com/web:2"`}},
		},
		{
			name: "an image name that cannot be parsed",
			pods: []corev1.Pod{pod("web-new-a", "new", waiting("app", "InvalidImageName",
				"Failed to apply default image tag \"Web:2\":\ncouldn't parse image name \"Web:2\": invalid reference format", 0))},
			want: []PodFailure{{Reason: "InvalidImageName", Pod: "web-new-a", Container: "app",
				Message: `pod web-new-a, container app: Failed to apply default image tag "Web:2": couldn't parse image name "Web:2": invalid reference format`}},
		},
		{
			name: "a container whose Secret is missing",
			pods: []corev1.Pod{pod("web-new-a", "new", waiting("app", "CreateContainerConfigError", `secret "db" not found`, 0))},
			want: []PodFailure{{Reason: "CreateContainerConfigError", Pod: "web-new-a", Container: "app",
				Message: `pod web-new-a, container app: secret "db" not found`}},
		},
		{
			name: "a container still creating is not a failure",
			pods: []corev1.Pod{pod("web-new-a", "new", waiting("app", "ContainerCreating", "", 0))},
		},
		{
			name: "a pod unschedulable for 30 s is given time",
			pods: []corev1.Pod{unschedulable("web-new-a", 30*time.Second)},
		},
		{
			name: "a pod unschedulable for 90 s fails",
			pods: []corev1.Pod{unschedulable("web-new-a", 90*time.Second)},
			want: []PodFailure{{Reason: ReasonUnschedulable, Pod: "web-new-a",
				Message: "pod web-new-a has found no node for 1m30s: 0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available"}},
		},
		{
			name: "a pod being deleted does not count",
			pods: []corev1.Pod{terminating},
		},
		{
			name: "failing pods come sorted by name, one entry each",
			pods: []corev1.Pod{
				pod("web-new-c", "new", waiting("app", "ErrImagePull", "pull failed", 0)),
				pod("web-new-a", "new", crashLooping("app", 1, 137), crashLooping("sidecar", 1, 2)),
				pod("web-new-b", "new", running("app")),
			},
			want: []PodFailure{
				{Reason: "CrashLoopBackOff", Pod: "web-new-a", Container: "app", Restarts: 1,
					Message: "pod web-new-a, container app, restarted 1 time, last exit code 137 (Error)"},
				{Reason: "ErrImagePull", Pod: "web-new-c", Container: "app", Message: "pod web-new-c, container app: pull failed"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FailingPods(tt.pods, now, time.Minute); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FailingPods:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestUnschedulableWithoutTransitionTimeCountsFromCreation(t *testing.T) {
	p := unschedulable("web-new-a", 0)
	p.Status.Conditions[0].LastTransitionTime = metav1.Time{}
	p.CreationTimestamp = metav1.NewTime(now.Add(-2 * time.Minute))
	if got := FailingPods([]corev1.Pod{p}, now, time.Minute); len(got) != 1 || got[0].Reason != ReasonUnschedulable {
		t.Errorf("FailingPods = %+v, want the pod unschedulable since its creation 2m ago", got)
	}
	p.CreationTimestamp = metav1.Time{}
	if got := FailingPods([]corev1.Pod{p}, now, time.Minute); len(got) != 0 {
		t.Errorf("FailingPods = %+v, want nothing when no time says how long", got)
	}
}

func TestCurrentPodSelector(t *testing.T) {
	deployment := webDeployment(3, "web:2", "{observedGeneration: 2}")
	old := webReplicaSet("old", "web:1", "d-1", "2026-04-01T10:00:00Z")
	current := webReplicaSet("new", "web:2", "d-1", "2026-05-01T10:00:00Z")
	tests := []struct {
		name        string
		obj         string
		replicaSets []string
		want        string
		wantOK      bool
		wantErr     bool
	}{
		{name: "a Deployment selects the pods of the ReplicaSet with its template", obj: deployment,
			replicaSets: []string{current, old}, want: "app=web,pod-template-hash=new", wantOK: true},
		{name: "a Deployment rolled back to its first template selects the first ReplicaSet's pods", wantOK: true,
			obj: webDeployment(3, "web:1", "{observedGeneration: 2}"), replicaSets: []string{current, old},
			want: "app=web,pod-template-hash=old"},
		{name: "a Deployment whose ReplicaSet for its template is not created yet cannot tell its pods", obj: deployment,
			replicaSets: []string{old}},
		{name: "the oldest of two ReplicaSets with the Deployment's template is the current one", obj: deployment, wantOK: true,
			replicaSets: []string{current, webReplicaSet("dup", "web:2", "d-1", "2026-03-01T10:00:00Z")},
			want:        "app=web,pod-template-hash=dup"},
		{name: "a ReplicaSet of another Deployment with the same template does not count", obj: deployment,
			replicaSets: []string{webReplicaSet("x", "web:2", "d-2", "2026-05-01T10:00:00Z")}},
		{name: "a Deployment whose new spec is not observed yet cannot tell its pods", replicaSets: []string{current},
			obj: webDeployment(3, "web:2", "{observedGeneration: 1}")},
		{name: "a StatefulSet selects the pods of its update revision", wantOK: true, want: "app=db,controller-revision-hash=db-7c9",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 2},
				spec: {selector: {matchLabels: {app: db}}, template: {}},
				status: {observedGeneration: 2, currentRevision: db-5f1, updateRevision: db-7c9}}`},
		{name: "a DaemonSet selects the pods of its template generation", wantOK: true,
			want: "pod-template-generation=4,tier in (node)",
			obj: `{apiVersion: apps/v1, kind: DaemonSet,
				metadata: {name: agent, generation: 6, annotations: {deprecated.daemonset.template.generation: "4"}},
				spec: {selector: {matchExpressions: [{key: tier, operator: In, values: [node]}]}, template: {}},
				status: {observedGeneration: 6}}`},
		{name: "a Job selects all its pods, since its template cannot change", wantOK: true, want: "batch.kubernetes.io/controller-uid=j-1",
			obj: `{apiVersion: batch/v1, kind: Job, metadata: {name: migrate},
				spec: {selector: {matchLabels: {batch.kubernetes.io/controller-uid: j-1}}, template: {}}}`},
		{name: "a ConfigMap has no pods", obj: `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings}}`},
		{name: "a Service's selector is not a workload's",
			obj: `{apiVersion: v1, kind: Service, metadata: {name: web}, spec: {selector: {app: web}}}`},
		{name: "an empty selector would select every pod", wantErr: true,
			obj: `{apiVersion: batch/v1, kind: Job, metadata: {name: migrate}, spec: {selector: {}, template: {}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []map[string]any
			for _, r := range tt.replicaSets {
				rs = append(rs, object(t, r))
			}
			sel, ok, err := CurrentPodSelector(object(t, tt.obj), rs)
			if (err != nil) != tt.wantErr || ok != tt.wantOK {
				t.Fatalf("CurrentPodSelector: ok %v, err %v; want ok %v, an error %v", ok, err, tt.wantOK, tt.wantErr)
			}
			if ok && sel.String() != tt.want {
				t.Errorf("CurrentPodSelector = %q, want %q", sel.String(), tt.want)
			}
		})
	}
}

func TestMatchPods(t *testing.T) {
	sel := labels.SelectorFromSet(labels.Set{"app": "web", podTemplateHashLabel: "new"})
	leaving := pod("web-new-b", "new")
	leaving.DeletionTimestamp = &metav1.Time{Time: now}
	pods := []corev1.Pod{pod("web-old-a", "old"), pod("web-new-a", "new"), leaving}
	got := MatchPods(sel, pods)
	if len(got) != 1 || got[0].Name != "web-new-a" {
		t.Errorf("MatchPods = %v, want only web-new-a: the old pod has another hash, the other is being deleted", got)
	}
}
