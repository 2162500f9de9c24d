package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/plain"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// federatedApplicationModel is kubefed_federated_application.
type federatedApplicationModel struct {
	ID                 types.String   `tfsdk:"id"`
	Name               types.String   `tfsdk:"name"`
	Manifests          types.List     `tfsdk:"manifests"`
	SensitiveManifests types.List     `tfsdk:"sensitive_manifests"`
	ManifestObjects    types.Dynamic  `tfsdk:"manifest_objects"`
	DefaultNamespace   types.String   `tfsdk:"default_namespace"`
	Placement          types.Object   `tfsdk:"placement"`
	Overrides          types.Dynamic  `tfsdk:"overrides"`
	ReplicasObject     types.Object   `tfsdk:"replicas_object"`
	ClusterReplicas    types.Map      `tfsdk:"cluster_replicas"`
	DeletionPolicy     types.String   `tfsdk:"deletion_policy"`
	ForceConflicts     types.Bool     `tfsdk:"force_conflicts"`
	Adopt              types.Bool     `tfsdk:"adopt"`
	AdoptObjects       types.List     `tfsdk:"adopt_objects"`
	RetainReplicas     types.Bool     `tfsdk:"retain_replicas"`
	IgnoreFields       types.List     `tfsdk:"ignore_fields"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
	Wait               types.Object   `tfsdk:"wait"`
	RolloutStrategy    types.Object   `tfsdk:"rollout_strategy"`
	Objects            types.List     `tfsdk:"objects"`
	PlacedClusters     types.Set      `tfsdk:"placed_clusters"`
	Rendered           types.Map      `tfsdk:"rendered"`
	ClusterStatus      types.Map      `tfsdk:"cluster_status"`
	ClusterHealth      types.Map      `tfsdk:"cluster_health"`
	HostRecords        types.Map      `tfsdk:"host_records"`
	RolloutPlan        types.List     `tfsdk:"rollout_plan"`
}

// applicationModels reads and writes kubefed_federated_application's values.
var applicationModels modelCodec[federatedApplicationModel]

type objectRefModel struct {
	Kind       types.String `tfsdk:"kind"`
	Name       types.String `tfsdk:"name"`
	Namespace  types.String `tfsdk:"namespace"`
	APIVersion types.String `tfsdk:"api_version"`
}

func (m objectRefModel) ref() *federation.ObjectRef {
	return &federation.ObjectRef{Kind: m.Kind.ValueString(), Name: m.Name.ValueString(),
		Namespace: m.Namespace.ValueString(), APIVersion: m.APIVersion.ValueString()}
}

// appObject is where the configuration holds one object of an
// application: the element of manifests or sensitive_manifests and, for
// each of the object's override rules, its index in the application's
// overrides. Problems the pipeline reports about the object are mapped
// there.
type appObject struct {
	key   federation.Key
	at    path.Path
	rules []int
}

// appSet is an application's objects as the pipeline's set, with where
// the configuration holds each.
type appSet struct {
	*objectset.Set
	where map[string]*appObject
	// hooks warns of the Helm hooks and tests left out of the set.
	hooks diag.Diagnostics
	scope federation.Scope
}

// manifestsOf parses both manifest lists, with default_namespace for the
// kinds scope knows to be namespaced; errors are reported at their
// element, and the warnings of the hooks left out are returned.
func manifestsOf(ctx context.Context, m *federatedApplicationModel, scope federation.Scope, diags *diag.Diagnostics) ([]federation.Manifest,
	[]path.Path, diag.Diagnostics) {
	opts := federation.ManifestOptions{DefaultNamespace: m.DefaultNamespace.ValueString(), Scope: scope}
	if m.DefaultNamespace.IsUnknown() {
		opts.Scope = nil
	}
	var lists []objectset.ManifestList
	for _, list := range []struct {
		name  string
		value types.List
	}{{"manifests", m.Manifests}, {"sensitive_manifests", m.SensitiveManifests}} {
		if list.value.IsNull() || list.value.IsUnknown() {
			continue
		}
		l := objectset.ManifestList{Name: list.name, Sensitive: list.name == "sensitive_manifests"}
		diags.Append(list.value.ElementsAs(ctx, &l.Elements, false)...)
		lists = append(lists, l)
	}
	if objects, err := manifestObjects(m.ManifestObjects); err != nil {
		diags.AddAttributeError(path.Root("manifest_objects"), "Invalid manifest objects", err.Error())
	} else if objects != nil {
		lists = append(lists, *objects)
	}
	all, in, problems, hooks := objectset.Manifests(lists, opts)
	addProblems(diags, problems, nil)
	var hookWarnings diag.Diagnostics
	addProblems(&hookWarnings, hooks, nil)
	at := make([]path.Path, len(in))
	for i, p := range in {
		at[i] = pathOf(p)
	}
	return all, at, hookWarnings
}

// manifestObjects is manifest_objects as a list of JSON texts named by
// their keys, in the keys' order; nil when it is null or not known.
func manifestObjects(v types.Dynamic) (*objectset.ManifestList, error) {
	if v.IsNull() || !fullyKnown(v) {
		return nil, nil
	}
	raw, err := tfvalue.Plain(v)
	if err != nil {
		return nil, err
	}
	keys, texts, err := plain.ManifestObjects(raw)
	if err != nil {
		return nil, err
	}
	return &objectset.ManifestList{Name: "manifest_objects", Keys: keys, Elements: texts}, nil
}

// keepPriorManifests plans the state's text of a manifest list that holds
// the configuration's objects (differing in layout, comments or Helm hooks
// and tests only): a chart rendered again with the same values plans nothing.
func keepPriorManifests(ctx context.Context, plan, prior *federatedApplicationModel, scope federation.Scope) {
	if prior == nil {
		return
	}
	opts := federation.ManifestOptions{DefaultNamespace: plan.DefaultNamespace.ValueString(), Scope: scope}
	for _, l := range []struct {
		planned *types.List
		prior   types.List
	}{{&plan.Manifests, prior.Manifests}, {&plan.SensitiveManifests, prior.SensitiveManifests}} {
		var now, before []string
		if l.planned.IsNull() || l.prior.IsNull() || l.planned.ElementsAs(ctx, &now, false).HasError() ||
			l.prior.ElementsAs(ctx, &before, false).HasError() {
			continue
		}
		if federation.SameObjects(now, before, opts) {
			*l.planned = l.prior
		}
	}
}

// setRules reads overrides into the engine's rules of a set.
func setRules(v types.Dynamic) ([]federation.SetOverrideRule, error) {
	raw, err := overridesPlain(v)
	if err != nil || raw == nil {
		return nil, err
	}
	rules, err := plain.SetOverrideRules(raw)
	if err != nil {
		return nil, attributeErr(path.Root("overrides"), err)
	}
	return rules, nil
}

// objectStrategy is rollout_strategy without on_failure, as a federated
// object's attribute, and on_failure.
func objectStrategy(v types.Object) (types.Object, string) {
	objectType := rolloutStrategyAttribute().GetType().(types.ObjectType)
	if v.IsNull() || v.IsUnknown() {
		return types.ObjectNull(objectType.AttrTypes), objectset.OnFailureStop
	}
	attrs := map[string]attr.Value{}
	for name := range objectType.AttrTypes {
		attrs[name] = v.Attributes()[name]
	}
	onFailure := objectset.OnFailureStop
	if s, ok := v.Attributes()["on_failure"].(types.String); ok && s.ValueString() != "" {
		onFailure = s.ValueString()
	}
	out, _ := types.ObjectValue(objectType.AttrTypes, attrs)
	return out, onFailure
}

// setStrategy is the application's rollout_strategy in the pipeline's terms.
func setStrategy(ctx context.Context, v types.Object) (objectset.Strategy, error) {
	value, onFailure := objectStrategy(v)
	strategy, err := strategyOf(ctx, value)
	strategy.OnFailure = onFailure
	return strategy, err
}

// set turns the application's configuration into the pipeline's set of
// its objects. Every problem is reported at the application's attribute it
// comes from.
func (r *federatedApplicationResource) set(ctx context.Context, env *objectset.Env, m *federatedApplicationModel) (*appSet, diag.Diagnostics) {
	var diags diag.Diagnostics
	types, err := env.Types(ctx)
	if err != nil {
		diags.AddError("Cannot read the enabled types", err.Error())
		return nil, diags
	}
	scope := objectset.Scope(types)
	manifests, at, hooks := manifestsOf(ctx, m, scope, &diags)
	rules, err := setRules(m.Overrides)
	if err != nil {
		addInputError(&diags, err)
	}
	base, err := applicationSpec(ctx, m)
	if err != nil {
		addInputError(&diags, err)
	}
	strategy, err := setStrategy(ctx, m.RolloutStrategy)
	if err != nil {
		addInputError(&diags, err)
	}
	if diags.HasError() {
		return nil, diags
	}
	keys := make([]federation.Key, len(manifests))
	for i, mf := range manifests {
		keys[i] = mf.Key
	}
	perObject, err := federation.SelectObjects(rules, keys)
	if err != nil {
		for _, e := range objectset.SplitErrors(err) {
			addRenderError(&diags, objectset.Root("overrides"), e)
		}
		return nil, diags
	}
	adopted := adoptedObjects(ctx, m, keys, &diags)
	target, hasTarget := r.replicasTarget(ctx, m, keys, &diags)
	set := &appSet{where: map[string]*appObject{}, hooks: hooks, scope: scope}
	var objects []*objectset.Object
	for i, mf := range manifests {
		where := &appObject{key: mf.Key, at: at[i], rules: perObject[i].Index}
		ft, ok := objectset.TypeFor(types, mf.Key)
		if !ok {
			diags.AddAttributeError(where.at, "Type not enabled", fmt.Sprintf("%s is a %s, and no kubefed_federated_type enables "+
				"%s in the host or in this run: add one with target_api_version = %q and target_kind = %q, and make the application "+
				"depend on it.", mf.Key.Object(), mf.Key.Kind, mf.Key.Kind, mf.Key.APIVersion(), mf.Key.Kind))
			continue
		}
		spec := base
		spec.TypeName, spec.Template, spec.TemplateAt = ft.Name(), mf.Template, objectset.Root("template")
		spec.Overrides, spec.Key = perObject[i].Rules, mf.Key
		spec.ReplicasPlaceOnly = !hasTarget || target != mf.Key
		spec.Adopt = base.Adopt || adopted[i]
		o, problems := env.NewObject(ctx, spec)
		addObjectProblems(&diags, problems, where)
		if o == nil {
			continue
		}
		objects = append(objects, o)
		set.where[mf.Key.String()] = where
	}
	set.Set = objectset.NewSet(objects, strategy, base)
	return set, diags
}

// adoptedObjects reports, for each object of the set, whether
// adopt_objects lists it; an element that names no object, or several, is
// an error at that element.
func adoptedObjects(ctx context.Context, m *federatedApplicationModel, keys []federation.Key, diags *diag.Diagnostics) []bool {
	var listed []objectRefModel
	if diags.Append(m.AdoptObjects.ElementsAs(ctx, &listed, false)...); diags.HasError() {
		return make([]bool, len(keys))
	}
	refs := make([]federation.ObjectRef, len(listed))
	for i, l := range listed {
		refs[i] = *l.ref()
	}
	adopted, err := federation.SelectListed(refs, keys)
	var wrong *federation.ListedObjectError
	for _, e := range objectset.SplitErrors(err) {
		if errors.As(e, &wrong) {
			diags.AddAttributeError(path.Root("adopt_objects").AtListIndex(wrong.Index), "No such object in the set", wrong.Err.Error())
		}
	}
	return adopted
}

// applicationSpec is what every object of the application shares, in the
// pipeline's terms.
func applicationSpec(ctx context.Context, m *federatedApplicationModel) (objectset.Spec, error) {
	placement, placementSet, err := placementOf(ctx, m.Placement)
	if err != nil {
		return objectset.Spec{}, err
	}
	spec := objectset.Spec{
		Placement: placement, PlacementSet: placementSet,
		Orphan:        m.DeletionPolicy.ValueString() == deletionOrphan,
		DeleteAdopted: m.DeletionPolicy.ValueString() == objectset.DeletionPolicyDeleteAdopted,
		Adopt:         m.Adopt.ValueBool(),
		Force:         m.ForceConflicts.ValueBool(),
		Retain:        m.RetainReplicas.ValueBool(),
		Application:   m.Name.ValueString(),
	}
	if spec.IgnoreFields, err = ignoreFieldsOf(ctx, m.IgnoreFields); err != nil {
		return spec, err
	}
	if spec.Replicas, err = replicasOf(ctx, m.ClusterReplicas); err != nil {
		return spec, err
	}
	spec.Wait, err = waitConfig(ctx, m.Wait)
	return spec, err
}

// replicasTarget is the object cluster_replicas sets the replicas of.
func (r *federatedApplicationResource) replicasTarget(ctx context.Context, m *federatedApplicationModel, keys []federation.Key,
	diags *diag.Diagnostics) (federation.Key, bool) {
	if m.ClusterReplicas.IsNull() {
		return federation.Key{}, false
	}
	var named *federation.ObjectRef
	if !m.ReplicasObject.IsNull() && !m.ReplicasObject.IsUnknown() {
		var ref objectRefModel
		diags.Append(m.ReplicasObject.As(ctx, &ref, basetypes.ObjectAsOptions{})...)
		named = ref.ref()
	}
	k, err := federation.ReplicasTarget(keys, named)
	if err != nil {
		at := path.Root("cluster_replicas")
		if named != nil {
			at = path.Root("replicas_object")
		}
		diags.AddAttributeError(at, "No object for the cluster replicas", err.Error())
	}
	return k, err == nil
}

// addObjectProblems reports the pipeline's problems about one object of
// the application at the application's attributes: the template's at the
// manifest element that holds the object, an override rule's at its index
// in the application's overrides; each names the object.
func addObjectProblems(diags *diag.Diagnostics, problems objectset.Problems, o *appObject) {
	for i := range problems {
		if !strings.Contains(problems[i].Detail, o.key.Object()) {
			problems[i].Detail = o.key.Object() + ": " + problems[i].Detail
		}
	}
	addProblems(diags, problems, func(p objectset.Path) path.Path { return retargetPath(pathOf(p), o) })
}

// retargetPath maps a federated object's attribute path onto the application's.
func retargetPath(p path.Path, o *appObject) path.Path {
	steps := p.Steps()
	if len(steps) == 0 {
		return p
	}
	name, _ := steps[0].(path.PathStepAttributeName)
	switch string(name) {
	case "template", "sensitive_template", "type":
		return o.at
	case "overrides":
		if len(steps) < 2 {
			return p
		}
		i, ok := steps[1].(path.PathStepElementKeyInt)
		if !ok || int(i) >= len(o.rules) {
			return path.Root("overrides")
		}
		out := path.Root("overrides").AtListIndex(o.rules[i])
		for _, s := range steps[2:] {
			switch s := s.(type) {
			case path.PathStepAttributeName:
				out = out.AtName(string(s))
			case path.PathStepElementKeyInt:
				out = out.AtListIndex(int(s))
			case path.PathStepElementKeyString:
				out = out.AtMapKey(string(s))
			}
		}
		return out
	}
	return p
}
