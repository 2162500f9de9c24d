package provider

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/capacity"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
)

const deploymentTemplate = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  template:
    spec:
      nodeSelector: {disk: ssd}
      tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]
      containers:
      - name: web
        image: nginx
        ports: [{containerPort: 80}]
        resources: {requests: {cpu: 500m, memory: 256Mi}}
`

func TestReplicaOf(t *testing.T) {
	for _, tc := range []struct {
		name        string
		template    string
		hasTemplate bool
		requests    map[string]string
		wantCPU     string
		wantMemory  string
		wantPath    path.Path
		wantErr     string
	}{
		{name: "requests from the pod template", template: deploymentTemplate, hasTemplate: true, wantCPU: "500m", wantMemory: "256Mi"},
		{name: "explicit requests replace the template's", template: deploymentTemplate, hasTemplate: true,
			requests: map[string]string{"cpu": "1"}, wantCPU: "1"},
		{name: "explicit requests alone", requests: map[string]string{"cpu": "2", "memory": "1Gi"}, wantCPU: "2", wantMemory: "1Gi"},
		{name: "nothing given requests nothing"},
		{name: "a template without a pod template", template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}", hasTemplate: true,
			wantPath: path.Root("template"), wantErr: "no pod template"},
		{name: "a template that is not an object", template: "- a\n- b", hasTemplate: true,
			wantPath: path.Root("template"), wantErr: "not one YAML or JSON object"},
		{name: "a pod spec of the wrong shape", template: "spec: {template: {spec: {containers: 3}}}", hasTemplate: true,
			wantPath: path.Root("template"), wantErr: "not a pod spec"},
		{name: "a request for pods", requests: map[string]string{"cpu": "1", "pods": "1"},
			wantPath: path.Root("replica_requests").AtMapKey("pods"), wantErr: "one pod already"},
		{name: "a request that is no quantity", requests: map[string]string{"memory": "lots"},
			wantPath: path.Root("replica_requests").AtMapKey("memory"), wantErr: "not a quantity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replica, at, err := replicaOf(tc.template, tc.hasTemplate, tc.requests, tc.requests != nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !at.Equal(tc.wantPath) {
					t.Fatalf("got %v at %s, want %q at %s", err, at, tc.wantErr, tc.wantPath)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := quantityOf(replica.Requests, corev1.ResourceCPU); got != tc.wantCPU {
				t.Errorf("cpu %q, want %q", got, tc.wantCPU)
			}
			if got := quantityOf(replica.Requests, corev1.ResourceMemory); got != tc.wantMemory {
				t.Errorf("memory %q, want %q", got, tc.wantMemory)
			}
			if tc.hasTemplate && (replica.NodeSelector["disk"] != "ssd" || len(replica.Tolerations) != 1) {
				t.Errorf("the template's node selector and tolerations are lost: %+v", replica)
			}
		})
	}
}

func quantityOf(list corev1.ResourceList, name corev1.ResourceName) string {
	if q, ok := list[name]; ok {
		return q.String()
	}
	return ""
}

func TestCapacityFingerprint(t *testing.T) {
	base := func() capacity.Inputs {
		replica, _, err := replicaOf(deploymentTemplate, true, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		return capacity.Inputs{Replica: replica, After: time.Minute, Target: "FederatedDeployment shop/web"}
	}
	reformatted, _, err := replicaOf(`{"spec":{"template":{"spec":{"nodeSelector":{"disk":"ssd"},`+
		`"tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}],`+
		`"containers":[{"name":"web","resources":{"requests":{"memory":"256Mi","cpu":"0.5"}}}]}}}}`, true, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	same := base()
	same.Replica = reformatted
	if base().Fingerprint() != same.Fingerprint() {
		t.Error("the same requests written another way (JSON, 0.5 for 500m, no image) changed the fingerprint")
	}
	for name, change := range map[string]func(*capacity.Inputs){
		"other requests":   func(in *capacity.Inputs) { in.Replica.Requests[corev1.ResourceCPU] = resource.MustParse("1") },
		"another wait":     func(in *capacity.Inputs) { in.After = time.Second },
		"another target":   func(in *capacity.Inputs) { in.Target = "FederatedDeployment shop/api" },
		"no node selector": func(in *capacity.Inputs) { in.Replica.NodeSelector = nil },
	} {
		changed := base()
		change(&changed)
		if changed.Fingerprint() == base().Fingerprint() {
			t.Errorf("%s: the fingerprint did not change", name)
		}
	}
}

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

func TestCapacityBoundsLeaveUnreadClustersUnbounded(t *testing.T) {
	bounds, warnings := capacityBounds("shop/web", map[string]capacity.ClusterEstimate{
		"berlin": {Replicas: 2}, "tokyo": {Unread: "forbidden: nodes"}, "sydney": {Replicas: 0},
	})
	if want := map[string]int64{"berlin": 2, "sydney": 0}; !maps.Equal(bounds, want) {
		t.Errorf("bounds %v, want %v", bounds, want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].detail, `"tokyo"`) || !strings.Contains(warnings[0].detail, "forbidden: nodes") ||
		!warnings[0].path.Equal(path.Root("capacity")) {
		t.Errorf("warnings %+v, want one for tokyo at capacity", warnings)
	}
}

func TestCutByCapacity(t *testing.T) {
	clusters := []string{"berlin", "new-york", "san-francisco"}
	for _, tc := range []struct {
		name     string
		capacity map[string]int64
		want     map[string]int64
	}{
		{name: "no capacities cut nothing", want: map[string]int64{}},
		{name: "a small cluster is cut to what it holds", capacity: map[string]int64{"berlin": 2, "new-york": 12, "san-francisco": 12},
			want: map[string]int64{"berlin": 4}},
		{name: "capacities above every share cut nothing", capacity: map[string]int64{"berlin": 6, "new-york": 12, "san-francisco": 12},
			want: map[string]int64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := scheduling.Input{TotalReplicas: 12, Clusters: clusters, Capacity: tc.capacity, Rebalance: true, Key: "shop/web"}
			planned, err := scheduling.Plan(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := cutByCapacity(in, planned); !maps.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
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

func TestPlannerErrorPath(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want path.Path
	}{
		{name: "a preference of a cluster", err: &scheduling.InputError{Field: scheduling.FieldPreferences, Key: "berlin"},
			want: path.Root("clusters").AtMapKey("berlin")},
		{name: "the total", err: &scheduling.InputError{Field: scheduling.FieldTotalReplicas}, want: path.Root("total_replicas")},
		{name: "the weight source", err: &scheduling.InputError{Field: scheduling.FieldWeightBy}, want: path.Root("weight_by")},
		{name: "max_clusters", err: &scheduling.InputError{Field: scheduling.FieldMaxClusters}, want: path.Root("max_clusters")},
		{name: "an attribute of the spread", err: &scheduling.InputError{Field: scheduling.FieldSpread, Key: "min_groups"},
			want: path.Root("spread").AtName("min_groups")},
		{name: "a capacity", err: &scheduling.InputError{Field: scheduling.FieldCapacity, Key: "berlin"}, want: path.Root("capacity")},
		{name: "anything else", err: errors.New("boom"), want: path.Root("clusters")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := plannerErrorPath(tc.err); !got.Equal(tc.want) {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
