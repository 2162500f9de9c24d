package objectset

import (
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// The enabled types say a kind's scope first: a custom kind is known only
// through them. Other kinds are Kubernetes' own, or unknown.
func TestScope(t *testing.T) {
	types := []registry.FederatedType{
		registry.NewFederatedType(registry.APIResource{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Namespaced: true}, "", ""),
		registry.NewFederatedType(registry.APIResource{Group: "example.com", Version: "v1", Kind: "Gadget", Plural: "gadgets"}, "", ""),
	}
	scope := Scope(types)
	for _, tt := range []struct {
		group, kind       string
		namespaced, known bool
	}{
		{"example.com", "Widget", true, true},
		{"example.com", "Gadget", false, true},
		{"", "ServiceAccount", true, true},
		{"", "Namespace", false, true},
		{"example.com", "Sprocket", false, false},
	} {
		if namespaced, known := scope(tt.group, tt.kind); namespaced != tt.namespaced || known != tt.known {
			t.Errorf("scope(%q, %q) = %v, %v; want %v, %v", tt.group, tt.kind, namespaced, known, tt.namespaced, tt.known)
		}
	}
}
