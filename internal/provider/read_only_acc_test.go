package provider_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/restmapper"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// With examples/rbac/planner.yaml applied to the host, kubefed-planner may
// read no credential Secret of the federation namespace, and a provider
// with read_only = true and its token plans a changed template on every
// cluster, reaching the members with their read credentials; its apply
// fails naming read_only, and nothing changes on the host or a member.
func TestAccReadOnly_plannerPlansAndCannotApply(t *testing.T) {
	acctest.Lab(t)
	host := newHostClients(t)
	members := map[string]string{"ro-sf": "san-francisco", "ro-ny": "new-york", "ro-berlin": "berlin"}
	names := []string{"ro-sf", "ro-ny", "ro-berlin"}
	t.Cleanup(func() { deleteClusters(t, host, names...) })
	readTokens := map[string]string{}
	for name, m := range members {
		readTokens[name] = memberReader(t, m)
	}
	planner := plannerProvider(t, host)
	assertPlannerMay(t, host, false, federationNamespace, "ro-berlin-credentials")
	assertPlannerMay(t, host, true, "kube-federation-read", "ro-berlin-read-credentials")

	config := func(provider, level string) string {
		c := provider + `
resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
}

resource "kubefed_federated_object" "settings" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "ro-settings", namespace = "default" }, data = { LEVEL = "` + level + `" } })
  placement  = { cluster_selector = { match_labels = { suite = "read-only" } } }
  depends_on = [kubefed_federation_cluster.ro-sf, kubefed_federation_cluster.ro-ny, kubefed_federation_cluster.ro-berlin]
}
`
		for _, name := range names {
			c += memberBlock(name, name, members[name], fmt.Sprintf("  read_token = %s\n  labels = { suite = \"read-only\" }", acctest.Quote(readTokens[name])))(t)
		}
		return c
	}
	planned := map[string]knownvalue.Check{}
	for _, name := range names {
		planned[name] = knownvalue.StringRegexp(regexp.MustCompile(`"LEVEL":"warn"`))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(acctest.HostProviderConfig(t), "info"),
				Check:  checkReadSecret(host, "ro-berlin", readTokens["ro-berlin"]),
			},
			{
				Config: config(planner, "warn"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kubefed_federated_object.settings", plancheck.ResourceActionUpdate),
					expectRendered("kubefed_federated_object.settings", true, planned),
				}},
				ExpectError: acctest.ErrorMatching("Cannot change kubefed_federated_object: the provider is read-only",
					"read_only = true"),
			},
			{
				// Nothing was written: the members and the host hold what the
				// first step applied, and the state plans nothing.
				PreConfig: func() { assertMembersHold(t, members, "info") },
				Config:    config(acctest.HostProviderConfig(t), "info"),
				PlanOnly:  true,
			},
		},
	})
}

// plannerProvider applies examples/rbac/planner.yaml to the host and
// returns a provider block with kubefed-planner's token and read_only =
// true.
func plannerProvider(t *testing.T, host hostClients) string {
	t.Helper()
	lab := acctest.Lab(t)
	applyPlannerRBAC(t, host)
	token, err := lab.ServiceAccountToken(context.Background(), lab.Host().Name, federationNamespace, "kubefed-planner", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`
provider "kubefed" {
  host                   = %q
  cluster_ca_certificate = %s
  token                  = %s
  read_only              = true
}
`, lab.Host().URL, acctest.Quote(string(lab.Host().CAPEM)), acctest.Quote(token))
}

// memberReader is a token of an identity on the member that may only read
// ConfigMaps: the read credentials of a registration.
func memberReader(t *testing.T, member string) string {
	t.Helper()
	ctx := context.Background()
	admin := memberAdmin(t, member)
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "kubefed-reader"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "kubefed-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "kubefed-reader"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "kubefed-reader", Namespace: "kubefed-read"}}}
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	token, err := acctest.Lab(t).ServiceAccountToken(ctx, member, "kubefed-read", "kubefed-reader", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// applyPlannerRBAC creates, or updates, the objects of
// examples/rbac/planner.yaml in the host, as kubectl apply does.
func applyPlannerRBAC(t *testing.T, host hostClients) {
	t.Helper()
	ctx := context.Background()
	if _, err := host.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: federationNamespace}},
		metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../examples/rbac/planner.yaml")
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(host.kube.Discovery())
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		var obj unstructured.Unstructured
		if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatal(err)
		}
		gvk := obj.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatal(err)
		}
		client := host.dynamic.Resource(mapping.Resource)
		options := metav1.ApplyOptions{FieldManager: "kubectl", Force: true}
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			_, err = client.Namespace(obj.GetNamespace()).Apply(ctx, obj.GetName(), &obj, options)
		} else {
			_, err = client.Apply(ctx, obj.GetName(), &obj, options)
		}
		if err != nil {
			t.Fatalf("applying %s %s: %v", gvk.Kind, obj.GetName(), err)
		}
	}
}

// assertPlannerMay checks what kubectl auth can-i get secret name -n
// namespace --as=system:serviceaccount:kube-federation-system:kubefed-planner
// answers.
func assertPlannerMay(t *testing.T, host hostClients, want bool, namespace, name string) {
	t.Helper()
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + federationNamespace + ":kubefed-planner",
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + federationNamespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: namespace, Name: name},
	}}
	answer, err := host.kube.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), review, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if answer.Status.Allowed != want {
		t.Fatalf("kubefed-planner may get secret %s/%s: %v, want %v", namespace, name, answer.Status.Allowed, want)
	}
}

// checkReadSecret checks the read credentials' Secret of cluster.
func checkReadSecret(host hostClients, cluster, token string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		s, err := host.kube.CoreV1().Secrets("kube-federation-read").Get(context.Background(), cluster+"-read-credentials", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if string(s.Data["token"]) != token {
			return fmt.Errorf("Secret %s holds another token than the read token", s.Name)
		}
		return nil
	}
}

// assertMembersHold checks the ConfigMap each member holds.
func assertMembersHold(t *testing.T, members map[string]string, level string) {
	for name, m := range members {
		cm, err := memberAdmin(t, m).CoreV1().ConfigMaps("default").Get(context.Background(), "ro-settings", metav1.GetOptions{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if cm.Data["LEVEL"] != level {
			t.Errorf("member %s (%s) holds LEVEL=%q, want %q", m, name, cm.Data["LEVEL"], level)
		}
	}
}
