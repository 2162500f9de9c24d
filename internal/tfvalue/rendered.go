package tfvalue

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/renderdiff"
)

// RenderedType is the value type of one object's rendering: the manifest
// its clusters share, the clusters, and how each other cluster's differs
// (see renderdiff.View).
var RenderedType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"manifest":    types.StringType,
	"clusters":    types.ListType{ElemType: types.StringType},
	"differences": types.MapType{ElemType: types.StringType},
}}

// Rendered is the value of one object's texts by cluster: null when no
// cluster receives or holds it.
func Rendered(byCluster map[string]string) types.Object {
	if len(byCluster) == 0 {
		return types.ObjectNull(RenderedType.AttrTypes)
	}
	view := renderdiff.Split(byCluster)
	clusters := make([]attr.Value, len(view.Clusters))
	for i, c := range view.Clusters {
		clusters[i] = types.StringValue(c)
	}
	differences := types.MapNull(types.StringType)
	if len(view.Differences) > 0 {
		elems := make(map[string]attr.Value, len(view.Differences))
		for c, d := range view.Differences {
			elems[c] = types.StringValue(d)
		}
		differences = types.MapValueMust(types.StringType, elems)
	}
	return types.ObjectValueMust(RenderedType.AttrTypes, map[string]attr.Value{
		"manifest":    types.StringValue(view.Manifest),
		"clusters":    types.ListValueMust(types.StringType, clusters),
		"differences": differences,
	})
}

// RenderedByCluster reads one object's texts by cluster back. A value that
// does not join (a state edited by hand) gives every cluster it lists as
// renderdiff.Unknown, which the next refresh reads back from the cluster.
func RenderedByCluster(v types.Object) map[string]string {
	out := map[string]string{}
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	attrs := v.Attributes()
	var view renderdiff.View
	if s, ok := attrs["manifest"].(types.String); ok {
		view.Manifest = s.ValueString()
	}
	if l, ok := attrs["clusters"].(types.List); ok {
		for _, e := range l.Elements() {
			if s, ok := e.(types.String); ok {
				view.Clusters = append(view.Clusters, s.ValueString())
			}
		}
	}
	if m, ok := attrs["differences"].(types.Map); ok && len(m.Elements()) > 0 {
		view.Differences = map[string]string{}
		for c, e := range m.Elements() {
			if s, ok := e.(types.String); ok {
				view.Differences[c] = s.ValueString()
			}
		}
	}
	joined, err := view.Join()
	if err != nil {
		for _, cluster := range view.Clusters {
			out[cluster] = renderdiff.Unknown
		}
		return out
	}
	return joined
}

// RenderedSet is a set's rendering: by object key, the view of its texts
// by cluster.
func RenderedSet(perObject map[string]map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(perObject))
	for key, byCluster := range perObject {
		if len(byCluster) > 0 {
			elems[key] = Rendered(byCluster)
		}
	}
	return types.MapValueMust(RenderedType, elems)
}

// RenderedSetByObject reads a set's rendering back: by object, by cluster.
func RenderedSetByObject(v types.Map) map[string]map[string]string {
	out := map[string]map[string]string{}
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	for key, e := range v.Elements() {
		if view, ok := e.(types.Object); ok {
			if byCluster := RenderedByCluster(view); len(byCluster) > 0 {
				out[key] = byCluster
			}
		}
	}
	return out
}

// UpgradeRendered rewrites the JSON of a stored state whose `rendered`
// held a full text per cluster: for one object (texts by cluster), or,
// with nested, for a set (by cluster, then by object key). It becomes the
// view Rendered or RenderedSet gives for the same texts, so a plan of the
// same configuration shows no change.
func UpgradeRendered(state []byte, nested bool) ([]byte, error) {
	decoder := json.NewDecoder(bytes.NewReader(state))
	decoder.UseNumber()
	var root map[string]any
	if err := decoder.Decode(&root); err != nil {
		return nil, fmt.Errorf("the stored state is not a JSON object: %w", err)
	}
	var old map[string]map[string]string
	var perObject map[string]map[string]string
	if nested {
		if err := remarshal(root["rendered"], &old); err != nil {
			return nil, fmt.Errorf("rendered: %w", err)
		}
		perObject = map[string]map[string]string{}
		for cluster, byKey := range old {
			for key, text := range byKey {
				if perObject[key] == nil {
					perObject[key] = map[string]string{}
				}
				perObject[key][cluster] = text
			}
		}
		views := map[string]any{}
		for key, byCluster := range perObject {
			views[key] = RenderedJSON(byCluster)
		}
		root["rendered"] = views
	} else {
		var byCluster map[string]string
		if err := remarshal(root["rendered"], &byCluster); err != nil {
			return nil, fmt.Errorf("rendered: %w", err)
		}
		root["rendered"] = RenderedJSON(byCluster)
	}
	return json.Marshal(root)
}

// RenderedJSON is the JSON of Rendered's value, as a state stores it.
func RenderedJSON(byCluster map[string]string) any {
	if len(byCluster) == 0 {
		return nil
	}
	view := renderdiff.Split(byCluster)
	out := map[string]any{"manifest": view.Manifest, "clusters": view.Clusters, "differences": nil}
	if len(view.Differences) > 0 {
		out["differences"] = view.Differences
	}
	return out
}

func remarshal(v any, into any) error {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}
