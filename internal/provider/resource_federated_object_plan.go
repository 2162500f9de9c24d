package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

var durationPattern = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`)

// objectInputs are a federated object's configuration, checked and turned
// into the engine's and propagation's plain terms.
type objectInputs struct {
	id           string
	ft           registry.FederatedType
	identity     federation.Identity
	object       propagation.Object
	template     string
	renderer     *federation.Renderer
	placement    federation.Placement
	placementSet bool
	replicas     map[string]int64
	overrides    []federation.OverrideRule
	orphan       bool
	// seen holds the clusters registered when refresh read the object;
	// nil when it did not.
	seen map[string]bool
}

// inputs checks the configuration. The type must be enabled in the host,
// except at plan time when the template names a type the host serves under
// that name: it is then most likely enabled by the same run.
func (r *federatedObjectResource) inputs(ctx context.Context, m *federatedObjectModel, requireType bool) (*objectInputs, diagnostics) {
	var diags diagnostics
	reg, err := r.data.registry(ctx)
	if err != nil {
		diags.AddError("Cannot reach the host", err.Error())
		return nil, diags
	}
	in := &objectInputs{template: m.Template.ValueString(), orphan: m.DeletionPolicy.ValueString() == deletionOrphan}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	_ = yaml.Unmarshal([]byte(in.template), &head)

	typeName := m.Type.ValueString()
	ft, err := r.data.federatedType(ctx, reg, typeName)
	switch {
	case errors.Is(err, registry.ErrNotFound) && !requireType && head.Kind != "":
		target, rerr := reg.ResolveTarget(head.APIVersion, head.Kind, "", nil)
		if rerr != nil || registry.TypeConfigName(target.Plural, target.Group) != typeName {
			diags.AddAttributeError(path.Root("type"), "Type not enabled",
				fmt.Sprintf("No FederatedTypeConfig %q in the host: enable the type with a kubefed_federated_type resource "+
					"and set type to its name (e.g. kubefed_federated_type.x.name).", typeName))
			return nil, diags
		}
		t := registry.NewFederatedType(target, registry.Enabled, registry.Disabled)
		ft = &t
		diags.AddAttributeWarning(path.Root("type"), "Type not enabled yet",
			fmt.Sprintf("No FederatedTypeConfig %q in the host yet. The plan assumes this run enables it "+
				"(a kubefed_federated_type resource this object depends on); otherwise apply fails.", typeName))
	case errors.Is(err, registry.ErrNotFound):
		diags.AddAttributeError(path.Root("type"), "Type not enabled",
			fmt.Sprintf("No FederatedTypeConfig %q in the host: enable the type with a kubefed_federated_type resource.", typeName))
		return nil, diags
	case err != nil:
		diags.AddError("Cannot read the federated type", err.Error())
		return nil, diags
	}
	in.ft = *ft

	rules, ok := overridesFromModel(m.Overrides, &diags)
	if !ok {
		return nil, diags
	}
	in.overrides = rules
	in.renderer, err = federation.NewRenderer(federation.RenderSpec{
		Template:   in.template,
		Namespaced: ft.Target.Namespaced,
		Overrides:  rules,
	})
	if err != nil {
		addRenderError(&diags, err)
		return nil, diags
	}
	in.identity = in.renderer.Identity()
	gv, err := schema.ParseGroupVersion(in.identity.APIVersion)
	if err != nil || gv.Group != ft.Target.Group || in.identity.Kind != ft.Target.Kind {
		diags.AddAttributeError(path.Root("template"), "Template does not match the type",
			fmt.Sprintf("The template is a %s %s, but type %q federates %s %s.", in.identity.APIVersion, in.identity.Kind,
				typeName, ft.Target.APIVersion(), ft.Target.Kind))
		return nil, diags
	}
	in.object = propagation.Object{
		Resource: schema.GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: ft.Target.Plural},
		Name:     in.identity.Name,
	}
	if ft.Target.Namespaced {
		in.object.Namespace = in.identity.Namespace
		in.id = typeName + "/" + in.identity.Namespace + "/" + in.identity.Name
	} else {
		in.id = typeName + "/" + in.identity.Name
	}

	if m.Placement != nil {
		in.placementSet = true
		if !m.Placement.Clusters.IsNull() {
			in.placement.Clusters = []string{}
			diags.Append(m.Placement.Clusters.ElementsAs(ctx, &in.placement.Clusters, false)...)
		}
		in.placement.Selector = selectorFromModel(m.Placement.ClusterSelector)
	}
	if !m.ClusterReplicas.IsNull() {
		in.replicas = map[string]int64{}
		diags.Append(m.ClusterReplicas.ElementsAs(ctx, &in.replicas, false)...)
	}
	return in, diags
}

// planned is what the plan computes for an object.
type planned struct {
	placed   []string
	rendered map[string]string
	// objects are the real objects of the clusters rendered in this call,
	// kept in memory only: a Secret's values never reach the plan.
	objects map[string][]byte
}

// desired places the object and renders it for each placed cluster. While
// planning, a placed cluster that does not answer its health probe is
// frozen: it keeps its entry of prior, or gets none.
func (r *federatedObjectResource) desired(ctx context.Context, in *objectInputs, snapshot *registry.Snapshot, prior map[string]string, planning bool, diags *diagnostics) planned {
	out := planned{rendered: map[string]string{}, objects: map[string][]byte{}}
	var registered []federation.Cluster
	var upcoming []string
	byName := map[string]registry.SnapshotCluster{}
	var late []federation.Cluster
	for _, c := range snapshot.Clusters() {
		if registeredLater(in.seen, c) {
			late = append(late, federation.Cluster{Name: c.Name, Labels: c.Labels})
			continue
		}
		byName[c.Name] = c
		if c.LabelsKnown {
			registered = append(registered, federation.Cluster{Name: c.Name, Labels: c.Labels})
		} else {
			upcoming = append(upcoming, c.Name)
		}
	}

	var placed []string
	var err error
	if in.placementSet {
		placed, err = in.placement.Select(registered, upcoming)
		if err != nil {
			at := path.Root("placement").AtName("clusters")
			var unknown *federation.UnknownClusterError
			if !errors.As(err, &unknown) {
				at = path.Root("placement").AtName("cluster_selector")
			}
			diags.AddAttributeError(at, "Invalid placement", err.Error())
			return out
		}
		if len(late) > 0 && in.placement.Clusters == nil {
			r.warnLate(in, registered, late, diags)
		}
		if in.placement.Clusters == nil && in.placement.Selector != nil && len(placed) == 0 {
			diags.AddAttributeWarning(path.Root("placement").AtName("cluster_selector"), "The cluster selector matches no cluster",
				fmt.Sprintf("%s is placed on no cluster: no registered cluster has the labels the selector asks for.", in.object))
		}
	}
	if in.replicas != nil {
		keys, err := federation.Placement{Clusters: slices.Sorted(maps.Keys(in.replicas))}.Select(registered, upcoming)
		if err != nil {
			diags.AddAttributeError(path.Root("cluster_replicas"), "Invalid cluster_replicas", err.Error())
			return out
		}
		if in.placementSet {
			keys = slices.DeleteFunc(keys, func(c string) bool { return !slices.Contains(placed, c) })
		}
		placed = keys
	}
	if placed == nil {
		placed = []string{}
	}
	if in.ft.Propagation == registry.Disabled {
		// The type's propagation is off: the object stays in the host and
		// no member is touched, neither to push nor to remove.
		out.placed = slices.Sorted(maps.Keys(prior))
		maps.Copy(out.rendered, prior)
		diags.AddAttributeWarning(path.Root("type"), "Propagation of the type is disabled",
			fmt.Sprintf("Type %q has propagation = \"Disabled\": %s is kept in the host, and nothing is pushed to or removed from "+
				"member clusters until propagation is enabled again.", in.ft.Name(), in.object))
		return out
	}
	out.placed = placed

	warned := false
	for _, name := range placed {
		c := byName[name]
		if planning && !c.Planned {
			if health, ok := r.data.recordedHealth(ctx, name); ok && !health.Ready {
				if was, ok := prior[name]; ok {
					out.rendered[name] = was
				}
				diags.AddWarning(fmt.Sprintf("Cluster %q is not ready: nothing is planned for it", name),
					fmt.Sprintf("%s keeps what cluster %q holds (%s: %s). When the cluster is back, the next plan shows the pending change.",
						in.object, name, health.Reason, health.Message))
				continue
			}
		}
		var replicas *int64
		if n, ok := in.replicas[name]; ok {
			replicas = &n
		}
		rendered, err := in.renderer.Render(federation.Cluster{Name: name, Labels: c.Labels}, replicas)
		if err != nil {
			addRenderError(diags, err)
			return out
		}
		if !warned {
			for _, w := range rendered.Warnings {
				diags.AddAttributeWarning(path.Root("template"), "Template field dropped", w)
			}
			warned = true
		}
		out.rendered[name] = rendered.Display
		out.objects[name] = rendered.Object
	}
	return out
}

// warnLate names the clusters the placement would select that were
// registered after the object was read, and so are left to the next plan.
func (r *federatedObjectResource) warnLate(in *objectInputs, registered, late []federation.Cluster, diags *diagnostics) {
	all, err := in.placement.Select(append(slices.Clone(registered), late...), nil)
	if err != nil {
		return
	}
	for _, c := range late {
		if slices.Contains(all, c.Name) {
			diags.AddWarning(fmt.Sprintf("Cluster %q was registered after the object was last read", c.Name),
				fmt.Sprintf("%s matches cluster %q, which was registered after the object was last read (refreshed): the plan "+
					"leaves it out, so that the apply does what the plan showed. The next plan that refreshes the object places it "+
					"there.", in.object, c.Name))
		}
	}
}

// ModifyPlan computes, from the registry snapshot and the engine, where the
// object goes and what each cluster receives, and validates each changed
// object with a server-side dry run on its member.
func (r *federatedObjectResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.data == nil || req.Plan.Raw.IsNull() {
		return
	}
	unknown := func(summary, detail string) {
		resp.Diagnostics.AddWarning(summary, detail)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("placed_clusters"), types.SetUnknown(types.StringType))...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("rendered"), types.MapUnknown(types.StringType))...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("cluster_status"), types.MapUnknown(clusterStatusType))...)
	}
	if !req.Config.Raw.IsFullyKnown() {
		unknown("Placement and rendered objects known at apply",
			"An input of the federated object (template, placement, overrides or cluster_replicas) is not known until apply, "+
				"so the clusters it lands on and the objects they receive are computed then.")
		return
	}
	if !r.data.hostKnown() {
		unknown("Placement and rendered objects known at apply",
			"The host cluster cannot be contacted before apply ("+r.data.hostUnknownReason+"), so the registered clusters are not known yet.")
		return
	}
	var plan federatedObjectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var prior *federatedObjectModel
	if !req.State.Raw.IsNull() {
		prior = &federatedObjectModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, prior)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	in, diags := r.inputs(ctx, &plan, false)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	in.seen = seenAtRead(ctx, req.Private)
	snapshot, err := r.data.clusterSnapshot(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the registered clusters", err.Error())
		return
	}
	priorRendered := map[string]string{}
	if prior != nil {
		priorRendered = mapStrings(prior.Rendered)
	}
	out := r.desired(ctx, in, snapshot, priorRendered, true, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if in.placementSet {
		r.data.order.planned(in.id, in.placement)
	}
	if prior != nil && !prior.ID.IsNull() && prior.ID.ValueString() != in.id {
		// Another object: the old one must go from every cluster.
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("template"))
	}
	plan.ID = types.StringValue(in.id)
	plan.PlacedClusters = stringSet(out.placed)
	plan.Rendered = stringMap(out.rendered)
	if prior != nil && maps.Equal(priorRendered, out.rendered) && slices.Equal(setStrings(prior.PlacedClusters), out.placed) &&
		!prior.ClusterStatus.IsUnknown() {
		plan.ClusterStatus = prior.ClusterStatus
	} else {
		plan.ClusterStatus = types.MapUnknown(clusterStatusType)
	}
	if r.data.settings.PlanValidation == PlanValidationServer {
		r.dryRun(ctx, in, snapshot, out, priorRendered, plan.ForceConflicts.ValueBool(), &resp.Diagnostics)
	}
	if prior == nil {
		resp.Diagnostics.Append(noteReplacement(ctx, resp.Private, in.id, out.placed)...)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// dryRun sends each changed object to its member as a server-side dry-run
// apply. Rejections of the object itself are errors; a member that cannot
// run the dry run (unreachable, forbidden, a namespace or CRD created later
// in the run) is a warning.
func (r *federatedObjectResource) dryRun(ctx context.Context, in *objectInputs, snapshot *registry.Snapshot, out planned, prior map[string]string, force bool, diags *diagnostics) {
	var members []propagation.Member
	for _, name := range slices.Sorted(maps.Keys(out.objects)) {
		if prior[name] == out.rendered[name] {
			continue
		}
		m, err := r.member(snapshot, name)
		if err != nil {
			continue
		}
		members = append(members, m)
	}
	opts := r.options(force, r.data.settings.RequestTimeout)
	results := propagation.FanOut(ctx, members, opts, func(ctx context.Context, m propagation.Member) propagation.Result {
		return propagation.DryRun(ctx, m, in.object, out.objects[m.Name], opts)
	})
	for _, res := range results {
		addServerWarnings(diags, in.object, res)
		if res.Err == nil {
			continue
		}
		var status apierrors.APIStatus
		rejected := errors.As(res.Err, &status) &&
			(apierrors.IsInvalid(res.Err) || apierrors.IsBadRequest(res.Err) || apierrors.IsConflict(res.Err))
		if rejected {
			diags.AddAttributeError(path.Root("template"), fmt.Sprintf("Cluster %q rejects the object", res.Cluster),
				fmt.Sprintf("A server-side dry run of %s on cluster %q failed: %v", in.object, res.Cluster, res.Err))
			continue
		}
		diags.AddWarning(fmt.Sprintf("Cluster %q could not validate the object", res.Cluster),
			fmt.Sprintf("The server-side dry run was not possible, so the object is only checked at apply: %v", res.Err))
	}
}

// payload is the object to send to cluster: the planned JSON itself, or,
// for a Secret, whose plan shows digests, the same rendering redone with
// the real values, which must show exactly as planned.
func (in *objectInputs) payload(snapshot *registry.Snapshot, cluster, display string) ([]byte, error) {
	c, _ := snapshot.Cluster(cluster)
	var replicas *int64
	if n, ok := in.replicas[cluster]; ok {
		replicas = &n
	}
	rendered, err := in.renderer.Render(federation.Cluster{Name: cluster, Labels: c.Labels}, replicas)
	if err == nil && rendered.Display == display {
		return rendered.Object, nil
	}
	if in.identity.Kind != "Secret" {
		return []byte(display), nil
	}
	return nil, errors.New("the Secret rendered at apply differs from the plan (the cluster's labels changed since); plan again")
}

// canonical is the engine's canonical, display-safe form of a live object.
func (in *objectInputs) canonical(live map[string]any) (string, error) {
	raw, err := json.Marshal(live)
	if err != nil {
		return "", err
	}
	rendered, err := federation.Render(federation.RenderSpec{Template: string(raw), Namespaced: in.ft.Target.Namespaced}, federation.Cluster{}, nil)
	if err != nil {
		return "", err
	}
	return rendered.Display, nil
}

// hostObject is the Federated<Kind> that records the object in the host.
func (in *objectInputs) hostObject(status map[string]string) registry.FederatedObject {
	namespace, name := registry.FederatedObjectLocation(in.ft, in.identity.Namespace, in.identity.Name)
	obj := registry.FederatedObject{
		Namespace: namespace,
		Name:      name,
		Template:  kubeFedTemplate(in.template),
		Placement: in.placement,
		Overrides: in.overrides,
		Orphan:    in.orphan,
		Status:    status,
	}
	if !in.placementSet && in.replicas != nil {
		obj.Placement.Clusters = slices.Sorted(maps.Keys(in.replicas))
	}
	return obj
}

// kubeFedTemplate is the template as KubeFed stores it: without apiVersion,
// kind, name and namespace, which come from the type and the federated
// object. Numbers stay as written.
func kubeFedTemplate(text string) map[string]any {
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil {
		return nil
	}
	delete(obj, "apiVersion")
	delete(obj, "kind")
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "name")
		delete(meta, "namespace")
		if len(meta) == 0 {
			delete(obj, "metadata")
		}
	}
	return obj
}

// importFromHost fills the configuration of an imported object from its
// Federated<Kind>, whether the provider or KubeFed wrote it. It returns
// false when the object does not exist.
func (r *federatedObjectResource) importFromHost(ctx context.Context, reg *registry.Registry, m *federatedObjectModel, diags *diagnostics) bool {
	parts := strings.Split(m.ID.ValueString(), "/")
	typeName, namespace, name := parts[0], "", parts[len(parts)-1]
	if len(parts) == 3 {
		namespace = parts[1]
	}
	ft, err := r.data.federatedType(ctx, reg, typeName)
	if err != nil {
		diags.AddAttributeError(path.Root("type"), "Cannot import the federated object", err.Error())
		return false
	}
	hostNamespace, hostName := registry.FederatedObjectLocation(*ft, namespace, name)
	fo, err := reg.GetFederatedObject(ctx, *ft, hostNamespace, hostName)
	if errors.Is(err, registry.ErrNotFound) {
		diags.AddError("Cannot import the federated object", err.Error())
		return false
	}
	if err != nil {
		diags.AddError("Cannot import the federated object", err.Error())
		return false
	}
	template := maps.Clone(fo.Template)
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
		diags.AddError("Cannot import the federated object", err.Error())
		return false
	}
	m.Template = templateValue{StringValue: types.StringValue(string(raw))}
	if fo.Placement.Clusters != nil || fo.Placement.Selector != nil {
		m.Placement = &placementModel{Clusters: types.ListNull(types.StringType), ClusterSelector: selectorToModel(fo.Placement.Selector)}
		if fo.Placement.Clusters != nil {
			m.Placement.Clusters, _ = types.ListValueFrom(ctx, types.StringType, fo.Placement.Clusters)
		}
	}
	for _, rule := range fo.Overrides {
		o := overrideModel{Cluster: types.StringNull(), ClusterSelector: selectorToModel(rule.Selector), Patches: []patchModel{}}
		if rule.Cluster != "" {
			o.Cluster = types.StringValue(rule.Cluster)
		}
		for _, p := range rule.Patches {
			o.Patches = append(o.Patches, patchModel{Op: nullIfEmpty(p.Op), Path: types.StringValue(p.Path), Value: nullIfEmpty(p.Value)})
		}
		m.Overrides = append(m.Overrides, o)
	}
	m.ClusterReplicas = types.MapNull(types.Int64Type)
	if fo.Orphan {
		m.DeletionPolicy = types.StringValue(deletionOrphan)
	}
	m.Rendered = types.MapNull(types.StringType)
	m.ClusterStatus = types.MapNull(clusterStatusType)
	return true
}

func overridesFromModel(models []overrideModel, diags *diagnostics) ([]federation.OverrideRule, bool) {
	rules := make([]federation.OverrideRule, 0, len(models))
	for _, o := range models {
		rule := federation.OverrideRule{Cluster: o.Cluster.ValueString(), Selector: selectorFromModel(o.ClusterSelector)}
		for _, p := range o.Patches {
			rule.Patches = append(rule.Patches, federation.Patch{Op: p.Op.ValueString(), Path: p.Path.ValueString(), Value: p.Value.ValueString()})
		}
		rules = append(rules, rule)
	}
	if err := federation.ValidateOverrides(rules); err != nil {
		addRenderError(diags, err)
		return nil, false
	}
	if len(rules) == 0 {
		return nil, true
	}
	return rules, true
}

// addRenderError reports an engine error at the attribute that caused it.
func addRenderError(diags *diagnostics, err error) {
	var override *federation.OverrideError
	if errors.As(err, &override) {
		at := path.Root("overrides").AtListIndex(override.Rule)
		if override.Patch >= 0 {
			at = at.AtName("patches").AtListIndex(override.Patch)
		}
		diags.AddAttributeError(at, "Invalid override", err.Error())
		return
	}
	diags.AddAttributeError(path.Root("template"), "Invalid template", err.Error())
}

func selectorFromModel(m *clusterSelectorModel) *federation.Selector {
	if m == nil {
		return nil
	}
	s := &federation.Selector{MatchLabels: m.MatchLabels}
	for _, e := range m.MatchExpressions {
		s.MatchExpressions = append(s.MatchExpressions, federation.Requirement{
			Key: e.Key.ValueString(), Operator: e.Operator.ValueString(), Values: e.Values,
		})
	}
	return s
}

func selectorToModel(s *federation.Selector) *clusterSelectorModel {
	if s == nil {
		return nil
	}
	m := &clusterSelectorModel{}
	if len(s.MatchLabels) > 0 {
		m.MatchLabels = s.MatchLabels
	}
	for _, e := range s.MatchExpressions {
		m.MatchExpressions = append(m.MatchExpressions, matchExpressionModel{
			Key: types.StringValue(e.Key), Operator: types.StringValue(e.Operator), Values: e.Values,
		})
	}
	return m
}

// clusterStatus is one entry of cluster_status.
type clusterStatus struct {
	Status  string `tfsdk:"status"`
	Message string `tfsdk:"message"`
}

func statusMap(v types.Map) map[string]clusterStatus {
	out := map[string]clusterStatus{}
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	_ = v.ElementsAs(context.Background(), &out, false)
	return out
}

func statusValue(status map[string]clusterStatus, diags *diagnostics) types.Map {
	v, d := types.MapValueFrom(context.Background(), clusterStatusType, status)
	diags.Append(d...)
	return v
}

func stringSet(values []string) types.Set {
	elems := make([]attr.Value, 0, len(values))
	for _, v := range values {
		elems = append(elems, types.StringValue(v))
	}
	return types.SetValueMust(types.StringType, elems)
}

func stringMap(values map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(values))
	for k, v := range values {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

func setStrings(v types.Set) []string {
	var out []string
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	_ = v.ElementsAs(context.Background(), &out, false)
	slices.Sort(out)
	return out
}

func mapStrings(v types.Map) map[string]string {
	out := map[string]string{}
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	_ = v.ElementsAs(context.Background(), &out, false)
	return out
}

func nullIfEmpty(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func decodeObject(text string) (map[string]any, error) {
	var obj map[string]any
	err := json.Unmarshal([]byte(text), &obj)
	return obj, err
}

// addServerWarnings shows what a member's API server warned about the
// object, once per cluster.
func addServerWarnings(diags *diagnostics, object propagation.Object, res propagation.Result) {
	if len(res.Warnings) == 0 {
		return
	}
	diags.AddWarning(fmt.Sprintf("Cluster %q warns about %s", res.Cluster, object),
		"The cluster's API server answered with these warnings:\n- "+strings.Join(res.Warnings, "\n- "))
}
