package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// registrationDeletedConfig registers the lab's members under prefix and
// places a namespace and a ConfigMap in it on san-francisco and berlin.
func registrationDeletedConfig(t *testing.T, prefix, ns string) string {
	return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + fmt.Sprintf(`
resource "kubefed_federated_object" "ns" {
  type      = kubefed_federated_type.namespaces.name
  template  = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %[1]q } })
  placement = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.berlin.name] }
}

resource "kubefed_federated_object" "cm" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings", namespace = %[1]q }, data = { color = "blue" } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.berlin.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
}

// deleteRegistrationByHand deletes a KubeFedCluster as `kubectl delete
// kubefedcluster` does, and its credential Secret too when asked.
func deleteRegistrationByHand(t *testing.T, cluster string, secretToo bool) {
	t.Helper()
	host := newHostClients(t)
	ctx := context.Background()
	if err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).Delete(ctx, cluster, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting KubeFedCluster %s by hand: %v", cluster, err)
	}
	if !secretToo {
		return
	}
	if err := host.kube.CoreV1().Secrets(federationNamespace).Delete(ctx, cluster+"-credentials", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting Secret %s-credentials by hand: %v", cluster, err)
	}
}

// checkNamespaceGoing checks that a member's namespace is gone or being
// deleted.
func checkNamespaceGoing(t *testing.T, member, ns string) error {
	obj, err := memberObject(t, member, namespacesGVR, "", ns)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	case obj.GetDeletionTimestamp() == nil:
		return fmt.Errorf("namespace %s is still on %s", ns, member)
	}
	return nil
}

// A registration deleted by hand while its credential Secret stays: the
// destroy removes the objects placed on the cluster with the endpoint and
// credentials the Secret records, and the cluster's destroy removes the
// Secret.
func TestAccFederatedObject_destroyAfterRegistrationDeletedByHand(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "rdh", uniqueName("rdh")
	cleanupObjectTest(t, prefix, ns)
	berlin := prefix + "-berlin"
	config := registrationDeletedConfig(t, prefix, ns)
	removed := func(*terraform.State) error {
		if err := checkMemberAbsent(t, "berlin", configMapsGVR, ns, "settings")(nil); err != nil {
			return fmt.Errorf("the destroy left the object on the cluster whose registration was deleted: %w", err)
		}
		if err := checkNamespaceGoing(t, "berlin", ns); err != nil {
			return err
		}
		_, err := newHostClients(t).kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), berlin+"-credentials", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("the host still holds Secret %s-credentials (err %w)", berlin, err)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  checkMemberField(t, "berlin", configMapsGVR, ns, "settings", "blue", "data", "color"),
			},
			{
				PreConfig: func() { deleteRegistrationByHand(t, berlin, false) },
				Config:    config,
				Destroy:   true,
				Check:     removed,
			},
		},
		CheckDestroy: removed,
	})
}

// With the credential Secret deleted by hand too, nothing is left to reach
// the cluster: the destroy succeeds and names every object it leaves there.
func TestAccFederatedObject_destroyNamesWhatStaysOnAnUnreachableCluster(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "rdn", uniqueName("rdn")
	cleanupObjectTest(t, prefix, ns)
	berlin := prefix + "-berlin"
	t.Cleanup(func() {
		ctx := context.Background()
		_ = memberClient(t, "berlin").Resource(configMapsGVR).Namespace(ns).Delete(ctx, "settings", metav1.DeleteOptions{})
		_ = memberClient(t, "berlin").Resource(namespacesGVR).Delete(ctx, ns, metav1.DeleteOptions{})
	})
	ws := acctest.NewWorkspace(t)
	ws.Write(registrationDeletedConfig(t, prefix, ns))
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	deleteRegistrationByHand(t, berlin, true)
	out := ws.MustRun(0, "destroy", "-auto-approve", "-input=false", "-no-color")
	for _, object := range []string{"configmaps " + ns + "/settings", "namespaces/" + ns} {
		if !acctest.ErrorMatching(object+` stays on cluster "`+berlin+`"`, "Remove it on the cluster by hand").MatchString(out) {
			t.Errorf("the destroy does not name %s as left on %s:\n%s", object, berlin, out)
		}
	}
	if err := checkMemberAbsent(t, "san-francisco", configMapsGVR, ns, "settings")(nil); err != nil {
		t.Error(err)
	}
}
