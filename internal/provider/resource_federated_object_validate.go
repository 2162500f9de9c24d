package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
)

// ValidateConfig checks what needs no cluster, so that terraform validate
// reports it in CI with no host reachable: the template, the overrides
// against it, and the timeouts. The schema's validators check the rest
// (patch operations, pointers, JSON values, selectors).
func (r *federatedObjectResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m federatedObjectModel
	resp.Diagnostics.Append(objectModels.fromConfig(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateTimeouts(ctx, m.Timeouts, &resp.Diagnostics)
	validateRollout(ctx, m.Wait, m.RolloutStrategy, &resp.Diagnostics)
	warnPlacementBoth(m.Placement, &resp.Diagnostics)
	warnNoPlacement(m.Placement, m.ClusterReplicas, &resp.Diagnostics)
	template := m.template()
	if template.IsUnknown() || template.IsNull() {
		refuseSecretInClear(&resp.Diagnostics, &m, m.Type.ValueString(), federation.Identity{}, nil)
		return
	}
	var rules []federation.OverrideRule
	if fullyKnown(m.Overrides) {
		var err error
		if rules, err = overrideRulesOf(m.Overrides); err != nil {
			addInputError(&resp.Diagnostics, err)
			return
		}
		if !federation.PatchesWellFormed(rules) {
			// The attributes' own validators report it.
			return
		}
	}
	// The type's scope is known to the host only: a namespace in the
	// template is taken as the scope, which the plan checks again.
	renderer, err := federation.NewRenderer(federation.RenderSpec{
		Template:   template.ValueString(),
		Namespaced: federation.TemplateHasNamespace(template.ValueString()),
		Overrides:  rules,
	})
	if err != nil {
		addRenderError(&resp.Diagnostics, setPath(m.templateAt()), err)
		return
	}
	validateTemplateNames(&resp.Diagnostics, m.templateAt(), renderer.Identity())
	refuseSecretInClear(&resp.Diagnostics, &m, m.Type.ValueString(), renderer.Identity(), rules)
}

// refuseSecretInClear reports what would show a Secret's values in the
// plan: a Secret given as template, an override that writes its values.
// typeName and id may be empty where they are not known yet.
func refuseSecretInClear(diags *diag.Diagnostics, m *federatedObjectModel, typeName string, id federation.Identity, rules []federation.OverrideRule) {
	problem := objectset.SecretTemplateProblem(typeName, id.APIVersion, id.Kind)
	if problem == "" {
		return
	}
	if !m.Template.IsNull() {
		diags.AddAttributeError(path.Root("template"), "Secret given as template", problem)
	}
	addProblems(diags, objectset.SecretOverrideProblems(rules), nil)
}

// warnPlacementBoth says that a placement with both clusters and
// cluster_selector goes by clusters alone, as KubeFed's does.
func warnPlacementBoth(placement types.Object, diags *diag.Diagnostics) {
	if placement.IsNull() || placement.IsUnknown() {
		return
	}
	attrs := placement.Attributes()
	if attrs["clusters"] == nil || attrs["cluster_selector"] == nil || attrs["clusters"].IsNull() || attrs["cluster_selector"].IsNull() {
		return
	}
	diags.AddAttributeWarning(path.Root("placement").AtName("cluster_selector"), "cluster_selector is ignored",
		"placement sets both clusters and cluster_selector: as in KubeFed, the list of clusters decides and the selector is "+
			"ignored. Remove one of them.")
}

// warnNoPlacement says that an object with neither placement nor
// cluster_replicas goes to no cluster, as KubeFed's does, in the words of
// a selector that matches none: both look like a working configuration.
func warnNoPlacement(placement types.Object, clusterReplicas types.Map, diags *diag.Diagnostics) {
	if !placement.IsNull() && !placement.IsUnknown() && clusterReplicas.IsNull() {
		attrs := placement.Attributes()
		unset := func(v attr.Value) bool { return v == nil || v.IsNull() }
		if unset(attrs["clusters"]) && unset(attrs["cluster_selector"]) {
			warnPlacedNowhere(diags, path.Root("placement"), "The placement selects no cluster", "The object",
				"placement sets neither clusters nor cluster_selector, as in KubeFed. The CLI drops an attribute it does not "+
					"know here (cluster for clusters, say) before the provider sees it. Set placement.clusters, or "+
					"placement.cluster_selector = {} to place it on every registered cluster.")
		}
	}
	if !placement.IsNull() || !clusterReplicas.IsNull() {
		return
	}
	warnPlacedNowhere(diags, path.Root("placement"), "The object has no placement", "The object",
		"it has neither placement nor cluster_replicas. Set placement.clusters to name the clusters, or "+
			"placement.cluster_selector = {} to place it on every registered cluster.")
}

// warnPlacedNowhere is the warning of an object that its configuration
// places on no cluster, and why.
func warnPlacedNowhere(diags *diag.Diagnostics, at path.Path, summary, object, why string) {
	diags.AddAttributeWarning(at, summary, fmt.Sprintf("%s is placed on no cluster: %s", object, why))
}

// validateTimeouts refuses a timeout that is not positive: a Go duration
// of zero or less would end each operation before it starts.
func validateTimeouts(ctx context.Context, v attr.Value, diags *diag.Diagnostics) {
	obj, ok := v.(interface {
		ToObjectValue(context.Context) (types.Object, diag.Diagnostics)
	})
	if !ok || v.IsNull() || v.IsUnknown() {
		return
	}
	value, d := obj.ToObjectValue(ctx)
	if d.HasError() {
		return
	}
	for name, a := range value.Attributes() {
		s, ok := a.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if d, err := time.ParseDuration(s.ValueString()); err == nil && d <= 0 {
			diags.AddAttributeError(path.Root("timeouts").AtName(name), "Invalid timeout",
				fmt.Sprintf("timeouts.%s: %q is not a positive duration: write how long the operation may take, such as \"10m\".", name, s.ValueString()))
		}
	}
}

// jsonPointerValidator accepts an RFC 6901 JSON pointer.
var jsonPointerValidator = stringCheck{describe: "an RFC 6901 JSON pointer such as /spec/replicas", summary: "Invalid JSON pointer",
	check: func(value string) error {
		if _, err := federation.ParsePointer(value); err != nil {
			return fmt.Errorf("%w; write a JSON pointer such as \"/spec/replicas\" or \"/metadata/labels/tier\" (escape / in a key as ~1)", err)
		}
		return nil
	}}

// fieldPathValidator accepts a field path as ignore_fields takes it.
var fieldPathValidator = stringCheck{describe: "a field path such as spec.replicas or metadata.annotations[\"example.com/x\"]",
	summary: "Invalid field path", check: func(value string) error {
		_, err := federation.ParseFieldPath(value)
		return err
	}}
