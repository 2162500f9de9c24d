package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// refreshFromHost takes the host's version of each part of the object's
// Federated<Kind> that differs from what the state says was written
// (objectset.Drift): a host left behind (an apply that updated the members
// but could not write the host) then shows in the plan as a change, and the
// next apply writes it. Parts that mean the same keep the state's spelling.
func refreshFromHost(ctx context.Context, m *federatedObjectModel, o *objectset.Object, host *registry.FederatedObject) diag.Diagnostics {
	var diags diag.Diagnostics
	drift := objectset.Drift(o.HostObject(nil), *host)
	var err error
	if slices.Contains(drift, objectset.PartTemplate) {
		_, namespace, name := objectset.SplitID(m.ID.ValueString())
		if template, err := objectset.TemplateFromHost(o.Type, namespace, name, *host); err != nil {
			diags.AddError("Cannot read the federated object's template from the host", err.Error())
		} else {
			m.setTemplate(templateValue{StringValue: types.StringValue(template)}, !m.SensitiveTemplate.IsNull())
		}
	}
	if slices.Contains(drift, objectset.PartPlacement) {
		if m.Placement, err = placementValue(ctx, host.Placement); err != nil {
			diags.AddError("Cannot read the federated object's placement from the host", err.Error())
		}
	}
	if slices.Contains(drift, objectset.PartOverrides) {
		if m.Overrides, err = overridesValue(host.Overrides); err != nil {
			diags.AddError("Cannot read the federated object's overrides from the host", err.Error())
		}
	}
	if slices.Contains(drift, objectset.PartDeletionPolicy) {
		m.DeletionPolicy = types.StringValue(map[bool]string{true: deletionOrphan, false: deletionDelete}[host.Orphan])
	}
	return diags
}

// statusEntries reads cluster_status.
func statusEntries(v types.Map) map[string]reconcile.Status {
	out := map[string]reconcile.Status{}
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	for cluster, e := range v.Elements() {
		attrs := objectAttributes(e)
		out[cluster] = reconcile.Status{Status: stringAttribute(attrs, "status"), Message: stringAttribute(attrs, "message")}
	}
	return out
}
