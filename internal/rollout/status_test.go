package rollout

import (
	"encoding/json"
	"testing"
)

func TestRolloutStatus(t *testing.T) {
	tests := []struct {
		name string
		obj  string
		want Status
	}{
		{
			name: "a Deployment mid-rollout",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 3},
				status: {observedGeneration: 2, replicas: 4, updatedReplicas: 2, readyReplicas: 3, availableReplicas: 3}}`,
			want: Status{Desired: 3, Ready: 3, Updated: 2, Available: 3,
				Message: "3/3 ready, 2/3 updated, 3/3 available; 2 old replicas pending termination"},
		},
		{
			name: "a Deployment whose last old replica is terminating",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 3},
				status: {observedGeneration: 2, replicas: 4, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3}}`,
			want: Status{Desired: 3, Ready: 3, Updated: 3, Available: 3,
				Message: "3/3 ready, 3/3 updated, 3/3 available; 1 old replica pending termination"},
		},
		{
			name: "a Deployment that has rolled out",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 3},
				status: {observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3}}`,
			want: Status{Done: true, Desired: 3, Ready: 3, Updated: 3, Available: 3,
				Message: "3/3 ready, 3/3 updated, 3/3 available"},
		},
		{
			name: "a Deployment whose new replicas are ready but not yet available for minReadySeconds",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 3, minReadySeconds: 30},
				status: {observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 1}}`,
			want: Status{Desired: 3, Ready: 3, Updated: 3, Available: 1,
				Message: "3/3 ready, 3/3 updated, 1/3 available"},
		},
		{
			name: "a Deployment whose new spec the controller has not seen yet",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 3}, spec: {replicas: 3},
				status: {observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3}}`,
			want: Status{Desired: 3, Ready: 3, Updated: 3, Available: 3,
				Message: "waiting for the Deployment controller to observe generation 3 (it has seen 2)"},
		},
		{
			name: "a Deployment just created, with no status yet",
			obj:  `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 1}, spec: {replicas: 2}}`,
			want: Status{Desired: 2, Message: "waiting for the Deployment controller to observe generation 1 (it has seen 0)"},
		},
		{
			name: "a rollout that hit the deadline",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 3},
				status: {observedGeneration: 2, replicas: 4, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3,
					conditions: [{type: Available, status: "True"},
						{type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: 'ReplicaSet "web-5f7" has timed out progressing.'}]}}`,
			want: Status{Failed: true, Reason: ReasonProgressDeadline, Desired: 3, Ready: 3, Updated: 1, Available: 3,
				Message: `ProgressDeadlineExceeded: ReplicaSet "web-5f7" has timed out progressing; 3/3 ready, 1/3 updated, 3/3 available`},
		},
		{
			name: "a deadline hit before the latest change does not fail the new rollout",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 3}, spec: {replicas: 3},
				status: {observedGeneration: 2, replicas: 3, updatedReplicas: 1,
					conditions: [{type: Progressing, status: "False", reason: ProgressDeadlineExceeded}]}}`,
			want: Status{Desired: 3, Updated: 1,
				Message: "waiting for the Deployment controller to observe generation 3 (it has seen 2)"},
		},
		{
			name: "a Deployment that is progressing",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 3},
				status: {observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2,
					conditions: [{type: Progressing, status: "True", reason: ReplicaSetUpdated}]}}`,
			want: Status{Desired: 3, Ready: 2, Updated: 3, Available: 2, Message: "2/3 ready, 3/3 updated, 2/3 available"},
		},
		{
			name: "a Deployment without spec.replicas wants one",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 1}, spec: {},
				status: {observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1}}`,
			want: Status{Done: true, Desired: 1, Ready: 1, Updated: 1, Available: 1, Message: "1/1 ready, 1/1 updated, 1/1 available"},
		},
		{
			name: "a Deployment scaled to zero",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 4}, spec: {replicas: 0},
				status: {observedGeneration: 4}}`,
			want: Status{Done: true, Message: "0/0 ready, 0/0 updated, 0/0 available"},
		},
		{
			name: "a Deployment scaled down, with replicas still to remove",
			obj: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 5}, spec: {replicas: 2},
				status: {observedGeneration: 5, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3}}`,
			want: Status{Desired: 2, Ready: 3, Updated: 3, Available: 3, Message: "3/2 ready, 3/2 updated, 3/2 available"},
		},
		{
			name: "a StatefulSet with a partition, updated from the partition up",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 2},
				spec: {replicas: 3, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 2}}},
				status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 1,
					currentRevision: db-1, updateRevision: db-2}}`,
			want: Status{Done: true, Desired: 3, Ready: 3, Updated: 1, Available: 3,
				Message: "3/3 ready, 1/3 updated, 3/3 available; partition 2: 1 to update"},
		},
		{
			name: "a StatefulSet with a partition, before the pod above it is updated",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 2},
				spec: {replicas: 3, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 2}}},
				status: {observedGeneration: 2, replicas: 3, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 0,
					currentRevision: db-1, updateRevision: db-2}}`,
			want: Status{Desired: 3, Ready: 2, Updated: 0, Available: 2,
				Message: "2/3 ready, 0/3 updated, 2/3 available; partition 2: 1 to update"},
		},
		{
			name: "a StatefulSet with a partition above its replicas has nothing to update",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 2},
				spec: {replicas: 2, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 5}}},
				status: {observedGeneration: 2, replicas: 2, readyReplicas: 2, availableReplicas: 2,
					currentRevision: db-1, updateRevision: db-2}}`,
			want: Status{Done: true, Desired: 2, Ready: 2, Available: 2,
				Message: "2/2 ready, 0/2 updated, 2/2 available; partition 5: 0 to update"},
		},
		{
			name: "a StatefulSet mid-rollout",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 2},
				spec: {replicas: 3, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 0}}},
				status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 2,
					currentRevision: db-1, updateRevision: db-2}}`,
			want: Status{Desired: 3, Ready: 3, Updated: 2, Available: 3,
				Message: "3/3 ready, 2/3 updated, 3/3 available; revision db-2 is replacing db-1"},
		},
		{
			name: "a StatefulSet that has rolled out",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 2},
				spec: {replicas: 3, updateStrategy: {type: RollingUpdate}},
				status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3,
					currentRevision: db-2, updateRevision: db-2}}`,
			want: Status{Done: true, Desired: 3, Ready: 3, Updated: 3, Available: 3, Message: "3/3 ready, 3/3 updated, 3/3 available"},
		},
		{
			name: "a StatefulSet on the current revision with a pod not ready",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 2}, spec: {replicas: 3},
				status: {observedGeneration: 2, replicas: 3, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 3,
					currentRevision: db-2, updateRevision: db-2}}`,
			want: Status{Desired: 3, Ready: 2, Updated: 3, Available: 2, Message: "2/3 ready, 3/3 updated, 2/3 available"},
		},
		{
			name: "a StatefulSet from an API server that reports no available replicas",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 1}, spec: {replicas: 2},
				status: {observedGeneration: 1, replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentRevision: db-1, updateRevision: db-1}}`,
			want: Status{Done: true, Desired: 2, Ready: 2, Updated: 2, Available: 2, Message: "2/2 ready, 2/2 updated, 2/2 available"},
		},
		{
			name: "an OnDelete StatefulSet is done once observed",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 2}, spec: {replicas: 3, updateStrategy: {type: OnDelete}},
				status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 0,
					currentRevision: db-1, updateRevision: db-2}}`,
			want: Status{Done: true, Desired: 3, Ready: 3, Available: 3,
				Message: "OnDelete update strategy: pods change when they are deleted; 3/3 ready, 0/3 updated, 3/3 available"},
		},
		{
			name: "an OnDelete StatefulSet not yet observed",
			obj: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 3}, spec: {replicas: 1, updateStrategy: {type: OnDelete}},
				status: {observedGeneration: 2, replicas: 1, readyReplicas: 1, availableReplicas: 1}}`,
			want: Status{Desired: 1, Ready: 1, Available: 1,
				Message: "waiting for the StatefulSet controller to observe generation 3 (it has seen 2)"},
		},
		{
			name: "an OnDelete DaemonSet",
			obj: `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, generation: 2}, spec: {updateStrategy: {type: OnDelete}},
				status: {observedGeneration: 2, desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 3,
					updatedNumberScheduled: 1, numberAvailable: 3}}`,
			want: Status{Done: true, Desired: 3, Ready: 3, Updated: 1, Available: 3,
				Message: "OnDelete update strategy: pods change when they are deleted; 3/3 ready, 1/3 updated, 3/3 available"},
		},
		{
			name: "a DaemonSet mid-rollout",
			obj: `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, generation: 2}, spec: {updateStrategy: {type: RollingUpdate}},
				status: {observedGeneration: 2, desiredNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2}}`,
			want: Status{Desired: 3, Ready: 2, Updated: 2, Available: 2, Message: "2/3 ready, 2/3 updated, 2/3 available"},
		},
		{
			name: "a DaemonSet updated everywhere but not yet available everywhere",
			obj: `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, generation: 2}, spec: {updateStrategy: {type: RollingUpdate}},
				status: {observedGeneration: 2, desiredNumberScheduled: 3, numberReady: 3, updatedNumberScheduled: 3, numberAvailable: 2}}`,
			want: Status{Desired: 3, Ready: 3, Updated: 3, Available: 2, Message: "3/3 ready, 3/3 updated, 2/3 available"},
		},
		{
			name: "a DaemonSet that has rolled out",
			obj: `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, generation: 2}, spec: {updateStrategy: {type: RollingUpdate}},
				status: {observedGeneration: 2, desiredNumberScheduled: 3, numberReady: 3, updatedNumberScheduled: 3, numberAvailable: 3}}`,
			want: Status{Done: true, Desired: 3, Ready: 3, Updated: 3, Available: 3, Message: "3/3 ready, 3/3 updated, 3/3 available"},
		},
		{
			name: "a ConfigMap has no rollout",
			obj:  `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {a: b}}`,
			want: Status{Done: true, Message: "a ConfigMap has no rollout"},
		},
		{
			name: "a custom resource called Deployment has no rollout",
			obj: `{apiVersion: example.com/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 3},
				status: {observedGeneration: 1}}`,
			want: Status{Done: true, Message: "a Deployment has no rollout"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RolloutStatus(object(t, tt.obj)); got != tt.want {
				t.Errorf("RolloutStatus:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestNumbersDecodedByEncodingJSONReadTheSame(t *testing.T) {
	src := `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"generation": 2}, "spec": {"replicas": 3},
		"status": {"observedGeneration": 2, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3}}`
	var floats map[string]any
	if err := json.Unmarshal([]byte(src), &floats); err != nil {
		t.Fatal(err)
	}
	if got, want := RolloutStatus(floats), RolloutStatus(object(t, src)); got != want || !got.Done {
		t.Errorf("with float64 numbers %+v, with int64 numbers %+v; want both done", got, want)
	}
}
