package objectset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// Recorded is one object of an application as the host records it, for an
// import: the object's type, where it lives, its template as JSON and its
// record (placement, overrides, deletion policy).
type Recorded struct {
	Type            registry.FederatedType
	Namespace, Name string
	Template        string
	Record          registry.FederatedObject
}

// ApplicationRecords are the host's records labelled with the application
// name, of every enabled type; an error when there is none.
func (e *Env) ApplicationRecords(ctx context.Context, name string) ([]Recorded, error) {
	out, err := e.applicationRecords(ctx, name)
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("the host holds no object labelled %s=%s: nothing to import", registry.ApplicationLabel, name)
	}
	return out, err
}

// applicationRecords lists the records labelled with the application name,
// the types' lists at once.
func (e *Env) applicationRecords(ctx context.Context, name string) ([]Recorded, error) {
	reg, err := e.Registry(ctx)
	if err != nil {
		return nil, err
	}
	enabled, err := reg.Types(ctx)
	if err != nil {
		return nil, err
	}
	byType := make([][]Recorded, len(enabled))
	errs := make([]error, len(enabled))
	overlap.Each(len(enabled), 0, func(i int) { byType[i], errs[i] = recordsOf(ctx, reg, enabled[i], name) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(byType...), nil
}

// recordsOf are the records of type ft labelled with the application name.
func recordsOf(ctx context.Context, reg *registry.Registry, ft registry.FederatedType, name string) ([]Recorded, error) {
	records, err := reg.ApplicationObjects(ctx, ft, name)
	if err != nil {
		return nil, err
	}
	var out []Recorded
	for _, fo := range records {
		r := Recorded{Type: ft, Name: fo.Name, Record: fo}
		if ft.Target.Namespaced {
			r.Namespace = fo.Namespace
		}
		if r.Template, err = TemplateFromHost(ft, r.Namespace, r.Name, fo); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// startStrays lists, while a destroy removes the set, the host's records
// labelled with the application that the set does not name: what an apply
// cut off, or a record the state lost, left behind. Nil for no application.
func (e *Env) startStrays(ctx context.Context, application string) func() ([]Recorded, error) {
	if application == "" {
		return nil
	}
	var found []Recorded
	var err error
	wait := overlap.Start(func() { found, err = e.applicationRecords(ctx, application) })
	return func() ([]Recorded, error) {
		wait()
		return found, err
	}
}

// removeStrays removes from their clusters, and then from the host, the
// records found labelled with the application that the set did not name,
// each from the clusters its record lists, and says which.
func (e *Env) removeStrays(ctx context.Context, set *Set, snapshot *runstate.Snapshot, found []Recorded, problems *Problems) {
	var strays []*Object
	held := map[string]map[string]string{}
	for _, r := range found {
		spec := Spec{TypeName: r.Type.Name(), Template: r.Template, TemplateAt: Root("template"), Orphan: r.Record.Orphan,
			Application: r.Record.Application}
		o, p := e.NewObject(ctx, spec)
		if problems.Append(p...); o == nil || set.Names(o.Key.String()) {
			continue
		}
		strays = append(strays, o)
		held[o.Key.String()] = map[string]string{}
		for cluster := range r.Record.Status {
			held[o.Key.String()][cluster] = ""
		}
	}
	if len(strays) == 0 {
		return
	}
	var names []string
	for _, o := range strays {
		names = append(names, o.Key.Object())
		e.removeFromMembers(ctx, o, snapshot, held[o.Key.String()], nil, problems)
	}
	if problems.HasError() {
		return
	}
	e.RemoveRecords(ctx, strays, problems)
	problems.AddWarning("Removed objects the state did not hold",
		fmt.Sprintf("The host recorded %s as objects of application %q, which the state did not hold (an apply cut off, or "+
			"a state that lost them): they were removed from the clusters their records list, and their records with them.",
			strings.Join(names, ", "), set.Shared.Application))
}
