package provider

import (
	"slices"
	"testing"
)

func TestReplacementNoteNamesTheObjectItReplaces(t *testing.T) {
	note := &replacement{ID: "configmaps/web/c", Placed: []string{"sf", "berlin"}}
	for _, tc := range []struct {
		name        string
		note        *replacement
		id          string
		wantStaying []string
		wantReplace bool
	}{
		{"the note of the object's own create", note, "configmaps/web/c", []string{"sf", "berlin"}, true},
		{"a note for another object is a plain delete", note, "configmaps/web/other", nil, false},
		{"no note is a plain delete", nil, "configmaps/web/c", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			staying, replaced := tc.note.stayingFor(tc.id)
			if replaced != tc.wantReplace || !slices.Equal(staying, tc.wantStaying) {
				t.Errorf("stayingFor(%q) = %v, %v; want %v, %v", tc.id, staying, replaced, tc.wantStaying, tc.wantReplace)
			}
		})
	}
}
