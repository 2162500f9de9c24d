package rollout

import "testing"

func TestHealthOf(t *testing.T) {
	tests := []struct {
		name string
		obj  string
		want Health
	}{
		{
			name: "a Deployment that has rolled out",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 1}, spec: {replicas: 3},
				status: {observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3}}`,
			want: Health{Ready: true, Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3,
				Message: "3/3 ready, 3/3 updated, 3/3 available"},
		},
		{
			name: "a Deployment whose pods went Pending when a node went away",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 1}, spec: {replicas: 3},
				status: {observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 1, availableReplicas: 1}}`,
			want: Health{Replicas: 3, ReadyReplicas: 1, UpdatedReplicas: 3, AvailableReplicas: 1,
				Message: "1/3 ready, 3/3 updated, 1/3 available"},
		},
		{
			name: "a Deployment past its progress deadline",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 2},
				status: {observedGeneration: 2, replicas: 3, updatedReplicas: 1, readyReplicas: 2, availableReplicas: 2,
					conditions: [{type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: 'ReplicaSet "web-5f7" has timed out progressing.'}]}}`,
			want: Health{Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 1, AvailableReplicas: 2,
				Message: `ProgressDeadlineExceeded: ReplicaSet "web-5f7" has timed out progressing; 2/2 ready, 1/2 updated, 2/2 available`},
		},
		{
			name: "a DaemonSet counts the nodes that should run it",
			obj: `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, generation: 1},
				status: {observedGeneration: 1, desiredNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2}}`,
			want: Health{Ready: true, Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2,
				Message: "2/2 ready, 2/2 updated, 2/2 available"},
		},
		{
			name: "a ConfigMap has no replica count",
			obj:  `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {a: b}}`,
			want: Health{Ready: true, Message: "no replica count"},
		},
		{
			name: "a custom resource with replicas",
			obj: `{apiVersion: example.com/v1, kind: Cache, metadata: {name: c}, spec: {replicas: 3},
				status: {readyReplicas: 2}}`,
			want: Health{Replicas: 3, ReadyReplicas: 2, Message: "2/3 ready"},
		},
		{
			name: "a custom resource whose Ready condition is False",
			obj: `{apiVersion: example.com/v1, kind: Database, metadata: {name: db},
				status: {conditions: [{type: Ready, status: "False", reason: Provisioning}]}}`,
			want: Health{Message: "no replica count; Ready=False: Provisioning"},
		},
		{
			name: "a custom resource whose Ready condition is True",
			obj: `{apiVersion: example.com/v1, kind: Database, metadata: {name: db},
				status: {conditions: [{type: Ready, status: "True", reason: Provisioned}]}}`,
			want: Health{Ready: true, Message: "no replica count; Ready=True"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HealthOf(object(t, tt.obj)); got != tt.want {
				t.Errorf("HealthOf:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestReports(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  string
		want bool
	}{
		{"a Deployment", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: 3}}`, true},
		{"a Deployment that leaves its replicas to the cluster", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}}`, true},
		{"a DaemonSet", `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent}}`, true},
		{"a ReplicaSet with a replica count", `{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: web}, spec: {replicas: 2}}`, true},
		{"a custom resource with a replica count", `{apiVersion: example.com/v1, kind: Gizmo, metadata: {name: g}, spec: {replicas: 1}}`, true},
		{"a ConfigMap", `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {a: b}}`, false},
		{"a Service", `{apiVersion: v1, kind: Service, metadata: {name: web}, spec: {ports: [{port: 80}]}}`, false},
		{"an autoscaler, whose bounds are not a replica count", `{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler,
			metadata: {name: web}, spec: {minReplicas: 2, maxReplicas: 5}}`, false},
		{"a Deployment of another group", `{apiVersion: example.com/v1, kind: Deployment, metadata: {name: web}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Reports(object(t, tc.obj)); got != tc.want {
				t.Errorf("Reports = %v, want %v", got, tc.want)
			}
		})
	}
}
