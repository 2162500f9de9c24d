package registry

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		{"the write's namespace is being deleted", terminating("shop"), "shop", true},
		{"wrapped as the registry wraps it, being deleted", fmt.Errorf("writing FederatedConfigMap shop/a in the host: %w", terminating("shop")), "shop", true},
		{"another namespace is being deleted", terminating("other"), "shop", false},
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

// terminating is the 403 the host answers to a create in a namespace being
// deleted.
func terminating(namespace string) error {
	err := apierrors.NewForbidden(schema.GroupResource{Group: "types.kubefed.io", Resource: "federatedconfigmaps"}, "a",
		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", namespace))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type: corev1.NamespaceTerminatingCause, Message: "namespace " + namespace + " is being terminated", Field: "metadata.namespace"})
	return err
}
