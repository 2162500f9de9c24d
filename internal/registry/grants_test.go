package registry

import (
	"slices"
	"testing"
)

func TestGrants(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        Grants
		allows      map[string]bool
	}{
		{
			name:   "registered with credentials of its own: every type, the member answers at apply",
			want:   Grants{},
			allows: map[string]bool{"configmaps": true, "deployments.apps": true},
		},
		{
			name:        "joined with two types: those and no other",
			annotations: map[string]string{GrantedTypesAnnotation: "namespaces,deployments.apps"},
			want:        Grants{Limited: true, Types: []string{"deployments.apps", "namespaces"}},
			allows:      map[string]bool{"namespaces": true, "deployments.apps": true, "configmaps": false, "deployments": false},
		},
		{
			name:        "joined with no type: none",
			annotations: map[string]string{GrantedTypesAnnotation: ""},
			want:        Grants{Limited: true, Types: []string{}},
			allows:      map[string]bool{"namespaces": false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := grantsOf(tt.annotations)
			if got.Limited != tt.want.Limited || !slices.Equal(got.Types, tt.want.Types) {
				t.Fatalf("grantsOf = %+v, want %+v", got, tt.want)
			}
			for typeName, want := range tt.allows {
				if got.Allows(typeName) != want {
					t.Errorf("Allows(%q) = %v, want %v", typeName, !want, want)
				}
			}
			// What is written reads back the same.
			value, written := got.annotation()
			if written != got.Limited {
				t.Fatalf("annotation written = %v for Limited = %v", written, got.Limited)
			}
			if written {
				back := grantsOf(map[string]string{GrantedTypesAnnotation: value})
				if !slices.Equal(back.Types, got.Types) {
					t.Errorf("round trip: %q reads back as %v, want %v", value, back.Types, got.Types)
				}
			}
		})
	}
}
