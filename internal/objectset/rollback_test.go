package objectset

import (
	"errors"
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
)

func TestRolledBackStatus(t *testing.T) {
	// What the failed stage's apply recorded, as reconcile.Fold folds it.
	folded := func(out reconcile.Outcome) reconcile.Status {
		in := reconcile.Input{Want: map[string]string{"berlin": "new"}, Held: map[string]string{"berlin": "old"},
			Placed: []string{"berlin"}}
		out.Cluster = "berlin"
		return reconcile.Fold(in, reconcile.Diff(in), []reconcile.Outcome{out}).Status["berlin"]
	}
	tests := []struct {
		name       string
		out        reconcile.Outcome
		wantStatus string
		want       []string
		wantNot    []string
	}{
		{name: "the rollout failed", out: reconcile.Outcome{Rollout: reconcile.RolloutFailed, RolloutMessage: "CrashLoopBackOff: pod web-1"},
			wantStatus: reconcile.StatusRolloutFailed,
			want:       []string{"the rollout failed: CrashLoopBackOff: pod web-1", "rolled back", "before this apply"},
			wantNot:    []string{"stays applied"}},
		{name: "the rollout timed out", out: reconcile.Outcome{Rollout: reconcile.RolloutTimedOut, RolloutMessage: "1/2 ready"},
			wantStatus: reconcile.StatusRolloutTimedOut, want: []string{"the rollout timed out: 1/2 ready", "rolled back"},
			wantNot: []string{"stays applied"}},
		{name: "the write was refused", out: reconcile.Outcome{Err: "admission webhook denied the request"},
			wantStatus: reconcile.StatusUpdateFailed, want: []string{"admission webhook denied the request; rolled back"}},
		{name: "written and running", out: reconcile.Outcome{Rollout: reconcile.RolloutDone},
			wantStatus: reconcile.StatusOK, wantNot: []string{"rolled back"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RolledBackStatus(folded(tt.out), tt.out)
			if got.Status != tt.wantStatus {
				t.Errorf("status = %s, want %s", got.Status, tt.wantStatus)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.Message, w) {
					t.Errorf("message %q lacks %q", got.Message, w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got.Message, w) {
					t.Errorf("message %q says %q", got.Message, w)
				}
			}
		})
	}
}

func TestRolledBackSpec(t *testing.T) {
	key := "/v1/ConfigMap/web/web-config"
	prior := &Object{Spec: Spec{Template: "v1"}}
	prior.Key, _ = federation.ParseKey(key)
	heldBefore := map[string]string{"sf": "v1", "berlin": "v1"}
	tests := []struct {
		name       string
		rolledBack bool
		prior      *Object
		heldAfter  map[string]string
		want       *Object
	}{
		{"no rollback", false, prior, heldBefore, nil},
		{"every cluster rolled back", true, prior, map[string]string{"sf": "v1", "berlin": "v1"}, prior},
		{"an earlier stage kept the new version", true, prior, map[string]string{"sf": "v2", "berlin": "v1"}, nil},
		{"a new object (the rollback removed it)", true, nil, map[string]string{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var priorSet *Set
			if tt.prior != nil {
				priorSet = NewSet([]*Object{tt.prior}, Strategy{}, Spec{})
			}
			a := &setApply{in: ApplyInput{Prior: priorSet, Held: map[string]map[string]string{key: heldBefore}},
				records: map[string]reconcile.Record{key: {Held: tt.heldAfter}}, rolledBack: tt.rolledBack}
			if got := a.rolledBackSpec(key); got != tt.want {
				t.Fatalf("rolledBackSpec = %v, want %v", got, tt.want)
			}
		})
	}
}

// A create whose host record could not be written stops the apply before
// any member write, and the result keeps every object the state held as
// it held it, those the apply could not work on included: their removal
// is still owed.
func TestApplyStoppedBeforeMembersKeepsWhatTheStateHeld(t *testing.T) {
	newKey, stuckKey := "/v1/ConfigMap/web/new", "/v1/ConfigMap/web/gone"
	o := &Object{}
	o.Key, _ = federation.ParseKey(newKey)
	held := map[string]map[string]string{stuckKey: {"berlin": "{}"}}
	a := newSetApply(nil, ApplyInput{Set: NewSet([]*Object{o}, Strategy{}, Spec{}), Held: held})
	a.holding = NewSet([]*Object{o}, Strategy{}, Spec{})
	a.keys = []string{newKey}
	var problems Problems
	specs := map[string]func() error{newKey: func() error { return errors.New("the host refused") }}
	if a.intentsRecorded(specs, &problems) || !problems.HasError() {
		t.Fatal("a create whose record failed went on to the members")
	}
	a.keepAll()
	a.keepStuck()
	if got := a.records[stuckKey].Held["berlin"]; got != "{}" {
		t.Fatalf("the object whose removal is owed was dropped: %v", a.records)
	}
	if _, ok := a.records[newKey]; !ok || len(a.records[newKey].Held) != 0 {
		t.Fatalf("the new object's record = %v, want one holding nothing", a.records[newKey])
	}
}
