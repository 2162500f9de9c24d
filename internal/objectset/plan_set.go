package objectset

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// SetPlan is what the plan computes for a set: each object's placement and
// rendering, by key, and what each object's planning reported.
type SetPlan struct {
	Objects map[string]Planned
	// Fresh are the clusters this run registers that the placement picks
	// for a set not read before.
	Fresh []string
	// Problems are, by object key, what planning the object reported.
	Problems map[string]Problems
}

// Placed is every cluster some object is placed on, sorted.
func (p SetPlan) Placed() []string {
	placed := map[string]bool{}
	for _, out := range p.Objects {
		for _, c := range out.Placed {
			placed[c] = true
		}
	}
	return append([]string{}, slices.Sorted(maps.Keys(placed))...)
}

// Rendered is, by object, what each cluster receives.
func (p SetPlan) Rendered() map[string]map[string]string {
	out := map[string]map[string]string{}
	for key, planned := range p.Objects {
		out[key] = planned.Rendered
	}
	return out
}

// DesiredSet places and renders each object of the set, with the
// placement's remarks, which every object shares, reported once, for the
// first object. held is, by object and cluster, what the state says each
// cluster holds.
func (e *Env) DesiredSet(ctx context.Context, set *Set, snapshot *runstate.Snapshot, seen map[string]bool,
	held map[string]map[string]string) SetPlan {
	plan := SetPlan{Objects: map[string]Planned{}, Problems: map[string]Problems{}}
	view := candidatesOf(snapshot, seen)
	for i, o := range set.Objects {
		o.Seen = seen
		out, problems := e.desiredAmong(ctx, o, view, held[o.Key.String()], true)
		var kept Problems
		for _, p := range problems {
			if i == 0 || p.Severity == Error || aboutObject(p.At) {
				kept = append(kept, p)
			}
		}
		plan.Objects[o.Key.String()], plan.Problems[o.Key.String()] = out, kept
		for _, c := range out.Fresh {
			if !slices.Contains(plan.Fresh, c) {
				plan.Fresh = append(plan.Fresh, c)
			}
		}
	}
	return plan
}

// aboutObject reports whether a path is about one object of a set (its
// template, type or an override), not the placement all objects share.
func aboutObject(at Path) bool {
	if at.Empty() {
		return false
	}
	switch at.steps[0].name {
	case "template", "sensitive_template", "type", "overrides":
		return true
	}
	return false
}

// CheckSet dry-runs each changed object on its members, several objects at
// once (a dry run writes nothing, so their order does not matter). An
// object in a namespace the set creates on a cluster is checked at apply
// there: a dry run cannot see a namespace that does not exist yet. The
// problems are by object key.
func (e *Env) CheckSet(ctx context.Context, set *Set, snapshot *runstate.Snapshot, plan SetPlan,
	held map[string]map[string]string, force bool) map[string]Problems {
	created := namespacesCreated(set, plan, held)
	out := map[string]Problems{}
	var mu sync.Mutex
	e.eachObject(set.Objects, func(o *Object, _ *Problems) {
		checked := plan.Objects[o.Key.String()]
		checked.objects = maps.Clone(checked.objects)
		for cluster := range checked.objects {
			if created[cluster][o.Key.Namespace] {
				delete(checked.objects, cluster)
			}
		}
		problems := e.CheckMembers(ctx, o, snapshot, checked, held[o.Key.String()], force)
		mu.Lock()
		defer mu.Unlock()
		out[o.Key.String()] = problems
	})
	return out
}

// namespacesCreated are, by cluster, the namespaces the set's Namespace
// objects bring to a cluster that did not hold them.
func namespacesCreated(set *Set, plan SetPlan, held map[string]map[string]string) map[string]map[string]bool {
	created := map[string]map[string]bool{}
	for _, o := range set.Objects {
		if o.Key.Group != "" || o.Key.Kind != "Namespace" {
			continue
		}
		for cluster := range plan.Objects[o.Key.String()].Rendered {
			if _, had := held[o.Key.String()][cluster]; had {
				continue
			}
			if created[cluster] == nil {
				created[cluster] = map[string]bool{}
			}
			created[cluster][o.Key.Name] = true
		}
	}
	return created
}

// RefuseOwned fails the plan of an object new to the set whose
// Federated<Kind> the host holds for another owner: a federated object or
// another application. The problems are by object key.
func (e *Env) RefuseOwned(ctx context.Context, set *Set, held map[string]map[string]string) (map[string]Problems, Problems) {
	out := map[string]Problems{}
	var problems Problems
	if !e.HostKnown {
		return out, problems
	}
	reg, err := e.Registry(ctx)
	if err != nil {
		problems.AddError("Cannot check the host", err.Error())
		return out, problems
	}
	for _, o := range set.Objects {
		if _, known := held[o.Key.String()]; known {
			continue
		}
		namespace, name := o.HostLocation()
		fo, err := reg.FindFederatedObject(ctx, o.Type, namespace, name)
		if err != nil || fo.Application == o.Application {
			continue
		}
		owner := "a kubefed_federated_object (import it there, or remove it from that configuration first)"
		if fo.Application != "" {
			owner = fmt.Sprintf("application %q", fo.Application)
		}
		var p Problems
		p.AddAttributeError(o.TemplateAt, "Object owned by another resource",
			fmt.Sprintf("The host records %s as %s %s, owned by %s: a set takes over no object another resource manages.",
				o.Key.Object(), o.Type.Federated.Kind, objectLocation(namespace, name), owner))
		out[o.Key.String()] = p
	}
	return out, problems
}

func objectLocation(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
