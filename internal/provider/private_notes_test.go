package provider

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/capacity"
)

// fakePrivate is private state as the framework keeps it: an empty value
// removes the key.
type fakePrivate map[string][]byte

func (f fakePrivate) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return f[key], nil
}

func (f fakePrivate) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(f, key)
		return nil
	}
	f[key] = value
	return nil
}

// unreadablePrivate is private state that cannot be read.
type unreadablePrivate struct{ fakePrivate }

func (unreadablePrivate) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot read private state", key)}
}

type noteCase struct {
	name  string
	check func(t *testing.T)
}

// roundTrip checks that note stores value as stored, the encoding state in
// users' workspaces holds, reads it back and forgets it.
func roundTrip[T any](name string, note privateNote[T], value T, stored string) noteCase {
	return noteCase{name, func(t *testing.T) {
		ctx := context.Background()
		private := fakePrivate{"other": []byte(`1`)}
		if diags := note.Save(ctx, private, value); diags.HasError() {
			t.Fatal(diags)
		}
		if got := string(private[note.key]); got != stored {
			t.Errorf("stored %s under %q, want %s", got, note.key, stored)
		}
		got, diags := note.Load(ctx, private)
		if diags.HasError() || got == nil || !reflect.DeepEqual(*got, value) {
			t.Fatalf("read back %v (%v), want %v", got, diags, value)
		}
		if diags := note.Forget(ctx, private); diags.HasError() {
			t.Fatal(diags)
		}
		if _, ok := private[note.key]; ok {
			t.Errorf("%q outlived Forget", note.key)
		}
		if got, _ := note.Load(ctx, private); got != nil {
			t.Errorf("a forgotten note reads as %v", *got)
		}
		if string(private["other"]) != "1" {
			t.Error("the note touched another key")
		}
	}}
}

func TestPrivateNotesRoundTripInTheirStoredEncoding(t *testing.T) {
	capacity := capacity.Note{Inputs: "abc", Clusters: map[string]capacity.ClusterEstimate{
		"berlin": {Replicas: 2, Reason: "1 of 1 nodes schedulable"}, "sf": {Unread: "timeout"}}}
	for _, tc := range []noteCase{
		roundTrip("registered clusters", registeredAtReadNote, []string{"berlin", "sf"}, `["berlin","sf"]`),
		roundTrip("no registered cluster", registeredAtReadNote, []string{}, `[]`),
		roundTrip("capacity record", capacityAtReadNote, capacity,
			`{"inputs":"abc","clusters":{"berlin":{"replicas":2,"reason":"1 of 1 nodes schedulable"},"sf":{"replicas":0,"unread":"timeout"}}}`),
		roundTrip("planned from state", plannedFromStateNote, "FederatedObject/deployments.apps/web/app",
			`"FederatedObject/deployments.apps/web/app"`),
		roundTrip("replacement", replacementNote, replacement{ID: "configmaps/web/c", Placed: []string{"sf", "berlin"}},
			`{"id":"configmaps/web/c","placed":["sf","berlin"]}`),
		roundTrip("token given write-only", tokenWriteOnlyNote, true, `true`),
		roundTrip("token in the state", tokenWriteOnlyNote, false, `false`),
	} {
		t.Run(tc.name, tc.check)
	}
}

func TestPrivateNoteLoad(t *testing.T) {
	const key = "planned_from_state"
	earlier := "Type/a.b"
	for _, tc := range []struct {
		name        string
		private     privateData
		want        *string
		wantWarning string
		wantError   bool
	}{
		{name: "absent key", private: fakePrivate{}},
		{name: "a note written by an earlier version", private: fakePrivate{key: []byte(`"Type/a.b"`)}, want: &earlier},
		{name: "malformed value", private: fakePrivate{key: []byte(`{"id":"x"}`)},
			wantWarning: `holds a "planned_from_state" note this provider cannot read: json: cannot unmarshal object`},
		{name: "unreadable private state", private: unreadablePrivate{}, wantError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, diags := plannedFromStateNote.Load(context.Background(), tc.private)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Load = %v, want %v", got, tc.want)
			}
			if diags.HasError() != tc.wantError {
				t.Errorf("error %v, want one: %v", diags, tc.wantError)
			}
			warnings := diags.Warnings()
			switch {
			case tc.wantWarning == "" && len(warnings) > 0:
				t.Errorf("unexpected warning %v", warnings)
			case tc.wantWarning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0].Detail(), tc.wantWarning)):
				t.Errorf("warnings %v, want one saying %q", warnings, tc.wantWarning)
			}
		})
	}
}

func TestPrivateNoteSaveOfAnUnencodableValueSaysWhichNote(t *testing.T) {
	note := privateNote[chan int]{key: "channel", holds: "a channel"}
	private := fakePrivate{}
	diags := note.Save(context.Background(), private, make(chan int))
	if !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail(), `"channel"`) {
		t.Errorf("Save of a channel: %v, want an error naming the note", diags)
	}
	if len(private) != 0 {
		t.Errorf("Save of a channel stored %v", private)
	}
}

func TestNoteHolds(t *testing.T) {
	for _, tc := range []struct {
		name        string
		private     fakePrivate
		want        bool
		wantWarning bool
	}{
		{"absent", fakePrivate{}, false, false},
		{"the same value", fakePrivate{"planned_from_state": []byte(`"Cluster/sf"`)}, true, false},
		{"another value", fakePrivate{"planned_from_state": []byte(`"Cluster/berlin"`)}, false, false},
		{"malformed", fakePrivate{"planned_from_state": []byte(`["Cluster/sf"]`)}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags diag.Diagnostics
			if got := noteHolds(context.Background(), tc.private, plannedFromStateNote, "Cluster/sf", &diags); got != tc.want {
				t.Errorf("noteHolds = %v, want %v", got, tc.want)
			}
			if got := diags.WarningsCount() > 0; got != tc.wantWarning {
				t.Errorf("warned %v, want %v: %v", got, tc.wantWarning, diags)
			}
		})
	}
}

func TestForgetNotesDropsOnlyTheNotesGiven(t *testing.T) {
	private := fakePrivate{
		"registered_at_read": []byte(`[]`), "planned_from_state": []byte(`"x"`), "token_wo": []byte(`true`),
	}
	if diags := forgetNotes(context.Background(), private, registeredAtReadNote, plannedFromStateNote); diags.HasError() {
		t.Fatal(diags)
	}
	if want := (fakePrivate{"token_wo": []byte(`true`)}); !reflect.DeepEqual(private, want) {
		t.Errorf("left %v, want %v", private, want)
	}
}
