package objectset

import (
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

func TestRecordState(t *testing.T) {
	written := func() registry.FederatedObject {
		return registry.FederatedObject{
			Namespace: "shop", Name: "settings",
			Template:  map[string]any{"data": map[string]any{"color": "blue"}},
			Placement: federation.Placement{Clusters: []string{"berlin", "new-york"}},
			Overrides: []federation.OverrideRule{{Cluster: "berlin",
				Patches: []federation.Patch{{Op: federation.OpReplace, Path: "/data/color", Value: `"green"`}}}},
			Application: "web",
		}
	}
	edited := func(edit func(*registry.FederatedObject)) *registry.FederatedObject {
		fo := written()
		edit(&fo)
		return &fo
	}
	tests := []struct {
		name string
		host *registry.FederatedObject
		want string
	}{
		{"the record the set wrote", edited(func(*registry.FederatedObject) {}), RecordCurrent},
		{"deleted by hand", nil, RecordMissing},
		{"data edited by hand", edited(func(fo *registry.FederatedObject) {
			fo.Template = map[string]any{"data": map[string]any{"color": "red"}}
		}), "differs: template"},
		{"a cluster added to the placement", edited(func(fo *registry.FederatedObject) {
			fo.Placement.Clusters = append(fo.Placement.Clusters, "san-francisco")
		}), "differs: placement"},
		{"an override's value spelt otherwise", edited(func(fo *registry.FederatedObject) {
			fo.Overrides[0].Patches[0] = federation.Patch{Path: "/data/color", Value: ` "green" `}
		}), RecordCurrent},
		{"an override removed", edited(func(fo *registry.FederatedObject) { fo.Overrides = nil }), "differs: overrides"},
		{"orphaned by hand", edited(func(fo *registry.FederatedObject) { fo.Orphan = true }), "differs: deletion policy"},
		{"the application label removed", edited(func(fo *registry.FederatedObject) { fo.Application = "" }), "differs: application label"},
		{"template and placement edited", edited(func(fo *registry.FederatedObject) {
			fo.Template = map[string]any{}
			fo.Placement = federation.Placement{}
		}), "differs: template, placement"},
		{"status and writers only", edited(func(fo *registry.FederatedObject) {
			fo.Status = map[string]string{"berlin": "Propagated"}
			fo.Writers = []string{"kubectl-edit"}
		}), RecordCurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RecordState(written(), tt.host); got != tt.want {
				t.Errorf("RecordState() = %q, want %q", got, tt.want)
			}
		})
	}
}
