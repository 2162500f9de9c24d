package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// federatedApplicationModel is kubefed_federated_application.
type federatedApplicationModel struct {
	ID                 types.String   `tfsdk:"id"`
	Name               types.String   `tfsdk:"name"`
	Manifests          types.List     `tfsdk:"manifests"`
	SensitiveManifests types.List     `tfsdk:"sensitive_manifests"`
	Placement          types.Object   `tfsdk:"placement"`
	Overrides          types.List     `tfsdk:"overrides"`
	ReplicasObject     types.Object   `tfsdk:"replicas_object"`
	ClusterReplicas    types.Map      `tfsdk:"cluster_replicas"`
	DeletionPolicy     types.String   `tfsdk:"deletion_policy"`
	ForceConflicts     types.Bool     `tfsdk:"force_conflicts"`
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

// appObject is one object of an application: the federated object it is
// planned, written and read as, and where the configuration holds it.
type appObject struct {
	key federation.Key
	// at is the element of manifests or sensitive_manifests that holds it.
	at    path.Path
	model federatedObjectModel
	in    *objectInputs
	// rules are, for each of the object's override rules, its index in
	// the application's overrides.
	rules []int
}

// appSet is an application's objects, in the order a cluster receives them.
type appSet struct {
	objects   []*appObject
	byKey     map[string]*appObject
	onFailure string
}

// objectsAtOnce bounds how many objects of a set are worked on at once
// where their work on the clusters is independent: as many as Terraform
// works on separate resources at once by default.
const objectsAtOnce = 10

// eachObject runs work for each object, objectsAtOnce at a time, and adds
// what each reports to diags in the objects' order. Each object's requests
// to the clusters take a round trip, so one after another they would add
// up to a round trip per object.
func eachObject(objects []*appObject, diags *diag.Diagnostics, work func(o *appObject, diags *diag.Diagnostics)) {
	each := make([]diag.Diagnostics, len(objects))
	slots := make(chan struct{}, objectsAtOnce)
	var wg sync.WaitGroup
	for i, o := range objects {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			work(o, &each[i])
		})
	}
	wg.Wait()
	for _, d := range each {
		diags.Append(d...)
	}
}

// tiers splits objects sorted by tier into one run of objects per tier,
// in order.
func tiers(objects []*appObject) [][]*appObject {
	var out [][]*appObject
	for i, o := range objects {
		if i == 0 || federation.Tier(o.key) != federation.Tier(objects[i-1].key) {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], o)
	}
	return out
}

// keys are the set's object keys, in order.
func (s *appSet) keys() []string {
	out := make([]string, len(s.objects))
	for i, o := range s.objects {
		out[i] = o.key.String()
	}
	return out
}

// manifestsOf parses both manifest lists; errors are reported at their element.
func manifestsOf(ctx context.Context, m *federatedApplicationModel, diags *diag.Diagnostics) ([]federation.Manifest, []path.Path) {
	var all []federation.Manifest
	var at []path.Path
	seen := map[string]path.Path{}
	for _, list := range []struct {
		name  string
		value types.List
	}{{"manifests", m.Manifests}, {"sensitive_manifests", m.SensitiveManifests}} {
		var elements []string
		if list.value.IsNull() || list.value.IsUnknown() {
			continue
		}
		diags.Append(list.value.ElementsAs(ctx, &elements, false)...)
		found, err := federation.ParseManifests(elements)
		for _, e := range splitErrors(err) {
			var me *federation.ManifestError
			where := path.Root(list.name)
			if errors.As(e, &me) {
				where = where.AtListIndex(me.Element)
			}
			diags.AddAttributeError(where, "Invalid manifest", fmt.Sprintf("%s: %v", where, e))
		}
		for _, mf := range found {
			where := path.Root(list.name).AtListIndex(mf.Element)
			unversioned := mf.Key
			unversioned.Version = ""
			if first, dup := seen[unversioned.String()]; dup {
				diags.AddAttributeError(where, "Object given twice",
					fmt.Sprintf("%s is in %s and in %s; a set holds each object once.", mf.Key.Object(), first, where))
				continue
			}
			seen[unversioned.String()] = where
			if list.name == "manifests" && mf.Key.Group == "" && mf.Key.Kind == "Secret" {
				diags.AddAttributeError(where, "Secret given in manifests",
					fmt.Sprintf("%s would show its values in the plan: put it in sensitive_manifests.", mf.Key.Object()))
			}
			all, at = append(all, mf), append(at, where)
		}
	}
	return all, at
}

// splitErrors is the errors errors.Join put together.
func splitErrors(err error) []error {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		return joined.Unwrap()
	}
	return []error{err}
}

// setRules reads overrides into the engine's rules of a set.
func setRules(ctx context.Context, v types.List) ([]federation.SetOverrideRule, error) {
	if v.IsNull() || v.IsUnknown() {
		return nil, nil
	}
	var plain []attr.Value
	var refs []*federation.ObjectRef
	for _, e := range v.Elements() {
		obj, ok := e.(types.Object)
		if !ok {
			return nil, attributeErr(path.Root("overrides"), errors.New("not an object"))
		}
		attrs := obj.Attributes()
		var ref *federation.ObjectRef
		if o, ok := attrs["object"].(types.Object); ok && !o.IsNull() {
			var m objectRefModel
			if d := o.As(ctx, &m, basetypes.ObjectAsOptions{}); d.HasError() {
				return nil, attributeErr(path.Root("overrides"), diagError(d))
			}
			ref = m.ref()
		}
		rest := map[string]attr.Value{}
		for name := range overrideType.AttrTypes {
			rest[name] = attrs[name]
		}
		value, d := types.ObjectValue(overrideType.AttrTypes, rest)
		if d.HasError() {
			return nil, attributeErr(path.Root("overrides"), diagError(d))
		}
		plain, refs = append(plain, value), append(refs, ref)
	}
	list, d := types.ListValue(overrideType, plain)
	if d.HasError() {
		return nil, attributeErr(path.Root("overrides"), diagError(d))
	}
	rules, err := overrideRulesOf(ctx, list)
	if err != nil {
		return nil, err
	}
	out := make([]federation.SetOverrideRule, len(rules))
	for i, rule := range rules {
		out[i] = federation.SetOverrideRule{OverrideRule: rule, Object: refs[i]}
	}
	return out, nil
}

// objectStrategy is rollout_strategy as a federated object's attribute:
// without on_failure, which is the set's.
func objectStrategy(v types.Object) (types.Object, string) {
	objectType := rolloutStrategyAttribute().GetType().(types.ObjectType)
	if v.IsNull() || v.IsUnknown() {
		return types.ObjectNull(objectType.AttrTypes), onFailureStop
	}
	attrs := map[string]attr.Value{}
	for name := range objectType.AttrTypes {
		attrs[name] = v.Attributes()[name]
	}
	onFailure := onFailureStop
	if s, ok := v.Attributes()["on_failure"].(types.String); ok && s.ValueString() != "" {
		onFailure = s.ValueString()
	}
	out, _ := types.ObjectValue(objectType.AttrTypes, attrs)
	return out, onFailure
}

// set turns the application's configuration into its objects, each with
// the inputs of a federated object. Every problem is reported at the
// application's attribute it comes from.
func (r *federatedApplicationResource) set(ctx context.Context, m *federatedApplicationModel) (*appSet, diag.Diagnostics) {
	var diags diag.Diagnostics
	manifests, at := manifestsOf(ctx, m, &diags)
	rules, err := setRules(ctx, m.Overrides)
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
		for _, e := range splitErrors(err) {
			addRenderError(&diags, path.Root("overrides"), e)
		}
		return nil, diags
	}
	target, hasTarget := r.replicasTarget(ctx, m, keys, &diags)
	types, diagsTypes := r.enabledTypes(ctx)
	if diags.Append(diagsTypes...); diags.HasError() {
		return nil, diags
	}
	strategyValue, onFailure := objectStrategy(m.RolloutStrategy)
	set := &appSet{byKey: map[string]*appObject{}, onFailure: onFailure}
	for i, mf := range manifests {
		o := &appObject{key: mf.Key, at: at[i], rules: perObject[i].Index}
		ft, ok := typeFor(types, mf.Key)
		if !ok {
			diags.AddAttributeError(o.at, "Type not enabled", fmt.Sprintf("%s is a %s, and no kubefed_federated_type enables "+
				"%s in the host or in this run: add one with target_api_version = %q and target_kind = %q, and make the application "+
				"depend on it.", mf.Key.Object(), mf.Key.Kind, mf.Key.Kind, mf.Key.APIVersion(), mf.Key.Kind))
			continue
		}
		o.model = objectModelFor(ctx, m, ft.Name(), mf, at[i], perObject[i].Rules, strategyValue, &diags)
		in, d := r.objects.inputs(ctx, &o.model)
		diags.Append(retarget(d, o)...)
		if in == nil {
			continue
		}
		in.application = m.Name.ValueString()
		in.replicasPlaceOnly = !hasTarget || target != mf.Key
		o.in = in
		set.objects = append(set.objects, o)
		set.byKey[mf.Key.String()] = o
	}
	slices.SortStableFunc(set.objects, func(a, b *appObject) int {
		return federation.Tier(a.key) - federation.Tier(b.key)
	})
	return set, diags
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

// enabledTypes are the types the host enables and those this run plans.
func (r *federatedApplicationResource) enabledTypes(ctx context.Context) ([]registry.FederatedType, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := r.objects.data.run.PlannedTypes()
	if !r.objects.data.hostKnown() {
		return out, diags
	}
	host, err := r.objects.data.hostTypes(ctx)
	out = append(out, host...)
	if err != nil {
		diags.AddError("Cannot read the enabled types", err.Error())
	}
	return out, diags
}

// typeFor is the enabled type of an object's group and kind.
func typeFor(types []registry.FederatedType, k federation.Key) (registry.FederatedType, bool) {
	for _, t := range types {
		if t.Target.Group == k.Group && t.Target.Kind == k.Kind {
			return t, true
		}
	}
	return registry.FederatedType{}, false
}

// objectModelFor is the federated object an application's object is
// planned as: its manifest, the application's placement and settings, and
// its own override rules.
func objectModelFor(ctx context.Context, m *federatedApplicationModel, typeName string, mf federation.Manifest, at path.Path,
	rules []federation.OverrideRule, strategy types.Object, diags *diag.Diagnostics) federatedObjectModel {
	overrides, err := overridesValue(ctx, rules)
	if err != nil {
		diags.AddAttributeError(path.Root("overrides"), "Invalid overrides", err.Error())
	}
	o := federatedObjectModel{
		Type:            types.StringValue(typeName),
		Placement:       m.Placement,
		Overrides:       overrides,
		ClusterReplicas: m.ClusterReplicas,
		DeletionPolicy:  m.DeletionPolicy,
		ForceConflicts:  m.ForceConflicts,
		RetainReplicas:  m.RetainReplicas,
		IgnoreFields:    m.IgnoreFields,
		Wait:            m.Wait,
		RolloutStrategy: strategy,
	}
	template := templateValue{StringValue: types.StringValue(mf.Template)}
	o.setTemplate(template, strings.HasPrefix(at.String(), "sensitive_manifests"))
	return o
}

// retarget moves diagnostics about a federated object's attributes to the
// application's: the template to the manifest element, an override rule to
// its index in the application's overrides; each names the object.
func retarget(diags diag.Diagnostics, o *appObject) diag.Diagnostics {
	var out diag.Diagnostics
	for _, d := range diags {
		detail := d.Detail()
		if !strings.Contains(detail, o.key.Object()) {
			detail = o.key.Object() + ": " + detail
		}
		withPath, ok := d.(diag.DiagnosticWithPath)
		if !ok {
			out.Append(plainDiagnostic(d.Severity(), d.Summary(), detail))
			continue
		}
		at := retargetPath(withPath.Path(), o)
		if d.Severity() == diag.SeverityError {
			out.AddAttributeError(at, d.Summary(), detail)
		} else {
			out.AddAttributeWarning(at, d.Summary(), detail)
		}
	}
	return out
}

func plainDiagnostic(severity diag.Severity, summary, detail string) diag.Diagnostic {
	if severity == diag.SeverityError {
		return diag.NewErrorDiagnostic(summary, detail)
	}
	return diag.NewWarningDiagnostic(summary, detail)
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
