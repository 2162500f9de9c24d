package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// holdFinalizer keeps a namespace of the test Terminating until the test
// lets it go.
const holdFinalizer = "kubefed-acctest.example.com/hold"

// A member refuses objects in a namespace that is being deleted with a
// 403: the apply says the namespace is going away and to wait, not that
// the cluster's identity lacks a role.
func TestAccFederatedObject_memberNamespaceBeingDeleted(t *testing.T) {
	lab := acctest.Lab(t)
	ctx := context.Background()
	berlin, err := kubernetes.NewForConfig(lab.Cluster("berlin").RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ns, cluster := uniqueName("terminating"), "term-berlin"
	host := newHostClients(t)
	t.Cleanup(func() {
		release := []byte(`{"metadata":{"finalizers":null}}`)
		_, _ = berlin.CoreV1().Namespaces().Patch(ctx, ns, k8stypes.MergePatchType, release, metav1.PatchOptions{})
		deleteClusters(t, host, cluster)
		_ = host.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		_ = host.dynamic.Resource(federatedTypeConfigs).Namespace(federationNamespace).Delete(ctx, "serviceaccounts", metav1.DeleteOptions{})
		_ = host.dynamic.Resource(crds).Delete(ctx, "federatedserviceaccounts.types.kubefed.io", metav1.DeleteOptions{})
	})
	held := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Finalizers: []string{holdFinalizer}}}
	if _, err := berlin.CoreV1().Namespaces().Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := berlin.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	config := acctest.HostProviderConfig(t) + memberBlock("berlin", cluster, "berlin", "")(t) + fmt.Sprintf(`
resource "kubefed_federated_type" "serviceaccounts" {
  target_api_version = "v1"
  target_kind        = "ServiceAccount"
}

resource "kubefed_federated_object" "robot" {
  type      = kubefed_federated_type.serviceaccounts.name
  template  = yamlencode({ apiVersion = "v1", kind = "ServiceAccount", metadata = { name = "robot", namespace = %q } })
  placement = { clusters = [kubefed_federation_cluster.berlin.name] }
}
`, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ExpectError: acctest.ErrorMatching("403 Forbidden", "because it is being terminated",
				fmt.Sprintf("namespace %q is being deleted on this cluster", ns), "no permission is missing", "wait until it is gone"),
		}},
	})
}
