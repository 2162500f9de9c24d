package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// objects is the object-set pipeline over this run's host, members and
// settings, for the two resources that federate objects.
func (d *providerData) objects() *objectset.Env {
	return &objectset.Env{
		Registry: d.registry,
		Snapshot: d.snapshot,
		Type: func(ctx context.Context, name string) (*registry.FederatedType, error) {
			reg, err := d.registry(ctx)
			if err != nil {
				return nil, err
			}
			return d.federatedType(ctx, reg, name)
		},
		Types: func(ctx context.Context) ([]registry.FederatedType, error) {
			planned := d.run.PlannedTypes()
			if !d.hostKnown() {
				return planned, nil
			}
			host, err := d.hostTypes(ctx)
			return append(planned, host...), err
		},
		HostKnown: d.hostKnown(),
		Members:   d.members,
		Reads:     d.reads,
		Run:       d.run,
		Settings: objectset.Settings{
			FieldManager:        d.settings.FieldManager,
			MaxParallelClusters: d.settings.MaxParallelClusters,
			RequestsPerCluster:  d.settings.Connection.RequestsInFlight,
			RequestTimeout:      d.settings.RequestTimeout,
			DryRun:              d.settings.PlanValidation == PlanValidationServer,
		},
		Log: func(ctx context.Context, msg string, fields map[string]any) { tflog.Info(ctx, msg, fields) },
	}
}

// addProblems reports the pipeline's problems as diagnostics, each at its
// attribute as at maps it (nil: the path as it is).
func addProblems(diags *diag.Diagnostics, problems objectset.Problems, at func(objectset.Path) path.Path) {
	if at == nil {
		at = pathOf
	}
	for _, p := range problems {
		switch {
		case p.At.Empty() && p.Severity == objectset.Error:
			diags.AddError(p.Summary, p.Detail)
		case p.At.Empty():
			diags.AddWarning(p.Summary, p.Detail)
		case p.Severity == objectset.Error:
			target, detail := withinDynamic(at(p.At), p.Detail)
			diags.AddAttributeError(target, p.Summary, detail)
		default:
			target, detail := withinDynamic(at(p.At), p.Detail)
			diags.AddAttributeWarning(target, p.Summary, detail)
		}
	}
}

// withinDynamic reports a problem inside a dynamic attribute (overrides, a
// cluster_selector) at the attribute, the CLIs' diagnostics pointing no
// deeper into a dynamic value, and names the part in the detail.
func withinDynamic(p path.Path, detail string) (path.Path, string) {
	steps := p.Steps()
	var out path.Path
	for i, s := range steps {
		name, ok := s.(path.PathStepAttributeName)
		if !ok {
			break
		}
		if i == 0 {
			out = path.Root(string(name))
		} else {
			out = out.AtName(string(name))
		}
		if (name == "overrides" || name == "cluster_selector" || name == "manifest_objects") && i < len(steps)-1 {
			return out, p.String() + ": " + detail
		}
	}
	return p, detail
}

// pathOf is a pipeline path as the framework's.
func pathOf(p objectset.Path) path.Path {
	var out path.Path
	first := true
	p.Walk(func(name string) {
		if first {
			out, first = path.Root(name), false
			return
		}
		out = out.AtName(name)
	}, func(i int) { out = out.AtListIndex(i) }, func(k string) { out = out.AtMapKey(k) })
	return out
}

// setPath is the framework's path as the pipeline's, for the attributes
// the pipeline names (the template's, in particular).
func setPath(p path.Path) objectset.Path {
	var out objectset.Path
	for i, s := range p.Steps() {
		switch s := s.(type) {
		case path.PathStepAttributeName:
			if i == 0 {
				out = objectset.Root(string(s))
			} else {
				out = out.AtName(string(s))
			}
		case path.PathStepElementKeyInt:
			out = out.AtListIndex(int(s))
		case path.PathStepElementKeyString:
			out = out.AtMapKey(string(s))
		}
	}
	return out
}
