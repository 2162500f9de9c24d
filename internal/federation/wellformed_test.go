package federation

import "testing"

func TestPatchesWellFormed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		patch Patch
		want  bool
	}{
		{"a replace", Patch{Op: OpReplace, Path: "/spec/replicas", Value: "3"}, true},
		{"no operation means replace", Patch{Path: "/metadata/labels/tier", Value: `"web"`}, true},
		{"a remove without a value", Patch{Op: OpRemove, Path: "/spec/paused"}, true},
		{"an unknown operation", Patch{Op: "move", Path: "/spec/replicas"}, false},
		{"a path that is no pointer", Patch{Op: OpAdd, Path: "spec.replicas", Value: "3"}, false},
		{"a value that is no JSON", Patch{Op: OpAdd, Path: "/spec/replicas", Value: "{three"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Path: "/spec/replicas", Value: "1"}, tc.patch}}}
			if got := PatchesWellFormed(rules); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
