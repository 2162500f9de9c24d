package objectset

import (
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// Scope tells a kind's scope as the enabled types record it, and, for a
// kind no type enables, as Kubernetes serves its own kinds: where a set's
// objects that name no namespace get the default one at plan.
func Scope(types []registry.FederatedType) federation.Scope {
	return func(group, kind string) (bool, bool) {
		if ft, ok := TypeFor(types, federation.Key{Group: group, Kind: kind}); ok {
			return ft.Target.Namespaced, true
		}
		return federation.BuiltinScope(group, kind)
	}
}
