package reconcile

import (
	"reflect"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want []Operation
	}{
		{
			name: "a new object goes to every placed cluster",
			in:   Input{Want: map[string]string{"a": "A", "b": "B"}, Placed: []string{"a", "b"}},
			want: []Operation{{Cluster: "a", Action: Apply}, {Cluster: "b", Action: Apply}},
		},
		{
			name: "a cluster that holds what is wanted is left alone",
			in:   Input{Want: map[string]string{"a": "A", "b": "B2"}, Held: map[string]string{"a": "A", "b": "B"}, Placed: []string{"a", "b"}},
			want: []Operation{{Cluster: "b", Action: Apply, Existed: true}},
		},
		{
			name: "a cluster leaves the placement",
			in:   Input{Want: map[string]string{"a": "A"}, Held: map[string]string{"a": "A", "b": "B"}, Placed: []string{"a"}},
			want: []Operation{{Cluster: "b", Action: Remove}},
		},
		{
			name: "a cluster leaves the placement with the orphan policy",
			in:   Input{Held: map[string]string{"b": "B"}, Orphan: true},
			want: []Operation{{Cluster: "b", Action: Remove, Orphan: true}},
		},
		{
			name: "a cluster that failed last time and is unchanged now is applied again",
			in:   Input{Want: map[string]string{"a": "A"}, Held: map[string]string{}, Placed: []string{"a"}},
			want: []Operation{{Cluster: "a", Action: Apply}},
		},
		{
			name: "a cluster whose write was cut off is applied again",
			in:   Input{Want: map[string]string{"a": "A"}, Held: map[string]string{"a": Unknown}, Placed: []string{"a"}},
			want: []Operation{{Cluster: "a", Action: Apply, Existed: true}},
		},
		{
			name: "a frozen cluster keeps what it holds",
			in:   Input{Want: map[string]string{"a": "A"}, Held: map[string]string{"a": "A", "b": "B"}, Placed: []string{"a", "b"}},
			want: nil,
		},
		{
			name: "a cluster no longer registered is forgotten, not removed",
			in:   Input{Held: map[string]string{"gone": "G"}, Reach: map[string]Reach{"gone": NotRegistered}},
			want: []Operation{{Cluster: "gone", Action: Forget,
				Reason: "the cluster left the registry, so the provider cannot reach it to remove the object; it stays there"}},
		},
		{
			name: "an update for a cluster no longer registered fails",
			in:   Input{Want: map[string]string{"gone": "G2"}, Held: map[string]string{"gone": "G"}, Placed: []string{"gone"}, Reach: map[string]Reach{"gone": NotRegistered}},
			want: []Operation{{Cluster: "gone", Action: Skip, Existed: true, Status: StatusUpdateFailed,
				Reason: "the cluster is not registered any more; register it again, or take it out of the placement"}},
		},
		{
			name: "a cluster whose last rollout did not finish is waited for again",
			in:   Input{Want: map[string]string{"a": "A", "b": "B"}, Held: map[string]string{"a": "A", "b": "B"}, Placed: []string{"a", "b"}, Pending: map[string]bool{"b": true}},
			want: []Operation{{Cluster: "b", Action: Wait, Existed: true}},
		},
		{
			name: "a cluster registered in this run waits for the next apply",
			in:   Input{Want: map[string]string{"new": "N"}, Placed: []string{"new"}, Reach: map[string]Reach{"new": RegisteredInRun}},
			want: []Operation{{Cluster: "new", Action: Skip, Status: StatusClusterNotReady,
				Reason: "the cluster is registered in this run and had no endpoint yet when the object was applied; the next apply places the object"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestFold(t *testing.T) {
	notReady := Status{Status: StatusClusterNotReady,
		Message: "the cluster was not ready when the plan was made; the next plan after it recovers places the object"}
	tests := []struct {
		name     string
		in       Input
		outcomes []Outcome
		want     Record
	}{
		{
			name:     "successful applies record what was sent",
			in:       Input{Want: map[string]string{"a": "A", "b": "B"}, Held: map[string]string{"b": "old"}, Placed: []string{"a", "b"}},
			outcomes: []Outcome{{Cluster: "a"}, {Cluster: "b"}},
			want: Record{Held: map[string]string{"a": "A", "b": "B"},
				Status: map[string]Status{"a": {Status: StatusOK}, "b": {Status: StatusOK}}},
		},
		{
			name:     "a failed update keeps what the cluster held",
			in:       Input{Want: map[string]string{"a": "A2"}, Held: map[string]string{"a": "A"}, Placed: []string{"a"}},
			outcomes: []Outcome{{Cluster: "a", Err: "admission webhook denied it"}},
			want: Record{Held: map[string]string{"a": "A"},
				Status: map[string]Status{"a": {Status: StatusUpdateFailed, Message: "admission webhook denied it"}}},
		},
		{
			name:     "a failed create records no object",
			in:       Input{Want: map[string]string{"a": "A"}, Placed: []string{"a"}},
			outcomes: []Outcome{{Cluster: "a", Err: "forbidden"}},
			want:     Record{Held: map[string]string{}, Status: map[string]Status{"a": {Status: StatusCreationFailed, Message: "forbidden"}}},
		},
		{
			name:     "a create cut off in flight is unknown",
			in:       Input{Want: map[string]string{"a": "A"}, Placed: []string{"a"}},
			outcomes: []Outcome{{Cluster: "a", Err: "context canceled", Uncertain: true}},
			want: Record{Held: map[string]string{"a": Unknown}, Status: map[string]Status{"a": {Status: StatusUnknown,
				Message: "context canceled; the request may have taken effect: the next refresh reads back what the cluster holds"}}},
		},
		{
			name: "an apply that ended before a cluster was reached leaves it as it was",
			in:   Input{Want: map[string]string{"a": "A", "b": "B"}, Held: map[string]string{"b": "old"}, Placed: []string{"a", "b"}},
			want: Record{Held: map[string]string{"b": "old"}, Status: map[string]Status{
				"a": {Status: StatusCreationFailed, Message: "the apply ended before this cluster was reached; the next apply does it"},
				"b": {Status: StatusUpdateFailed, Message: "the apply ended before this cluster was reached; the next apply does it"}}},
		},
		{
			name:     "a cluster that left the placement loses its entry once removed",
			in:       Input{Want: map[string]string{"a": "A"}, Held: map[string]string{"a": "A", "b": "B"}, Placed: []string{"a"}},
			outcomes: []Outcome{{Cluster: "b"}},
			want:     Record{Held: map[string]string{"a": "A"}, Status: map[string]Status{"a": {Status: StatusOK}}},
		},
		{
			name:     "a removal cut off in flight keeps the entry, so the next apply removes it again",
			in:       Input{Held: map[string]string{"b": "B"}},
			outcomes: []Outcome{{Cluster: "b", Err: "EOF", Uncertain: true}},
			want: Record{Held: map[string]string{"b": "B"}, Status: map[string]Status{"b": {Status: StatusUnknown,
				Message: "EOF; the request may have taken effect: the next refresh reads back what the cluster holds"}}},
		},
		{
			name:     "a failed removal keeps the entry",
			in:       Input{Held: map[string]string{"b": "B"}, Orphan: true},
			outcomes: []Outcome{{Cluster: "b", Err: "unreachable"}},
			want:     Record{Held: map[string]string{"b": "B"}, Status: map[string]Status{"b": {Status: StatusDeletionFailed, Message: "unreachable"}}},
		},
		{
			name: "a frozen cluster keeps its object and says why",
			in:   Input{Want: map[string]string{"a": "A"}, Held: map[string]string{"a": "A", "b": "B"}, Placed: []string{"a", "b"}},
			want: Record{Held: map[string]string{"a": "A", "b": "B"}, Status: map[string]Status{"a": {Status: StatusOK}, "b": notReady}},
		},
		{
			name: "a cluster no longer registered drops out",
			in:   Input{Held: map[string]string{"gone": "G"}, Reach: map[string]Reach{"gone": NotRegistered}},
			want: Record{Held: map[string]string{}, Status: map[string]Status{}},
		},
		{
			name:     "an applied object that does not run keeps its cluster, which is waited for again",
			in:       Input{Want: map[string]string{"a": "A2"}, Held: map[string]string{"a": "A"}, Placed: []string{"a"}},
			outcomes: []Outcome{{Cluster: "a", Rollout: RolloutFailed, RolloutMessage: "CrashLoopBackOff: pod web-1"}},
			want: Record{Held: map[string]string{"a": "A2"}, Status: map[string]Status{"a": {Status: StatusRolloutFailed,
				Message: "CrashLoopBackOff: pod web-1; the object stays applied, and the next apply waits again"}}},
		},
		{
			name:     "a rollout waited for again finishes",
			in:       Input{Want: map[string]string{"a": "A"}, Held: map[string]string{"a": "A"}, Placed: []string{"a"}, Pending: map[string]bool{"a": true}},
			outcomes: []Outcome{{Cluster: "a", Rollout: RolloutDone}},
			want:     Record{Held: map[string]string{"a": "A"}, Status: map[string]Status{"a": {Status: StatusOK}}},
		},
		{
			name:     "a rollout waited for again times out",
			in:       Input{Want: map[string]string{"a": "A"}, Held: map[string]string{"a": "A"}, Placed: []string{"a"}, Pending: map[string]bool{"a": true}},
			outcomes: []Outcome{{Cluster: "a", Rollout: RolloutTimedOut, RolloutMessage: "2/3 ready"}},
			want: Record{Held: map[string]string{"a": "A"}, Status: map[string]Status{"a": {Status: StatusRolloutTimedOut,
				Message: "2/3 ready; the object stays applied, and the next apply waits again"}}},
		},
		{
			name:     "a later stage of a rollout that stopped keeps what it held",
			in:       Input{Want: map[string]string{"a": "A2", "b": "B2"}, Held: map[string]string{"a": "A", "b": "B"}, Placed: []string{"a", "b"}},
			outcomes: []Outcome{{Cluster: "a", Rollout: RolloutFailed, RolloutMessage: "x"}, {Cluster: "b", Stopped: "stage 1 failed on a"}},
			want: Record{Held: map[string]string{"a": "A2", "b": "B"}, Status: map[string]Status{
				"a": {Status: StatusRolloutFailed, Message: "x; the object stays applied, and the next apply waits again"},
				"b": {Status: StatusNotUpdated, Message: "stage 1 failed on a"}}},
		},
		{
			name: "a cluster registered in this run is not ready yet",
			in:   Input{Want: map[string]string{"new": "N"}, Placed: []string{"new"}, Reach: map[string]Reach{"new": RegisteredInRun}},
			want: Record{Held: map[string]string{}, Status: map[string]Status{"new": {Status: StatusClusterNotReady,
				Message: "the cluster is registered in this run and had no endpoint yet when the object was applied; the next apply places the object"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fold(tt.in, Diff(tt.in), tt.outcomes); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Fold:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestStatusFailed(t *testing.T) {
	for status, want := range map[string]bool{
		StatusOK: false, StatusClusterNotReady: false, StatusOrphaned: false,
		StatusCreationFailed: true, StatusUpdateFailed: true, StatusDeletionFailed: true, StatusUnknown: true,
	} {
		if got := (Status{Status: status}).Failed(); got != want {
			t.Errorf("%s: Failed() = %v, want %v", status, got, want)
		}
	}
}

func TestStages(t *testing.T) {
	apply := func(c string) Operation { return Operation{Cluster: c, Action: Apply} }
	tests := []struct {
		name  string
		ops   []Operation
		order [][]string
		want  [][]Operation
	}{
		{
			name:  "berlin first, the rest after",
			ops:   []Operation{apply("berlin"), apply("new-york"), apply("sf")},
			order: [][]string{{"berlin"}, {"new-york", "sf"}},
			want:  [][]Operation{{apply("berlin")}, {apply("new-york"), apply("sf")}},
		},
		{
			name:  "removals after the last stage",
			ops:   []Operation{apply("berlin"), {Cluster: "old", Action: Remove}, apply("sf")},
			order: [][]string{{"berlin"}, {"sf"}},
			want:  [][]Operation{{apply("berlin")}, {apply("sf")}, {{Cluster: "old", Action: Remove}}},
		},
		{
			name:  "a stage with nothing to do is dropped",
			ops:   []Operation{apply("sf"), {Cluster: "berlin", Action: Wait}},
			order: [][]string{{"berlin"}, {"ny"}, {"sf"}},
			want:  [][]Operation{{{Cluster: "berlin", Action: Wait}}, {apply("sf")}},
		},
		{
			name: "no operations, no stages",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Stages(tt.ops, tt.order); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Stages:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
