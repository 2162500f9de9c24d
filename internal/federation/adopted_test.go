package federation

import (
	"strings"
	"testing"
)

func TestMarkAdopted(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
	}{
		{"no metadata annotations", `{"kind":"ConfigMap","metadata":{"name":"a"}}`,
			`{"kind":"ConfigMap","metadata":{"annotations":{"kubefed.terraform.io/adopted":"true"},"name":"a"}}`},
		{"annotations kept", `{"metadata":{"annotations":{"x":"1"},"name":"a"}}`,
			`{"metadata":{"annotations":{"kubefed.terraform.io/adopted":"true","x":"1"},"name":"a"}}`},
		{"already marked", `{"metadata":{"annotations":{"kubefed.terraform.io/adopted":"true"}}}`,
			`{"metadata":{"annotations":{"kubefed.terraform.io/adopted":"true"}}}`},
		{"numbers keep their spelling", `{"metadata":{},"spec":{"replicas":3,"big":12345678901234567890}}`,
			`{"metadata":{"annotations":{"kubefed.terraform.io/adopted":"true"}},"spec":{"big":12345678901234567890,"replicas":3}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MarkAdopted([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
			if !IsAdopted(string(got)) || IsAdopted(tt.in) != strings.Contains(tt.in, AdoptedAnnotation) {
				t.Fatalf("IsAdopted disagrees with the mark")
			}
		})
	}
	if _, err := MarkAdopted([]byte(`[1]`)); err == nil {
		t.Fatal("a list was marked")
	}
}

func TestOwnershipOf(t *testing.T) {
	ours := map[string]any{"manager": "kubefed-terraform", "operation": "Apply"}
	other := map[string]any{"manager": "kubectl-client-side-apply", "operation": "Update"}
	object := func(labels, annotations map[string]any, managers ...any) map[string]any {
		return map[string]any{"metadata": map[string]any{"labels": labels, "annotations": annotations, "managedFields": managers}}
	}
	managed := map[string]any{ManagedLabel: "true"}
	tests := []struct {
		name string
		obj  map[string]any
		want Ownership
	}{
		{"created by hand", object(nil, nil, other), Foreign},
		{"written by KubeFed's controller: its label, another manager", object(managed, nil, map[string]any{"manager": "kubefed"}), Foreign},
		{"our field manager without the label (someone removed it)", object(nil, nil, ours), Foreign},
		{"left by an interrupted apply of ours", object(managed, nil, ours, other), Ours},
		{"adopted earlier", object(nil, map[string]any{AdoptedAnnotation: "true"}, other), Ours},
		{"no metadata", map[string]any{}, Foreign},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OwnershipOf(tt.obj, "kubefed-terraform"); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
