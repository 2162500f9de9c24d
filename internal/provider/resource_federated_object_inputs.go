package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
)

// object reads a federated object's configuration into the pipeline: the
// object, checked against the type it names, and the set of one it is
// rolled out as. Problems are reported at their attribute.
func (r *federatedObjectResource) object(ctx context.Context, env *objectset.Env, m *federatedObjectModel,
	diags *diag.Diagnostics) (*objectset.Object, *objectset.Set) {
	spec, strategy, err := objectSpec(ctx, m)
	if err != nil {
		addInputError(diags, err)
		return nil, nil
	}
	o, problems := env.NewObject(ctx, spec)
	addProblems(diags, problems, nil)
	if o == nil {
		return nil, nil
	}
	return o, objectset.NewSet([]*objectset.Object{o}, strategy, spec)
}

// objectSpec is the configuration in the pipeline's terms, once every part
// of it is known. Errors name the attribute they are about.
func objectSpec(ctx context.Context, m *federatedObjectModel) (objectset.Spec, objectset.Strategy, error) {
	cfg, err := m.config(ctx)
	if err != nil {
		return objectset.Spec{}, objectset.Strategy{}, err
	}
	wait, err := waitConfig(ctx, m.Wait)
	if err != nil {
		return objectset.Spec{}, objectset.Strategy{}, err
	}
	strategy, err := strategyOf(ctx, m.RolloutStrategy)
	if err != nil {
		return objectset.Spec{}, objectset.Strategy{}, err
	}
	return objectset.Spec{
		TypeName:      m.Type.ValueString(),
		Template:      m.template().ValueString(),
		TemplateAt:    setPath(m.templateAt()),
		Placement:     cfg.placement,
		PlacementSet:  cfg.placementSet,
		Overrides:     cfg.overrides,
		Replicas:      cfg.replicas,
		IgnoreFields:  cfg.ignoreFields,
		Orphan:        m.DeletionPolicy.ValueString() == deletionOrphan,
		DeleteAdopted: m.DeletionPolicy.ValueString() == objectset.DeletionPolicyDeleteAdopted,
		Adopt:         m.Adopt.ValueBool(),
		Force:         m.ForceConflicts.ValueBool(),
		Retain:        m.RetainReplicas.ValueBool(),
		Wait:          wait,
	}, strategy, nil
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
func addRenderError(diags *diag.Diagnostics, templateAt objectset.Path, err error) {
	var problems objectset.Problems
	objectset.AddRenderError(&problems, templateAt, err)
	addProblems(diags, problems, nil)
}
