package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Version 2 of the federated object and the application shows `rendered`
// by object: the manifest its clusters share, once, and how each cluster's
// differs. Version 1 held one full copy per cluster.
const renderedByObjectVersion = 2

// renderedAttributes are the attributes of one object's rendering: what a
// plan shows of it on every cluster, and what the state says each holds.
func renderedAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"manifest": schema.StringAttribute{Computed: true,
			Description: "The canonical JSON of the object as most of its clusters receive it (planned) or hold it (in state)."},
		"clusters": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			Description: "The clusters that receive or hold the object, sorted."},
		"differences": schema.MapAttribute{Computed: true, ElementType: types.StringType,
			Description: "For each of those clusters whose object is not `manifest`, how it differs: a JSON Patch (RFC 6902) " +
				"that turns `manifest` into it, or, when a patch would be longer, the whole object. An empty string marks a " +
				"cluster whose write was cut off, which the next refresh reads back. Absent when every cluster receives `manifest`."},
	}
}
