package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The plan keeps the state's spelling of overrides that mean what the
// configuration's mean, and only then.
func TestKeepPriorOverrides(t *testing.T) {
	rule := func(patch map[string]any) []any {
		return []any{map[string]any{"cluster": "berlin", "patches": []any{patch}}}
	}
	prior := dynamicOf(t, rule(map[string]any{"path": "/data/a", "value": `{"x":1}`}))
	for _, tc := range []struct {
		name    string
		planned types.Dynamic
		kept    bool
	}{
		{"an explicit replace and other JSON spacing", dynamicOf(t, rule(map[string]any{"op": "replace", "path": "/data/a", "value": `{ "x": 1 }`})), true},
		{"another value", dynamicOf(t, rule(map[string]any{"path": "/data/a", "value": `{"x":2}`})), false},
		{"another op", dynamicOf(t, rule(map[string]any{"op": "add", "path": "/data/a", "value": `{"x":1}`})), false},
		{"no rules", types.DynamicNull(), false},
		{"not known yet", types.DynamicUnknown(), false},
	} {
		planned, placement := tc.planned, types.ObjectNull(placementType.AttrTypes)
		keepPriorSpelling(context.Background(), &placement, placement, &planned, prior, false)
		if kept := planned.Equal(prior); kept != tc.kept {
			t.Errorf("%s: prior kept %v, want %v", tc.name, kept, tc.kept)
		}
	}

	setPrior := dynamicOf(t, []any{map[string]any{"object": map[string]any{"kind": "ConfigMap", "name": "web"}, "cluster": "berlin",
		"patches": []any{map[string]any{"path": "/data/a", "value": `"b"`}}}})
	same := dynamicOf(t, []any{map[string]any{"cluster": "berlin", "object": map[string]any{"name": "web", "kind": "ConfigMap"},
		"patches": []any{map[string]any{"path": "/data/a", "value": `"b"`, "op": "replace"}}}})
	noPlacement := types.ObjectNull(placementType.AttrTypes)
	keepPriorSpelling(context.Background(), &noPlacement, noPlacement, &same, setPrior, true)
	if !same.Equal(setPrior) {
		t.Error("an application's rules that mean the same did not keep the prior spelling")
	}
	other := dynamicOf(t, []any{map[string]any{"object": map[string]any{"kind": "ConfigMap", "name": "api"}, "cluster": "berlin",
		"patches": []any{map[string]any{"path": "/data/a", "value": `"b"`}}}})
	keepPriorSpelling(context.Background(), &noPlacement, noPlacement, &other, setPrior, true)
	if other.Equal(setPrior) {
		t.Error("a rule for another object took the prior spelling")
	}

	selector := dynamicOf(t, map[string]any{"match_labels": map[string]any{"region": "eu"}})
	asMap := types.DynamicValue(types.ObjectValueMust(map[string]attr.Type{"match_labels": types.MapType{ElemType: types.StringType}},
		map[string]attr.Value{"match_labels": types.MapValueMust(types.StringType, map[string]attr.Value{"region": types.StringValue("eu")})}))
	keepPriorSelector(&asMap, selector)
	if !asMap.Equal(selector) {
		t.Error("labels from a map did not keep the prior spelling")
	}
	everyCluster := dynamicOf(t, map[string]any{})
	keepPriorSelector(&everyCluster, selector)
	if everyCluster.Equal(selector) {
		t.Error("the empty selector took the spelling of one that selects by label")
	}
}
