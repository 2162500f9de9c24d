package objectset

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// An object that leaves a set is owed its removal from every cluster that
// holds it until a cluster confirms it: the state keeps it in what each
// cluster holds, whatever the configuration says now. The apply that fails
// to remove it (a member down), the refresh that cannot read it, and a
// rollback that left the configuration's new version in the state all keep
// it there, so the next plan shows the removal and the next apply, or the
// destroy, carries it out. Such an object is worked on as its key names it.

// TypeFor is the enabled type of an object's group and kind.
func TypeFor(types []registry.FederatedType, k federation.Key) (registry.FederatedType, bool) {
	for _, t := range types {
		if t.Target.Group == k.Group && t.Target.Kind == k.Kind {
			return t, true
		}
	}
	return registry.FederatedType{}, false
}

// heldObject is the object of key that clusters hold and the set no longer
// names, with the set's shared settings: what its removal and refresh need.
func (e *Env) heldObject(ctx context.Context, set *Set, key string) (*Object, Problems) {
	var problems Problems
	k, err := federation.ParseKey(key)
	if err != nil {
		problems.AddError("Cannot work on an object the state holds", err.Error())
		return nil, problems
	}
	types, err := e.Types(ctx)
	if err != nil {
		problems.AddError("Cannot read the enabled types", err.Error())
		return nil, problems
	}
	ft, ok := TypeFor(types, k)
	if !ok {
		problems.AddError(fmt.Sprintf("%s stays where it is", k.Object()),
			fmt.Sprintf("The state says clusters hold %s, which the configuration no longer names, and no enabled type "+
				"federates %s %s any more, so it cannot be removed from them. Enable the type again to have it removed, "+
				"or remove it from the clusters by hand.", k.Object(), k.APIVersion(), k.Kind))
		return nil, problems
	}
	metadata := map[string]any{"name": k.Name}
	if k.Namespace != "" {
		metadata["namespace"] = k.Namespace
	}
	template, err := json.Marshal(map[string]any{"apiVersion": k.APIVersion(), "kind": k.Kind, "metadata": metadata})
	if err != nil {
		problems.AddError("Cannot work on an object the state holds", err.Error())
		return nil, problems
	}
	spec := Spec{TypeName: ft.Name(), Template: string(template), TemplateAt: Root("template"), Key: k,
		Orphan: set.Shared.Orphan, Application: set.Shared.Application}
	return e.NewObject(ctx, spec)
}

// Holding is set with the objects the set no longer names that held (by
// object key and cluster) says clusters still hold, each as prior knew it or
// else as its key names it: what a refresh reads and a destroy removes.
func (e *Env) Holding(ctx context.Context, set, prior *Set, held map[string]map[string]string) (*Set, Problems) {
	var problems Problems
	objects := set.Objects
	for _, key := range heldKeys(held) {
		if set.Names(key) || len(held[key]) == 0 {
			continue
		}
		o := prior.Get(key)
		if o == nil {
			var p Problems
			o, p = e.heldObject(ctx, set, key)
			problems.Append(p...)
		}
		if o != nil {
			objects = append(objects, o)
		}
	}
	if len(objects) == len(set.Objects) {
		return set, problems
	}
	return NewSet(objects, set.Strategy, set.Shared), problems
}

// Stuck are the keys held says clusters hold that holding does not name:
// objects that cannot be worked on (their type is no longer enabled). They
// stay where the state says they are, so that nothing owed is forgotten.
func Stuck(holding *Set, held map[string]map[string]string) []string {
	var out []string
	for _, key := range heldKeys(held) {
		if len(held[key]) > 0 && !holding.Names(key) {
			out = append(out, key)
		}
	}
	return out
}
