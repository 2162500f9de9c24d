package registry

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestIsNamespaceMissing(t *testing.T) {
	namespaces := schema.GroupResource{Resource: "namespaces"}
	tests := []struct {
		name      string
		err       error
		namespace string
		want      bool
	}{
		{"the write's namespace is missing", apierrors.NewNotFound(namespaces, "shop"), "shop", true},
		{"wrapped as the registry wraps it", fmt.Errorf("writing FederatedConfigMap shop/a in the host: %w", apierrors.NewNotFound(namespaces, "shop")), "shop", true},
		{"another namespace is missing", apierrors.NewNotFound(namespaces, "other"), "shop", false},
		{"the type is missing", apierrors.NewNotFound(schema.GroupResource{Group: "types.kubefed.io", Resource: "federatedconfigmaps"}, "a"), "shop", false},
		{"a cluster-scoped object", apierrors.NewNotFound(namespaces, ""), "", false},
		{"refused for another reason", apierrors.NewForbidden(namespaces, "shop", errors.New("no")), "shop", false},
		{"no error", nil, "shop", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsNamespaceMissing(tt.err, tt.namespace); got != tt.want {
				t.Fatalf("IsNamespaceMissing(%v, %q) = %v, want %v", tt.err, tt.namespace, got, tt.want)
			}
		})
	}
}
