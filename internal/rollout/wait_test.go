package rollout

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestWaitsForRollout(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name, apiVersion, kind string
		rollout                *bool
		want                   bool
	}{
		{name: "a Deployment waits by default", apiVersion: "apps/v1", kind: "Deployment", want: true},
		{name: "a StatefulSet waits by default", apiVersion: "apps/v1", kind: "StatefulSet", want: true},
		{name: "a DaemonSet waits by default", apiVersion: "apps/v1", kind: "DaemonSet", want: true},
		{name: "a ConfigMap does not wait by default", apiVersion: "v1", kind: "ConfigMap"},
		{name: "a custom resource called Deployment does not wait by default", apiVersion: "example.com/v1", kind: "Deployment"},
		{name: "rollout = false turns waiting off", apiVersion: "apps/v1", kind: "Deployment", rollout: &no},
		{name: "rollout = true on another kind is kept", apiVersion: "v1", kind: "ConfigMap", rollout: &yes, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WaitsForRollout(tt.apiVersion, tt.kind, tt.rollout); got != tt.want {
				t.Errorf("WaitsForRollout = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		in   Config
		want []InputError
	}{
		{
			name: "conditions and fields that can be waited for",
			in: Config{Conditions: []Condition{{Type: "Available"}, {Type: "Progressing", Status: "true"}, {Type: "Available", Status: "True"}},
				Fields: map[string]string{"status.phase": "Running", `metadata.annotations["example.com/ready"]`: "*", "status.podIP": `^10\.`}},
		},
		{
			name: "a condition without a type",
			in:   Config{Conditions: []Condition{{Type: "Ready"}, {Type: " ", Status: "True"}}},
			want: []InputError{{Condition: 1, Message: "a condition needs a type, such as Available or Ready"}},
		},
		{
			name: "a condition status that is not a condition status",
			in:   Config{Conditions: []Condition{{Type: "Ready", Status: "yes"}}},
			want: []InputError{{Condition: 0, Message: `the status of condition Ready must be True, False or Unknown, not "yes"`}},
		},
		{
			name: "a condition required both True and False",
			in:   Config{Conditions: []Condition{{Type: "Ready"}, {Type: "ready", Status: "False"}}},
			want: []InputError{{Condition: 1, Message: "condition ready cannot be False: conditions[0] requires it to be True"}},
		},
		{
			name: "a condition with a wrong status is reported once, not again as a contradiction",
			in:   Config{Conditions: []Condition{{Type: "Ready", Status: "yes"}, {Type: "Ready"}}},
			want: []InputError{{Condition: 0, Message: `the status of condition Ready must be True, False or Unknown, not "yes"`}},
		},
		{
			name: "a field path that does not parse",
			in:   Config{Fields: map[string]string{"status..phase": "Running"}},
			want: []InputError{{Condition: -1, Field: "status..phase",
				Message: `field path "status..phase": a field name must follow the dot at character 7, not '.': write keys with other characters in brackets and double quotes, as in metadata.annotations["example.com/key"]`}},
		},
		{
			name: "an empty value",
			in:   Config{Fields: map[string]string{"status.phase": ""}},
			want: []InputError{{Condition: -1, Field: "status.phase",
				Message: `the value for status.phase is empty: write the value to wait for, or "*" for any value`}},
		},
		{
			name: "a regular expression that does not compile, among fields reported in path order",
			in:   Config{Fields: map[string]string{"status.z": "", "status.podIP": "(10"}},
			want: []InputError{
				{Condition: -1, Field: "status.podIP",
					Message: "the value for status.podIP is not a valid regular expression (error parsing regexp: missing closing ): `(10`); a value with any of the characters \\.+*?()|[]{}^$ is one: put \\ before each of them to mean the characters themselves"},
				{Condition: -1, Field: "status.z", Message: `the value for status.z is empty: write the value to wait for, or "*" for any value`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Validate(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Validate:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestWaiterCheckConditionsAndFields(t *testing.T) {
	const job = `{apiVersion: batch/v1, kind: Job, metadata: {name: migrate, generation: 1},
		status: {succeeded: 1, active: 0, startTime: "2026-05-01T11:00:00Z",
			conditions: [{type: Complete, status: "True"}, {type: Failed, status: "False", reason: BackoffLimitNotReached}]}}`
	const service = `{apiVersion: v1, kind: Service, metadata: {name: web, annotations: {example.com/ready: "yes"}},
		spec: {ports: [{port: 80}, {port: 8080}]}, status: {loadBalancer: {ingress: [{ip: 10.0.0.12}]}}}`
	tests := []struct {
		name string
		obj  string
		in   Config
		want Status
	}{
		{name: "nothing to wait for", obj: job, want: Status{Done: true}},
		{name: "conditions that hold", obj: job,
			in:   Config{Conditions: []Condition{{Type: "complete"}, {Type: "Failed", Status: "False"}}},
			want: Status{Done: true}},
		{name: "a condition with another status", obj: job,
			in:   Config{Conditions: []Condition{{Type: "Failed"}}},
			want: Status{Message: "waiting for condition Failed=True (it is False: BackoffLimitNotReached)"}},
		{name: "a condition not reported yet", obj: job,
			in:   Config{Conditions: []Condition{{Type: "SuccessCriteriaMet"}}},
			want: Status{Message: "waiting for condition SuccessCriteriaMet=True (not reported yet)"}},
		{name: "a condition reported for an older generation",
			obj: `{apiVersion: example.com/v1, kind: Database, metadata: {name: db, generation: 3},
				status: {conditions: [{type: Ready, status: "True", observedGeneration: 2}]}}`,
			in:   Config{Conditions: []Condition{{Type: "Ready"}}},
			want: Status{Message: "waiting for condition Ready=True (reported for generation 2, the object is at 3)"}},
		{name: "a condition of an object whose status is for an older generation",
			obj: `{apiVersion: example.com/v1, kind: Database, metadata: {name: db, generation: 3},
				status: {observedGeneration: 2, conditions: [{type: Ready, status: "True"}]}}`,
			in:   Config{Conditions: []Condition{{Type: "Ready"}}},
			want: Status{Message: "waiting for condition Ready=True (reported for generation 2, the object is at 3)"}},
		{name: "fields with literal values, a regular expression and any value", obj: service,
			in: Config{Fields: map[string]string{"status.loadBalancer.ingress[0].ip": `^(\d+(\.|$)){4}`,
				`metadata.annotations["example.com/ready"]`: "yes", "spec.ports[1].port": "8080", "spec.ports.0.port": "*"}},
			want: Status{Done: true}},
		{name: "a literal value matches the whole value only", obj: service,
			in:   Config{Fields: map[string]string{"spec.ports[1].port": "80"}},
			want: Status{Message: `waiting for spec.ports[1].port to be "80" (it is "8080")`}},
		{name: "a regular expression matches anywhere unless anchored", obj: service,
			in:   Config{Fields: map[string]string{"status.loadBalancer.ingress[0].ip": `0\.0`}},
			want: Status{Done: true}},
		{name: "a field not set yet", obj: service,
			in: Config{Fields: map[string]string{"status.loadBalancer.ingress[1].ip": "*", "spec.clusterIP": `^10\.`}},
			want: Status{Message: "waiting for spec.clusterIP to match the regular expression ^10\\. (not set yet); " +
				"waiting for status.loadBalancer.ingress[1].ip to be set"}},
		{name: "a field that holds an object", obj: service,
			in:   Config{Fields: map[string]string{"status.loadBalancer": "ready"}},
			want: Status{Message: `waiting for status.loadBalancer to be "ready", but it holds a list or an object: name a field inside it, or wait for "*"`}},
		{name: "a boolean field", obj: `{apiVersion: v1, kind: Pod, metadata: {name: p}, status: {containerStatuses: [{ready: false}]}}`,
			in:   Config{Fields: map[string]string{"status.containerStatuses[0].ready": "true"}},
			want: Status{Message: `waiting for status.containerStatuses[0].ready to be "true" (it is "false")`}},
		{name: "a condition and a field both short",
			obj:  `{apiVersion: v1, kind: Pod, metadata: {name: p}, status: {phase: Pending, conditions: [{type: Ready, status: "False"}]}}`,
			in:   Config{Conditions: []Condition{{Type: "Ready"}}, Fields: map[string]string{"status.phase": "Running"}},
			want: Status{Message: `waiting for condition Ready=True (it is False); waiting for status.phase to be "Running" (it is "Pending")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := object(t, tt.obj)
			w, errs := NewWaiter(text(obj, "apiVersion"), text(obj, "kind"), tt.in)
			if len(errs) > 0 {
				t.Fatalf("NewWaiter: %v", errs)
			}
			if got := w.Check(Observation{Object: obj}); got != tt.want {
				t.Errorf("Check:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestWaiterCheckRollout(t *testing.T) {
	midRollout := webDeployment(3, "web:2", "{observedGeneration: 2, replicas: 4, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3}")
	rolledOut := webDeployment(1, "web:2", `{observedGeneration: 2, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1,
		conditions: [{type: Available, status: "True"}]}`)
	off := false
	tests := []struct {
		name string
		obj  string
		in   Config
		// orphanPods leaves the ReplicaSets out of the observation.
		orphanPods bool
		pods       []corev1.Pod
		want       Status
	}{
		{name: "a Deployment mid-rollout with healthy pods", obj: midRollout,
			pods: []corev1.Pod{pod("web-old-a", "old", running("app")), pod("web-new-a", "new", waiting("app", "ContainerCreating", "", 0))},
			want: Status{Desired: 3, Ready: 3, Updated: 1, Available: 3,
				Message: "3/3 ready, 1/3 updated, 3/3 available; 3 old replicas pending termination"}},
		{name: "a crash-looping pod of the new revision fails the rollout", obj: midRollout,
			pods: []corev1.Pod{pod("web-old-a", "old", running("app")), pod("web-new-a", "new", crashLooping("app", 5, 1))},
			want: Status{Failed: true, Reason: "CrashLoopBackOff", Desired: 3, Ready: 3, Updated: 1, Available: 3,
				Message: "CrashLoopBackOff: pod web-new-a, container app, restarted 5 times, last exit code 1 (Error); 3/3 ready, 1/3 updated, 3/3 available"}},
		{name: "crash-looping pods of the old revision do not fail the fix", obj: midRollout,
			pods: []corev1.Pod{pod("web-old-a", "old", crashLooping("app", 30, 1)), pod("web-new-a", "new", running("app"))},
			want: Status{Desired: 3, Ready: 3, Updated: 1, Available: 3,
				Message: "3/3 ready, 1/3 updated, 3/3 available; 3 old replicas pending termination"}},
		{name: "several failing pods are counted", obj: midRollout,
			pods: []corev1.Pod{
				pod("web-new-b", "new", waiting("app", "ImagePullBackOff", `Back-off pulling image "web:nope"`, 0)),
				pod("web-new-a", "new", waiting("app", "ImagePullBackOff", `Back-off pulling image "web:nope"`, 0)),
				unschedulable("web-new-c", 2*time.Minute),
			},
			want: Status{Failed: true, Reason: "ImagePullBackOff", Desired: 3, Ready: 3, Updated: 1, Available: 3,
				Message: `ImagePullBackOff: pod web-new-a, container app: Back-off pulling image "web:nope" (and 2 more pods failing); 3/3 ready, 1/3 updated, 3/3 available`}},
		{name: "a pod unschedulable for less than the configured time", obj: midRollout,
			in:   Config{UnschedulableFor: 3 * time.Minute},
			pods: []corev1.Pod{unschedulable("web-new-a", 2*time.Minute)},
			want: Status{Desired: 3, Ready: 3, Updated: 1, Available: 3,
				Message: "3/3 ready, 1/3 updated, 3/3 available; 3 old replicas pending termination"}},
		{name: "without its ReplicaSets a Deployment's pods do not count", obj: midRollout, orphanPods: true,
			pods: []corev1.Pod{pod("web-new-a", "new", crashLooping("app", 5, 1))},
			want: Status{Desired: 3, Ready: 3, Updated: 1, Available: 3,
				Message: "3/3 ready, 1/3 updated, 3/3 available; 3 old replicas pending termination"}},
		{name: "with rollout = false nothing is waited for", obj: midRollout, in: Config{Rollout: &off},
			pods: []corev1.Pod{pod("web-new-a", "new", crashLooping("app", 5, 1))},
			want: Status{Done: true}},
		{name: "a rolled out Deployment with a condition", obj: rolledOut,
			in:   Config{Conditions: []Condition{{Type: "Available"}}},
			want: Status{Done: true, Desired: 1, Ready: 1, Updated: 1, Available: 1, Message: "1/1 ready, 1/1 updated, 1/1 available"}},
		{name: "a rolled out Deployment waiting for a field", obj: rolledOut,
			in: Config{Fields: map[string]string{`metadata.annotations["example.com/verified"]`: "true"}},
			want: Status{Desired: 1, Ready: 1, Updated: 1, Available: 1,
				Message: `1/1 ready, 1/1 updated, 1/1 available; waiting for metadata.annotations["example.com/verified"] to be "true" (not set yet)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []map[string]any
			if !tt.orphanPods {
				rs = webReplicaSets(t)
			}
			w, errs := NewWaiter("apps/v1", "Deployment", tt.in)
			if len(errs) > 0 {
				t.Fatalf("NewWaiter: %v", errs)
			}
			got := w.Check(Observation{Object: object(t, tt.obj), ReplicaSets: rs, Pods: tt.pods, Now: now})
			if got != tt.want {
				t.Errorf("Check:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestWaiterNeeded(t *testing.T) {
	off := false
	tests := []struct {
		name             string
		apiVersion, kind string
		in               Config
		want             bool
	}{
		{name: "a Deployment by default", apiVersion: "apps/v1", kind: "Deployment", want: true},
		{name: "a Deployment with rollout = false", apiVersion: "apps/v1", kind: "Deployment", in: Config{Rollout: &off}},
		{name: "a ConfigMap by default", apiVersion: "v1", kind: "ConfigMap"},
		{name: "a ConfigMap with a field", apiVersion: "v1", kind: "ConfigMap",
			in: Config{Fields: map[string]string{"data.ready": "*"}}, want: true},
		{name: "a Job with a condition", apiVersion: "batch/v1", kind: "Job",
			in: Config{Conditions: []Condition{{Type: "Complete"}}}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := NewWaiter(tt.apiVersion, tt.kind, tt.in)
			if got := w.Needed(); got != tt.want {
				t.Errorf("Needed = %v, want %v", got, tt.want)
			}
		})
	}
}
