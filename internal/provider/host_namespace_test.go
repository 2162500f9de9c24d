package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// hostNamespaceType enables a kind of this test's own, which the host does
// not serve, so that no other test enabling a shared type interferes; its
// objects are placed on no cluster, since only the host matters here.
const hostNamespaceType = `
resource "kubefed_federated_type" "gizmos" {
  target_api_version = "hostns.example.com/v1"
  target_kind        = "HostNamespaceGizmo"
  target_plural      = "hostnamespacegizmos"
  namespaced         = true
}
`

func hostNamespaceObject(resourceName, namespace, name string) string {
	return fmt.Sprintf(`
resource "kubefed_federated_object" %q {
  type      = kubefed_federated_type.gizmos.name
  template  = yamlencode({ apiVersion = "hostns.example.com/v1", kind = "HostNamespaceGizmo", metadata = { name = %q, namespace = %q }, spec = { size = 1 } })
  placement = { clusters = [] }
}
`, resourceName, name, namespace)
}

// The namespace an apply creates in the host for an object is marked as the
// provider's, and goes with the last object in it; a namespace that
// existed before, or that holds something else, stays.
func TestAccFederatedObject_hostNamespaceGoesWithItsLastObject(t *testing.T) {
	acctest.Lab(t)
	host := newHostClients(t)
	ctx := context.Background()
	fresh, busy, existing := uniqueName("hostns-fresh"), uniqueName("hostns-busy"), uniqueName("hostns-kept")
	t.Cleanup(func() {
		for _, ns := range []string{fresh, busy, existing} {
			_ = host.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		}
		_ = host.dynamic.Resource(federatedTypeConfigs).Namespace(federationNamespace).Delete(ctx, "hostnamespacegizmos.hostns.example.com", metav1.DeleteOptions{})
		_ = host.dynamic.Resource(crds).Delete(ctx, "federatedhostnamespacegizmos.types.kubefed.io", metav1.DeleteOptions{})
	})
	namespaceOf := func(name string) (*corev1.Namespace, error) {
		return host.kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	}
	marked := func(name string, want bool) resource.TestCheckFunc {
		return func(*terraform.State) error {
			ns, err := namespaceOf(name)
			if err != nil {
				return fmt.Errorf("host namespace %s: %w", name, err)
			}
			if ns.DeletionTimestamp != nil {
				return fmt.Errorf("host namespace %s is being deleted", name)
			}
			if got := ns.Annotations[registry.CreatedNamespaceAnnotation] == "true"; got != want {
				return fmt.Errorf("host namespace %s marked as the provider's: %v, want %v", name, got, want)
			}
			return nil
		}
	}
	// Three objects share fresh: their destroys run at once, and the last
	// of them must still find the namespace empty.
	all := hostNamespaceType + hostNamespaceObject("fresh", fresh, "a") + hostNamespaceObject("fresh_b", fresh, "b") +
		hostNamespaceObject("fresh_c", fresh, "c") + hostNamespaceObject("busy", busy, "a") + hostNamespaceObject("existing", existing, "a")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if _, err := host.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: existing}},
						metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: acctest.HostProviderConfig(t) + all,
				Check:  resource.ComposeTestCheckFunc(marked(fresh, true), marked(busy, true), marked(existing, false)),
			},
			{
				// Someone puts a ConfigMap in busy; then every object goes.
				PreConfig: func() {
					if _, err := host.kube.CoreV1().ConfigMaps(busy).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}},
						metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: acctest.HostProviderConfig(t) + hostNamespaceType,
				Check:  resource.ComposeTestCheckFunc(checkHostNamespaceGone(t, fresh), marked(busy, true), marked(existing, false)),
			},
			{
				// An object created right after its namespace went waits for
				// the namespace to be gone, and creates it again.
				Config: acctest.HostProviderConfig(t) + hostNamespaceType + hostNamespaceObject("again", fresh, "b"),
				Check:  marked(fresh, true),
			},
		},
		CheckDestroy: resource.ComposeTestCheckFunc(checkHostNamespaceGone(t, fresh), marked(busy, true), marked(existing, false)),
	})
}

// checkHostNamespaceGone checks that the host's namespace is gone, or being
// deleted (the lab has no namespace controller to finish the deletion).
func checkHostNamespaceGone(t *testing.T, name string) resource.TestCheckFunc {
	host := newHostClients(t)
	return func(*terraform.State) error {
		ns, err := host.kube.CoreV1().Namespaces().Get(context.Background(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && ns.DeletionTimestamp != nil) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("host namespace %s is still there", name)
	}
}
