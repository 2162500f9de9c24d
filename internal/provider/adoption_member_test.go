package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// createOnMember puts an object on a lab member by hand, as another tool
// would, and removes it (and its namespace, when it created one) after the
// test.
func createOnMember(t *testing.T, member string, gvr schema.GroupVersionResource, obj map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	client := memberClient(t, member)
	var err error
	if ns := u.GetNamespace(); ns != "" {
		_, err = client.Resource(gvr).Namespace(ns).Create(context.Background(), u, metav1.CreateOptions{FieldManager: "someone-else"})
	} else {
		_, err = client.Resource(gvr).Create(context.Background(), u, metav1.CreateOptions{FieldManager: "someone-else"})
	}
	if err != nil {
		t.Fatalf("creating %s %s on %s by hand: %v", gvr.Resource, u.GetName(), member, err)
	}
}

// checkGivenBack checks that a member holds the object, no longer marked
// as the federation's, with no field of this provider's field manager,
// and with field (a path) at want: the value someone else wrote.
func checkGivenBack(t *testing.T, member string, gvr schema.GroupVersionResource, namespace, name string, want any, field ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := memberObject(t, member, gvr, namespace, name)
		if err != nil {
			return fmt.Errorf("%s on %s should be given back, not deleted: %w", name, member, err)
		}
		if _, marked := obj.GetLabels()[federation.ManagedLabel]; marked {
			return fmt.Errorf("%s on %s still carries %s", name, member, federation.ManagedLabel)
		}
		if _, marked := obj.GetAnnotations()[federation.AdoptedAnnotation]; marked {
			return fmt.Errorf("%s on %s still carries %s", name, member, federation.AdoptedAnnotation)
		}
		for _, entry := range obj.GetManagedFields() {
			if entry.Manager == "terraform-provider-kubefed" {
				return fmt.Errorf("%s on %s: the provider's field manager still owns fields", name, member)
			}
		}
		if got := nested(obj, field...); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("%s on %s: %v is %v, want %v", name, member, field, got, want)
		}
		return nil
	}
}

// An object a member holds already, which this provider did not write, is
// refused at plan without adopt; with adopt it is taken over and marked;
// a placement that leaves the cluster gives it back; and a destroy gives
// it back too, keeping the namespace that holds it there.
func TestAccAdoption_memberObjectNeedsConsentAndIsGivenBack(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "adopt-m", uniqueName("adopt-m")
	cleanupObjectTest(t, prefix, ns)
	berlin := prefix + "-berlin"
	base := acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns)
	object := func(placement, adopt string) string {
		return base + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type      = kubefed_federated_type.configmaps.name
  template  = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "existing", namespace = %q }, data = { color = "blue" } })
  placement = { clusters = %s }
  %s
  depends_on = [kubefed_federated_object.ns]
}
`, ns, placement, adopt)
	}
	all := `[kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name, kubefed_federation_cluster.berlin.name]`
	withoutBerlin := `[kubefed_federation_cluster.sf.name, kubefed_federation_cluster.ny.name]`
	existing := func() {
		createOnMember(t, "berlin", configMapsGVR, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "existing", "namespace": ns}, "data": map[string]any{"color": "red", "keep": "yes"}})
	}
	t.Cleanup(func() {
		_ = memberClient(t, "berlin").Resource(namespacesGVR).Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				PreConfig:   existing,
				Config:      object(all, ""),
				ExpectError: acctest.ErrorMatching(fmt.Sprintf("Cluster %q already holds", berlin), "adopt = true"),
			},
			{
				Config: object(all, "adopt = true"),
				Check: resource.ComposeTestCheckFunc(
					checkMemberField(t, "berlin", configMapsGVR, ns, "existing", "blue", "data", "color"),
					checkMemberField(t, "berlin", configMapsGVR, ns, "existing", "yes", "data", "keep"),
					checkMemberField(t, "berlin", configMapsGVR, ns, "existing", "true", "metadata", "annotations", federation.AdoptedAnnotation),
					checkMemberField(t, "new-york", configMapsGVR, ns, "existing", nil, "metadata", "annotations", federation.AdoptedAnnotation),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// berlin leaves the placement: the object is given back.
				Config: object(withoutBerlin, "adopt = true"),
				Check: resource.ComposeTestCheckFunc(
					checkGivenBack(t, "berlin", configMapsGVR, ns, "existing", "yes", "data", "keep"),
					checkMemberField(t, "new-york", configMapsGVR, ns, "existing", "blue", "data", "color"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// Placed there again, it is someone else's again: adopted again.
				Config: object(all, "adopt = true"),
				Check:  checkMemberField(t, "berlin", configMapsGVR, ns, "existing", "true", "metadata", "annotations", federation.AdoptedAnnotation),
			},
		},
		// The destroy gives it back, and the namespace that holds it stays on
		// berlin (the provider created it there, but it now holds an object
		// the federation does not manage); the others go.
		CheckDestroy: resource.ComposeTestCheckFunc(
			checkGivenBack(t, "berlin", configMapsGVR, ns, "existing", "yes", "data", "keep"),
			checkGone(t, configMapsGVR, ns, "existing", "san-francisco", "new-york"),
			checkNamespaceKept(t, "berlin", ns),
			func(*terraform.State) error { return checkNamespaceGoing(t, "new-york", ns) },
		),
	})
}

// A namespace a member holds already, with objects nobody federates, is
// adopted only with consent, and a destroy leaves it there with what it
// holds.
func TestAccAdoption_existingNamespaceIsNeverDeleted(t *testing.T) {
	acctest.Lab(t)
	prefix, keep := "adopt-ns", uniqueName("keep")
	cleanupObjectTest(t, prefix, keep)
	createOnMember(t, "berlin", namespacesGVR, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": keep}})
	createOnMember(t, "berlin", configMapsGVR, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "precious", "namespace": keep}, "data": map[string]any{"k": "v"}})
	t.Cleanup(func() {
		_ = memberClient(t, "berlin").Resource(namespacesGVR).Delete(context.Background(), keep, metav1.DeleteOptions{})
	})
	config := func(adopt string) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + fmt.Sprintf(`
resource "kubefed_federated_object" "ns" {
  type      = kubefed_federated_type.namespaces.name
  template  = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %q } })
  placement = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.berlin.name] }
  %s
}
`, keep, adopt)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config(""),
				ExpectError: acctest.ErrorMatching(fmt.Sprintf("Cluster %q already holds", prefix+"-berlin"), "namespaces/"+keep),
			},
			{
				Config:           config("adopt = true"),
				Check:            checkMemberField(t, "berlin", namespacesGVR, "", keep, "true", "metadata", "annotations", federation.AdoptedAnnotation),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
		CheckDestroy: resource.ComposeTestCheckFunc(
			checkGivenBack(t, "berlin", namespacesGVR, "", keep, keep, "metadata", "name"),
			checkMemberField(t, "berlin", configMapsGVR, keep, "precious", "v", "data", "k"),
			func(*terraform.State) error { return checkNamespaceGoing(t, "san-francisco", keep) },
		),
	})
}

// checkNamespaceKept checks that a member's namespace is there and not
// being deleted.
func checkNamespaceKept(t *testing.T, member, ns string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := memberObject(t, member, namespacesGVR, "", ns)
		if err != nil {
			return fmt.Errorf("namespace %s on %s should stay: %w", ns, member, err)
		}
		if obj.GetDeletionTimestamp() != nil {
			return fmt.Errorf("namespace %s on %s is being deleted", ns, member)
		}
		return nil
	}
}
