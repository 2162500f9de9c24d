package provider

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/capacity"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
)

func TestRecordedFor(t *testing.T) {
	note := &capacity.Note{Inputs: "abc", Clusters: map[string]capacity.ClusterEstimate{
		"berlin": {Replicas: 2}, "new-york": {Unread: "forbidden"},
	}}
	for _, tc := range []struct {
		name        string
		note        *capacity.Note
		fingerprint string
		wantKnown   []string
		wantRead    []string
	}{
		{name: "no record: every cluster is read", fingerprint: "abc", wantRead: []string{"berlin", "new-york", "tokyo"}},
		{name: "a record for other inputs is not used", note: note, fingerprint: "other", wantRead: []string{"berlin", "new-york", "tokyo"}},
		{name: "an empty fingerprint matches nothing", note: &capacity.Note{Clusters: note.Clusters}, wantRead: []string{"berlin", "new-york", "tokyo"}},
		{name: "recorded clusters, unread ones included, come from the record", note: note, fingerprint: "abc",
			wantKnown: []string{"berlin", "new-york"}, wantRead: []string{"tokyo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			known, toRead := capacity.RecordedFor(tc.note, tc.fingerprint, []string{"berlin", "new-york", "tokyo"})
			if got := sortedKeys(known); !slices.Equal(got, tc.wantKnown) {
				t.Errorf("from the record %v, want %v", got, tc.wantKnown)
			}
			if !reflect.DeepEqual(toRead, tc.wantRead) {
				t.Errorf("read %v, want %v", toRead, tc.wantRead)
			}
		})
	}
}

func TestEstimateFrom(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	oneCPU := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	in := capacity.Inputs{Replica: capacity.Replica{Requests: oneCPU}, After: 30 * time.Second}
	node := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Status: corev1.NodeStatus{
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")},
		Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
	}}
	running := corev1.Pod{Spec: corev1.PodSpec{NodeName: "n", Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: oneCPU}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	stuckFor := func(d time.Duration) corev1.Pod {
		return corev1.Pod{Spec: corev1.PodSpec{Containers: running.Spec.Containers}, Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.NewTime(now.Add(-d))}}}}
	}
	for _, tc := range []struct {
		name   string
		src    propagation.CapacitySource
		want   int64
		reason string
		unread string
	}{
		{name: "room on the nodes plus the replicas running",
			src:  propagation.CapacitySource{Nodes: []corev1.Node{node}, Pods: []corev1.Pod{running}, WorkloadFound: true, WorkloadPods: []corev1.Pod{running}},
			want: 4, reason: "room for 3 more replicas, limited by cpu; plus 1 running"},
		{name: "pods stuck for less than the threshold do not cap",
			src: propagation.CapacitySource{Nodes: []corev1.Node{node}, Pods: []corev1.Pod{running},
				WorkloadPods: []corev1.Pod{running, stuckFor(10 * time.Second)}},
			want: 4},
		{name: "pods stuck for longer cap at what the scheduler placed",
			src: propagation.CapacitySource{Nodes: []corev1.Node{node}, Pods: []corev1.Pod{running},
				WorkloadPods: []corev1.Pod{running, stuckFor(time.Minute)}},
			want: 1, reason: "capped at 1: 1 pod unschedulable for over 30s"},
		{name: "a member that could not be read is unbounded, with the reason",
			src: propagation.CapacitySource{Err: errors.New(`listing nodes on cluster "berlin": forbidden`)}, unread: "forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := capacity.EstimateOf(in, tc.src.Nodes, tc.src.Pods, tc.src.WorkloadPods, tc.src.Err, now)
			if tc.unread != "" {
				if !strings.Contains(got.Unread, tc.unread) {
					t.Errorf("unread %q, want it to say %q", got.Unread, tc.unread)
				}
				return
			}
			if got.Unread != "" || got.Replicas != tc.want || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("got %+v, want %d replicas, reason with %q", got, tc.want, tc.reason)
			}
		})
	}
}

func TestSameSplit(t *testing.T) {
	base := splitResult{replicas: map[string]int64{"a": 5, "b": 5, "c": 2}, excluded: map[string]string{}}
	for _, tc := range []struct {
		name  string
		other splitResult
		want  bool
	}{
		{name: "same counts, an absent and an empty exclusion map", other: splitResult{replicas: map[string]int64{"a": 5, "b": 5, "c": 2}}, want: true},
		{name: "a replica moved", other: splitResult{replicas: map[string]int64{"a": 4, "b": 4, "c": 4}}},
		{name: "replicas unplaced", other: splitResult{replicas: base.replicas, unplaced: 1}},
		{name: "a cluster excluded", other: splitResult{replicas: base.replicas, excluded: map[string]string{"c": "max_clusters"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameSplit(base, tc.other); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
