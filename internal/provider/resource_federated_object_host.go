package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// refreshFromHost compares the host's Federated<Kind> with what the state
// says was written, part by part, and takes the host's version of each part
// that differs: a host left behind (an apply that updated the members but
// could not write the host) then shows in the plan as a change, and the next
// apply writes it. Parts that mean the same keep the state's spelling.
func refreshFromHost(ctx context.Context, m *federatedObjectModel, in *objectInputs, host *registry.FederatedObject) diag.Diagnostics {
	var diags diag.Diagnostics
	want := in.hostObject(nil)
	var err error
	if !sameJSON(want.Template, host.Template) {
		_, namespace, name := splitObjectID(m.ID.ValueString())
		if template, err := templateFromHost(in.ft, namespace, name, host.Template); err != nil {
			diags.AddError("Cannot read the federated object's template from the host", err.Error())
		} else {
			m.setTemplate(template, !m.SensitiveTemplate.IsNull())
		}
	}
	if !sameJSON(want.Placement, host.Placement) {
		if m.Placement, err = placementValue(ctx, host.Placement); err != nil {
			diags.AddError("Cannot read the federated object's placement from the host", err.Error())
		}
	}
	if !sameJSON(comparableRules(want.Overrides), comparableRules(host.Overrides)) {
		if m.Overrides, err = overridesValue(ctx, host.Overrides); err != nil {
			diags.AddError("Cannot read the federated object's overrides from the host", err.Error())
		}
	}
	if want.Orphan != host.Orphan {
		m.DeletionPolicy = types.StringValue(map[bool]string{true: deletionOrphan, false: deletionDelete}[host.Orphan])
	}
	return diags
}

// templateFromHost is the template a Federated<Kind> carries, completed with
// what KubeFed leaves out of it: apiVersion, kind, name and namespace.
func templateFromHost(ft registry.FederatedType, namespace, name string, hostTemplate map[string]any) (templateValue, error) {
	template := maps.Clone(hostTemplate)
	if template == nil {
		template = map[string]any{}
	}
	template["apiVersion"] = ft.Target.APIVersion()
	template["kind"] = ft.Target.Kind
	meta, _ := template["metadata"].(map[string]any)
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["name"] = name
	if ft.Target.Namespaced {
		meta["namespace"] = namespace
	}
	template["metadata"] = meta
	raw, err := json.Marshal(template)
	if err != nil {
		return templateValue{}, err
	}
	return templateValue{StringValue: types.StringValue(string(raw))}, nil
}

// comparableRules are override rules with their patch values decoded, so
// that two spellings of one JSON value compare equal.
func comparableRules(rules []federation.OverrideRule) []any {
	out := make([]any, 0, len(rules))
	for _, rule := range rules {
		patches := make([]any, 0, len(rule.Patches))
		for _, p := range rule.Patches {
			var value any
			if p.Value != "" {
				if err := json.Unmarshal([]byte(p.Value), &value); err != nil {
					value = p.Value
				}
			}
			op := p.Op
			if op == "" {
				op = federation.OpReplace
			}
			patches = append(patches, map[string]any{"op": op, "path": p.Path, "value": value})
		}
		out = append(out, map[string]any{"cluster": rule.Cluster, "selector": rule.Selector, "patches": patches})
	}
	return out
}

// sameJSON reports whether a and b encode to the same JSON value, numbers
// compared by value.
func sameJSON(a, b any) bool {
	decoded := func(v any) (any, bool) {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, false
		}
		var out any
		return out, json.Unmarshal(raw, &out) == nil
	}
	x, okA := decoded(a)
	y, okB := decoded(b)
	return okA && okB && reflect.DeepEqual(x, y)
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

// removeCreatedNamespace deletes the host namespace that the provider
// created for what it stores there, once the last of it is gone. One that
// cannot be looked into whole is kept, with a warning: keeping a namespace
// only leaves it behind, deleting a wrong one would delete what it holds.
func removeCreatedNamespace(ctx context.Context, reg *registry.Registry, namespace string, diags *diag.Diagnostics) {
	removed, err := reg.RemoveCreatedNamespace(ctx, namespace)
	reportCreatedNamespace(ctx, namespace, removed, err, diags)
}

// reportCreatedNamespace logs the removal of a host namespace the provider
// created, or warns that it stays when it could not be looked into.
func reportCreatedNamespace(ctx context.Context, namespace string, removed bool, err error, diags *diag.Diagnostics) {
	if err != nil {
		diags.AddWarning(fmt.Sprintf("Namespace %q stays in the host", namespace),
			fmt.Sprintf("The provider created namespace %q in the host for federated objects, and removes it with the last "+
				"of them, but could not tell whether it holds anything else: %v. Delete it by hand once it is empty "+
				"(kubectl delete namespace %s on the host); with the kubefed-provider-namespaces role of the permissions "+
				"guide, the provider does it itself.", namespace, err, namespace))
		return
	}
	if removed {
		tflog.Info(ctx, "removed the host namespace the provider created, with the last object in it", map[string]any{"namespace": namespace})
	}
}

// hostNamespaceCheck is the look into a host namespace that a deletion
// leaves, started beside the deletion's other requests so that a far host
// costs it no round trip of its own when the provider did not create the
// namespace (nothing more to do), and one when nothing but the deleted
// record holds it (the namespace's deletion). A created namespace that
// held more costs one request once the record is gone, to see whether
// what held it is still there: the other objects of one destroy go
// meanwhile, and the last of them must find the namespace empty.
type hostNamespaceCheck struct {
	namespace string
	done      chan struct{}
	found     registry.CreatedNamespaceContent
	err       error
}

func startNamespaceCheck(ctx context.Context, reg *registry.Registry, namespace string, leaving ...registry.HostObject) *hostNamespaceCheck {
	c := &hostNamespaceCheck{namespace: namespace, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.found, c.err = reg.CreatedNamespace(ctx, namespace, leaving...)
	}()
	return c
}

// removeIfEmpty waits for the check, and deletes the namespace when it is
// one the provider created that nothing holds any more. A created
// namespace held by an object that is still there stays; one whose holder
// went meanwhile is looked into again.
func (c *hostNamespaceCheck) removeIfEmpty(ctx context.Context, reg *registry.Registry, diags *diag.Diagnostics) {
	if c == nil {
		return
	}
	<-c.done
	switch {
	case c.err == nil && c.found.Empty:
		removed, err := reg.DeleteCreatedNamespace(ctx, c.namespace, c.found.UID)
		reportCreatedNamespace(ctx, c.namespace, removed, err, diags)
	case c.err == nil && c.found.Created:
		if held, err := reg.StillHeld(ctx, c.namespace, c.found); held && err == nil {
			return
		}
		removeCreatedNamespace(ctx, reg, c.namespace, diags)
	case c.err != nil:
		removeCreatedNamespace(ctx, reg, c.namespace, diags)
	}
}
