package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// objectInputs are a federated object's configuration, checked and turned
// into the engine's and propagation's plain terms.
type objectInputs struct {
	objectConfig
	id       string
	ft       registry.FederatedType
	identity federation.Identity
	object   propagation.Object
	renderer *federation.Renderer
	// templateAt is the attribute that holds the template.
	templateAt path.Path
	// secrets are the Secret's values, taken out of every message shown;
	// nil for other kinds.
	secrets []string
	orphan  bool
	force   bool
	// retain leaves spec.replicas to the members that hold the object.
	retain bool
	// waiter says what apply waits for on each cluster it writes to.
	waiter   rollout.Waiter
	strategy strategy
	// seen holds the clusters registered when refresh read the object;
	// nil when it did not.
	seen map[string]bool
	// application is the name of the application the object belongs to.
	application string
	// replicasPlaceOnly makes replicas place the object without setting its
	// replica count: an application's objects other than its workload.
	replicasPlaceOnly bool
}

// inputs checks the configuration against the type it names: enabled in
// the host, or planned in this run.
func (r *federatedObjectResource) inputs(ctx context.Context, m *federatedObjectModel) (*objectInputs, diag.Diagnostics) {
	var diags diag.Diagnostics
	cfg, err := m.config(ctx)
	if err != nil {
		addInputError(&diags, err)
		return nil, diags
	}
	ft, err := r.enabledType(ctx, m.Type.ValueString())
	if errors.Is(err, registry.ErrNotFound) {
		diags.AddAttributeError(path.Root("type"), "Type not enabled", fmt.Sprintf("No FederatedTypeConfig %q in the host, "+
			"and no kubefed_federated_type planned before this object enables it: enable the type with a kubefed_federated_type "+
			"resource and set type to its name (type = kubefed_federated_type.x.name), so that this object is planned after it.",
			m.Type.ValueString()))
		return nil, diags
	}
	if err != nil {
		diags.AddAttributeError(path.Root("type"), "Cannot read the federated type", err.Error())
		return nil, diags
	}
	renderer, err := federation.NewRenderer(federation.RenderSpec{
		Template:     m.template().ValueString(),
		Namespaced:   ft.Target.Namespaced,
		Overrides:    cfg.overrides,
		IgnoreFields: cfg.ignoreFields,
	})
	if err != nil {
		addRenderError(&diags, m.templateAt(), err)
		return nil, diags
	}
	in := &objectInputs{objectConfig: cfg, ft: *ft, renderer: renderer, identity: renderer.Identity(),
		templateAt: m.templateAt(), secrets: renderer.SecretValues(),
		orphan: m.DeletionPolicy.ValueString() == deletionOrphan,
		force:  m.ForceConflicts.ValueBool(), retain: m.RetainReplicas.ValueBool()}
	if err := in.locate(m.Type.ValueString()); err != nil {
		diags.AddAttributeError(m.templateAt(), "Template does not match the type", err.Error())
		return nil, diags
	}
	if err := in.rolloutInputs(ctx, m); err != nil {
		addInputError(&diags, err)
		return nil, diags
	}
	return in, diags
}

// rolloutInputs reads wait and rollout_strategy.
func (in *objectInputs) rolloutInputs(ctx context.Context, m *federatedObjectModel) error {
	cfg, err := waitConfig(ctx, m.Wait)
	if err != nil {
		return err
	}
	waiter, errs := rollout.NewWaiter(in.identity.APIVersion, in.identity.Kind, cfg)
	if len(errs) > 0 {
		return attributeErr(path.Root("wait"), errs[0])
	}
	in.waiter = waiter
	in.strategy, err = strategyOf(ctx, m.RolloutStrategy)
	return err
}

// order is the rollout order of the placed clusters.
func (in *objectInputs) order(placed []string) (rollout.Order, error) {
	if !in.strategy.staged() {
		if len(placed) == 0 {
			return rollout.Order{}, nil
		}
		return rollout.Order{Stages: [][]string{placed}}, nil
	}
	return rollout.Plan(placed, in.strategy.stages, in.strategy.maxConcurrent)
}

// enabledType is the type called name, as this run sees it.
func (r *federatedObjectResource) enabledType(ctx context.Context, name string) (*registry.FederatedType, error) {
	reg, err := r.data.registry(ctx)
	if err != nil {
		return nil, err
	}
	return r.data.federatedType(ctx, reg, name)
}

// locate checks that the template is of the type and derives where the
// object lives and its id.
func (in *objectInputs) locate(typeName string) error {
	gv, err := schema.ParseGroupVersion(in.identity.APIVersion)
	if err != nil || gv.Group != in.ft.Target.Group || in.identity.Kind != in.ft.Target.Kind {
		return fmt.Errorf("the template is a %s %s, but type %q federates %s %s", in.identity.APIVersion, in.identity.Kind,
			typeName, in.ft.Target.APIVersion(), in.ft.Target.Kind)
	}
	in.object = propagation.Object{
		Resource: schema.GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: in.ft.Target.Plural},
		Name:     in.identity.Name,
	}
	in.id = typeName + "/" + in.identity.Name
	if in.ft.Target.Namespaced {
		in.object.Namespace = in.identity.Namespace
		in.id = typeName + "/" + in.identity.Namespace + "/" + in.identity.Name
	}
	return nil
}

// render renders the object for one cluster with its replica count;
// holds says the cluster holds the object already, whose replicas are then
// the member's with retain_replicas.
func (in *objectInputs) render(cluster federation.Cluster, holds bool) (federation.Rendered, error) {
	opts := federation.RenderOptions{RetainReplicas: in.retain && holds}
	if n, ok := in.replicas[cluster.Name]; ok && !in.replicasPlaceOnly {
		opts.Replicas = &n
	}
	return in.renderer.RenderCluster(cluster, opts)
}

// payload is the object to send to a cluster: the planned JSON itself, or,
// for a Secret, whose plan shows digests, the same rendering redone with
// the real values, which must show exactly as planned.
func (in *objectInputs) payload(cluster federation.Cluster, display string, holds bool) ([]byte, error) {
	if in.identity.Kind != "Secret" {
		return []byte(display), nil
	}
	rendered, err := in.render(cluster, holds)
	if err == nil && rendered.Display == display {
		return rendered.Object, nil
	}
	return nil, errors.New("the Secret rendered at apply differs from the plan (the cluster's labels changed since); plan again")
}

// canonical is the engine's canonical, display-safe form of a live object.
func (in *objectInputs) canonical(live map[string]any) (string, error) {
	return in.renderer.Canonical(live)
}

// hostObject is the Federated<Kind> that records the object in the host.
func (in *objectInputs) hostObject(status map[string]string) registry.FederatedObject {
	namespace, name := registry.FederatedObjectLocation(in.ft, in.identity.Namespace, in.identity.Name)
	obj := registry.FederatedObject{
		Namespace:   namespace,
		Name:        name,
		Template:    in.renderer.HostTemplate(),
		Placement:   in.placement,
		Overrides:   in.overrides,
		Orphan:      in.orphan,
		Status:      status,
		Application: in.application,
	}
	if !in.placementSet && in.replicas != nil {
		obj.Placement.Clusters = slices.Sorted(maps.Keys(in.replicas))
	}
	return obj
}

// addInputError reports a conversion error at its attribute.
func addInputError(diags *diag.Diagnostics, err error) {
	var at *attributeError
	if errors.As(err, &at) {
		diags.AddAttributeError(at.path, "Invalid configuration", at.err.Error())
		return
	}
	diags.AddError("Invalid configuration", err.Error())
}

// addRenderError reports an engine error at the attribute that caused it:
// an override, or else the template, at templateAt.
func addRenderError(diags *diag.Diagnostics, templateAt path.Path, err error) {
	var override *federation.OverrideError
	if errors.As(err, &override) {
		at := path.Root("overrides").AtListIndex(override.Rule)
		if override.Patch >= 0 {
			at = at.AtName("patches").AtListIndex(override.Patch)
		}
		diags.AddAttributeError(at, "Invalid override", err.Error())
		return
	}
	diags.AddAttributeError(templateAt, "Invalid template", err.Error())
}
