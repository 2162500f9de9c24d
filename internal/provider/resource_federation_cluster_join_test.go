package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// The permissions guide documents the roles; the tests grant exactly what
// its YAML blocks say, so the guide stays true.
const permissionsGuide = "../../templates/guides/permissions.md.tmpl"

// guideObjects reads the objects of the guide's YAML blocks, by
// "<Kind>/<name>".
func guideObjects(t *testing.T) map[string]*unstructured.Unstructured {
	t.Helper()
	text, err := os.ReadFile(permissionsGuide)
	if err != nil {
		t.Fatal(err)
	}
	objects := map[string]*unstructured.Unstructured{}
	blocks := strings.Split(string(text), "```yaml\n")
	for _, block := range blocks[1:] {
		body, _, _ := strings.Cut(block, "```")
		for _, doc := range strings.Split(body, "\n---\n") {
			obj := map[string]any{}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("%s: a YAML block does not parse: %v", permissionsGuide, err)
			}
			u := &unstructured.Unstructured{Object: obj}
			objects[u.GetKind()+"/"+u.GetName()] = u
		}
	}
	return objects
}

// guideRules are the rules of a role of the guide, as JSON.
func guideRules(t *testing.T, key string) string {
	t.Helper()
	obj, ok := guideObjects(t)[key]
	if !ok {
		t.Fatalf("%s has no %s", permissionsGuide, key)
	}
	rules, err := json.Marshal(obj.Object["rules"])
	if err != nil {
		t.Fatal(err)
	}
	var typed []rbacv1.PolicyRule
	if err := json.Unmarshal(rules, &typed); err != nil {
		t.Fatal(err)
	}
	normal, _ := json.Marshal(typed)
	return string(normal)
}

// hostIdentity grants a new ServiceAccount of the lab's host the guide's
// ClusterRole and Role called role, and returns its token. The account and
// its bindings go when the test ends.
func hostIdentity(t *testing.T, role string) string {
	t.Helper()
	ctx := context.Background()
	lab := acctest.Lab(t)
	admin, err := kubernetes.NewForConfig(lab.Host().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: federationNamespace}}
	if _, err := admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	readNamespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: readCredentialsNamespace}}
	if _, err := admin.CoreV1().Namespaces().Create(ctx, readNamespace, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	host := newHostClients(t)
	objects := guideObjects(t)
	readRole := "Role/" + role + "-read-credentials"
	for _, key := range []string{"ClusterRole/" + role, "Role/" + role, readRole} {
		obj, ok := objects[key]
		if !ok && key == readRole {
			continue
		}
		if !ok {
			t.Fatalf("%s has no %s", permissionsGuide, key)
		}
		gvr := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: strings.ToLower(obj.GetKind()) + "s"}
		client := host.dynamic.Resource(gvr).Namespace(obj.GetNamespace())
		if obj.GetNamespace() == "" {
			_, err = host.dynamic.Resource(gvr).Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "acctest", Force: true})
		} else {
			_, err = client.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "acctest", Force: true})
		}
		if err != nil {
			t.Fatalf("applying the guide's %s: %v", key, err)
		}
	}
	const accountNamespace = "kubefed-acc"
	name := "acc-" + role
	token, err := lab.ServiceAccountToken(ctx, "host", accountNamespace, name, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: accountNamespace}}
	_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	_, err = admin.RbacV1().RoleBindings(federationNamespace).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: federationNamespace}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, ok := objects[readRole]; ok {
		_, err = admin.RbacV1().RoleBindings(readCredentialsNamespace).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: readCredentialsNamespace}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role + "-read-credentials"},
		}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = admin.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = admin.RbacV1().RoleBindings(federationNamespace).Delete(ctx, name, metav1.DeleteOptions{})
		_ = admin.RbacV1().RoleBindings(readCredentialsNamespace).Delete(ctx, name, metav1.DeleteOptions{})
		_ = admin.CoreV1().ServiceAccounts(accountNamespace).Delete(ctx, name, metav1.DeleteOptions{})
	})
	return token
}

// readCredentialsNamespace is the provider's default read_credentials_namespace.
const readCredentialsNamespace = "kube-federation-read"

// joinTypes enables the types the join tests federate.
const joinTypes = `
resource "kubefed_federated_type" "namespaces" {
  target_api_version = "v1"
  target_kind        = "Namespace"
}

resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
}

resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}
`

// joinedCluster joins the lab's berlin under name with its kubeconfig
// context, granting the federation the listed types.
func joinedCluster(t *testing.T, name, types, extra string) string {
	return fmt.Sprintf(`
resource "kubefed_federation_cluster" "joined" {
  name   = %[1]q
  labels = { jointest = %[1]q }
  join = {
    config_path     = %[2]q
    config_context  = %[3]q
    federated_types = [%[4]s]
%[5]s
  }
}
`, name, acctest.Lab(t).KubeconfigPath(), "berlin", types, extra)
}

// joinedNamespace federates a namespace to the joined cluster.
func joinedNamespace(ns string) string {
	return fmt.Sprintf(`
resource "kubefed_federated_object" "ns" {
  type      = kubefed_federated_type.namespaces.name
  template  = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = %[1]q } })
  placement = { clusters = [kubefed_federation_cluster.joined.name] }
}
`, ns)
}

// joinedObjects federates a namespace and a ConfigMap in it to the joined
// cluster.
func joinedObjects(ns string) string {
	return joinedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  type     = kubefed_federated_type.configmaps.name
  template = yamlencode({
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "settings", namespace = %[1]q }
    data       = { color = "blue" }
  })
  placement  = { clusters = [kubefed_federation_cluster.joined.name] }
  depends_on = [kubefed_federated_object.ns]
}
`, ns)
}

// joinedWorkload federates a Deployment to the joined cluster, its replicas
// set by a scheduling preference.
func joinedWorkload(ns, cluster string) string {
	return fmt.Sprintf(`
resource "kubefed_replica_scheduling_preference" "web" {
  namespace        = %[1]q
  name             = "web"
  total_replicas   = 2
  cluster_selector = { match_labels = { jointest = %[2]q } }
  depends_on       = [kubefed_federation_cluster.joined, kubefed_federated_type.deployments]
}

resource "kubefed_federated_object" "web" {
  type = kubefed_federated_type.deployments.name
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = %[1]q }
    spec = {
      selector = { matchLabels = { app = "web" } }
      template = {
        metadata = { labels = { app = "web" } }
        spec     = { containers = [{ name = "web", image = "nginx:1.27" }] }
      }
    }
  })
  placement        = { clusters = [kubefed_federation_cluster.joined.name] }
  cluster_replicas = kubefed_replica_scheduling_preference.web.replicas
  depends_on       = [kubefed_federated_object.ns]
}
`, ns, cluster)
}

// memberAdmin reaches a lab member as its admin.
func memberAdmin(t *testing.T, member string) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(acctest.Lab(t).Cluster(member).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cleanupJoin removes what a failed join test may leave on the member, and
// the types of joinTypes in the host, which a failed destroy keeps while
// federated objects remain and which would fail the next test's creates.
func cleanupJoin(t *testing.T, memberName string, names member.JoinNames) {
	admin := memberAdmin(t, memberName)
	host := newHostClients(t)
	t.Cleanup(func() {
		ctx := context.Background()
		// Deleting a CRD deletes its objects.
		for _, plural := range []string{"namespaces", "configmaps", "deployments"} {
			_ = host.dynamic.Resource(crds).Delete(ctx, "federated"+plural+".types.kubefed.io", metav1.DeleteOptions{})
		}
		for _, name := range []string{"namespaces", "configmaps", "deployments.apps"} {
			_ = host.dynamic.Resource(federatedTypeConfigs).Namespace(federationNamespace).Delete(ctx, name, metav1.DeleteOptions{})
		}
		for _, role := range []string{names.ClusterRole, names.ReaderClusterRole} {
			_ = admin.RbacV1().ClusterRoleBindings().Delete(ctx, role, metav1.DeleteOptions{})
			_ = admin.RbacV1().ClusterRoles().Delete(ctx, role, metav1.DeleteOptions{})
		}
		for _, account := range []string{names.ServiceAccount, names.ReaderServiceAccount} {
			_ = admin.CoreV1().ServiceAccounts(names.Namespace).Delete(ctx, account, metav1.DeleteOptions{})
		}
	})
}

// checkJoined checks what the join created on the member and that the host
// registered the member's token, not the admin's.
func checkJoined(t *testing.T, memberName, cluster string, names member.JoinNames) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		admin := memberAdmin(t, memberName)
		role, err := admin.RbacV1().ClusterRoles().Get(ctx, names.ClusterRole, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got, _ := json.Marshal(role.Rules)
		if want := guideRules(t, "ClusterRole/kubefed-controller-manager:berlin-host"); string(got) != want {
			return fmt.Errorf("ClusterRole %s on %s has rules\n%s\nthe guide documents\n%s", names.ClusterRole, memberName, got, want)
		}
		binding, err := admin.RbacV1().ClusterRoleBindings().Get(ctx, names.ClusterRole, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(binding.Subjects) != 1 || binding.Subjects[0].Name != names.ServiceAccount || binding.Subjects[0].Namespace != names.Namespace {
			return fmt.Errorf("ClusterRoleBinding %s binds %+v", names.ClusterRole, binding.Subjects)
		}
		secret, err := admin.CoreV1().Secrets(names.Namespace).Get(ctx, names.TokenSecret, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if secret.Type != corev1.SecretTypeServiceAccountToken || len(secret.Data["token"]) == 0 {
			return fmt.Errorf("token Secret %s is %s with %d token bytes", names.TokenSecret, secret.Type, len(secret.Data["token"]))
		}
		registered, err := newHostClients(t).kube.CoreV1().Secrets(federationNamespace).Get(ctx, cluster+"-credentials", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if string(registered.Data["token"]) != string(secret.Data["token"]) {
			return fmt.Errorf("the host's Secret of %s does not hold the token of %s/%s", cluster, names.Namespace, names.ServiceAccount)
		}
		return checkJoinedReader(t, memberName, cluster, names)
	}
}

// readToken is the token of cluster's read credentials in the host.
func readToken(t *testing.T, host hostClients, cluster string) string {
	t.Helper()
	s, err := host.kube.CoreV1().Secrets(readCredentialsNamespace).Get(context.Background(), cluster+"-read-credentials", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(s.Data["token"])
}

// checkJoinedReader checks the join's read-only account: its role as the
// guide documents it, and its token as the cluster's read credentials.
func checkJoinedReader(t *testing.T, memberName, cluster string, names member.JoinNames) error {
	ctx := context.Background()
	admin := memberAdmin(t, memberName)
	role, err := admin.RbacV1().ClusterRoles().Get(ctx, names.ReaderClusterRole, metav1.GetOptions{})
	if err != nil {
		return err
	}
	got, _ := json.Marshal(role.Rules)
	if want := guideRules(t, "ClusterRole/kubefed-reader:berlin-host"); string(got) != want {
		return fmt.Errorf("ClusterRole %s on %s has rules\n%s\nthe guide documents\n%s", names.ReaderClusterRole, memberName, got, want)
	}
	secret, err := admin.CoreV1().Secrets(names.Namespace).Get(ctx, names.ReaderTokenSecret, metav1.GetOptions{})
	if err != nil {
		return err
	}
	read, err := newHostClients(t).kube.CoreV1().Secrets(readCredentialsNamespace).Get(ctx, cluster+"-read-credentials", metav1.GetOptions{})
	if err != nil {
		return err
	}
	if len(secret.Data["token"]) == 0 || string(read.Data["token"]) != string(secret.Data["token"]) {
		return fmt.Errorf("the host's read credentials of %s do not hold the token of %s/%s", cluster, names.Namespace, names.ReaderServiceAccount)
	}
	return nil
}

// checkJoinedAccount checks that the join's ServiceAccount and its filled
// token Secret are on the member.
func checkJoinedAccount(t *testing.T, memberName string, names member.JoinNames) resource.TestCheckFunc {
	return func(*terraform.State) error {
		admin := memberAdmin(t, memberName)
		if _, err := admin.CoreV1().ServiceAccounts(names.Namespace).Get(context.Background(), names.ServiceAccount, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("ServiceAccount %s/%s on %s: %w", names.Namespace, names.ServiceAccount, memberName, err)
		}
		secret, err := admin.CoreV1().Secrets(names.Namespace).Get(context.Background(), names.TokenSecret, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("token Secret %s/%s on %s: %w", names.Namespace, names.TokenSecret, memberName, err)
		}
		if len(secret.Data["token"]) == 0 {
			return fmt.Errorf("token Secret %s/%s on %s holds no token", names.Namespace, names.TokenSecret, memberName)
		}
		return nil
	}
}

// checkUnjoined checks that destroy removed the join from the member, and
// the namespace the join created with it.
func checkUnjoined(t *testing.T, memberName string, names member.JoinNames) error {
	ctx := context.Background()
	admin := memberAdmin(t, memberName)
	if _, err := admin.RbacV1().ClusterRoles().Get(ctx, names.ClusterRole, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("ClusterRole %s is still on %s (err %w)", names.ClusterRole, memberName, err)
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Get(ctx, names.ClusterRole, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("ClusterRoleBinding %s is still on %s (err %w)", names.ClusterRole, memberName, err)
	}
	if _, err := admin.RbacV1().ClusterRoles().Get(ctx, names.ReaderClusterRole, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("ClusterRole %s is still on %s (err %w)", names.ReaderClusterRole, memberName, err)
	}
	ns, err := admin.CoreV1().Namespaces().Get(ctx, names.Namespace, metav1.GetOptions{})
	if err == nil && ns.DeletionTimestamp == nil {
		return fmt.Errorf("namespace %s, which the join created, is still on %s", names.Namespace, memberName)
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	// The namespace controller removes it; a later join needs it gone.
	return wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := admin.CoreV1().Namespaces().Get(ctx, names.Namespace, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// removeJoinedAccount deletes the federation's ServiceAccount and token
// Secret from the member, and waits until the member refuses the token the
// host holds.
func removeJoinedAccount(t *testing.T, memberName, cluster string, names member.JoinNames) {
	t.Helper()
	ctx := context.Background()
	admin := memberAdmin(t, memberName)
	if err := admin.CoreV1().ServiceAccounts(names.Namespace).Delete(ctx, names.ServiceAccount, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := admin.CoreV1().Secrets(names.Namespace).Delete(ctx, names.TokenSecret, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	secret, err := newHostClients(t).kube.CoreV1().Secrets(federationNamespace).Get(ctx, cluster+"-credentials", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := acctest.Lab(t).Cluster(memberName).RESTConfig()
	cfg.BearerToken = string(secret.Data["token"])
	old, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := old.CoreV1().Namespaces().Get(ctx, names.Namespace, metav1.GetOptions{})
		return apierrors.IsUnauthorized(err), nil
	})
	if err != nil {
		t.Fatalf("%s still takes the removed account's token: %v", memberName, err)
	}
}

// A member joined with the guide's roles on both sides: the provider's
// identity in the host has the guide's host role, the federation's on the
// member the ClusterRole the join creates. Plan, apply, dry runs, drift
// read-back and destroy all work with exactly that.
func TestAccFederationCluster_joinLeastPrivilege(t *testing.T) {
	lab := acctest.Lab(t)
	berlin := lab.Cluster("berlin")
	ns := uniqueName("join")
	cluster := "join-berlin"
	names := member.NewJoinNames(federationNamespace, cluster, "host")
	cleanupObjectTest(t, "join", ns)
	cleanupJoin(t, "berlin", names)
	provider := inlineProvider(t, lab.Host().URL, hostIdentity(t, "kubefed-provider"), string(lab.Host().CAPEM))
	config := provider + joinTypes + joinedCluster(t, cluster,
		"kubefed_federated_type.namespaces.name, kubefed_federated_type.configmaps.name, kubefed_federated_type.deployments.name",
		`    host_cluster_name = "host"`) + joinedObjects(ns) + joinedWorkload(ns, cluster)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("service_account"),
							knownvalue.StringExact(names.Namespace+"/"+names.ServiceAccount)),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("api_endpoint"), knownvalue.StringExact(berlin.URL)),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("ca_bundle"), knownvalue.StringExact(string(berlin.CAPEM))),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("token"), knownvalue.Null()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("ready"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("token"), knownvalue.Null()),
					statecheck.ExpectKnownValue("kubefed_federated_object.cm", tfjsonpath.New("cluster_status").AtMapKey(cluster).AtMapKey("status"), knownvalue.StringExact("OK")),
					statecheck.ExpectKnownValue("kubefed_replica_scheduling_preference.web", tfjsonpath.New("replicas"),
						knownvalue.MapExact(map[string]knownvalue.Check{cluster: knownvalue.Int64Exact(2)})),
				},
				Check: resource.ComposeTestCheckFunc(
					checkJoined(t, "berlin", cluster, names),
					checkMemberField(t, "berlin", deploymentsGVR, ns, "web", 2, "spec", "replicas"),
					checkKubeFedCluster(newHostClients(t), cluster, berlin.URL, berlin.CAPEM, map[string]string{"jointest": cluster}),
					checkMemberField(t, "berlin", configMapsGVR, ns, "settings", "blue", "data", "color"),
					checkMemberField(t, "berlin", namespacesGVR, "", names.Namespace, names.ServiceAccount, "metadata", "annotations", member.JoinedByAnnotation),
				),
			},
			{
				// Deleted on the member: the read-back sees it, apply puts it back.
				PreConfig: func() {
					if err := memberClient(t, "berlin").Resource(configMapsGVR).Namespace(ns).Delete(context.Background(), "settings", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkMemberField(t, "berlin", configMapsGVR, ns, "settings", "blue", "data", "color"),
			},
			{
				// The federation's ServiceAccount deleted on the member: its
				// token is refused, and the plan joins the cluster again.
				PreConfig: func() { removeJoinedAccount(t, "berlin", cluster, names) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federation_cluster.joined", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("ready"), knownvalue.Bool(true)),
				},
				Check: checkJoined(t, "berlin", cluster, names),
			},
			{
				// Changed by an update-style writer: the read-back sees it,
				// and the plan's dry run and the apply, made with the
				// federation's token, take the field back (reading the
				// object's managedFields for it).
				PreConfig: func() {
					patch := []byte(`{"data":{"color":"red"}}`)
					if _, err := memberClient(t, "berlin").Resource(configMapsGVR).Namespace(ns).Patch(context.Background(), "settings",
						types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "someone-else"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federated_object.cm", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkMemberField(t, "berlin", configMapsGVR, ns, "settings", "blue", "data", "color"),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if _, err := newHostClients(t).get(kubeFedClusters, federationNamespace, cluster); !apierrors.IsNotFound(err) {
				return fmt.Errorf("KubeFedCluster %s is still in the host (err %w)", cluster, err)
			}
			if err := checkMemberAbsent(t, "berlin", configMapsGVR, ns, "settings")(nil); err != nil {
				return err
			}
			return checkUnjoined(t, "berlin", names)
		},
	})
}

// The join grants only the types it lists: the plan of an object of another
// type placed on the cluster fails before anything is written, naming the
// cluster, the type and join.federated_types, whether the cluster is
// joined in the same run (its plan says what it grants) or was joined
// before (its KubeFedCluster in the host says so).
func TestAccFederationCluster_joinMissingRule(t *testing.T) {
	acctest.Lab(t)
	ns := uniqueName("jmr")
	cluster := "jmr-berlin"
	cleanupObjectTest(t, "jmr", ns)
	names := member.NewJoinNames(federationNamespace, cluster, "host")
	cleanupJoin(t, "berlin", names)
	joined := acctest.HostProviderConfig(t) + joinTypes + joinedCluster(t, cluster, "kubefed_federated_type.namespaces.name", "")
	refused := acctest.ErrorMatching(`Cluster "jmr-berlin" does not grant type "configmaps"`,
		`configmaps `+ns+`/settings is placed on cluster "jmr-berlin"`, "join.federated_types (namespaces)",
		`Add "configmaps"`, "to join.federated_types")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Joined in the same run: the cluster's plan grants namespaces only.
				Config:      joined + joinedObjects(ns),
				ExpectError: refused,
			},
			{
				PreConfig: func() {
					if _, err := newHostClients(t).get(kubeFedClusters, federationNamespace, cluster); !apierrors.IsNotFound(err) {
						t.Fatalf("the refused plan wrote KubeFedCluster %s to the host (err %v)", cluster, err)
					}
					if err := checkMemberAbsent(t, "berlin", namespacesGVR, "", ns)(nil); err != nil {
						t.Fatalf("the refused plan wrote to berlin: %v", err)
					}
				},
				Config: joined + joinedNamespace(ns),
				Check:  checkMemberField(t, "berlin", namespacesGVR, "", ns, ns, "metadata", "name"),
			},
			{
				// Joined before: the host records what the cluster grants.
				Config:      joined + joinedObjects(ns),
				ExpectError: refused,
			},
			{
				PreConfig: func() {
					if err := checkMemberAbsent(t, "berlin", configMapsGVR, ns, "settings")(nil); err != nil {
						t.Fatalf("the refused plan wrote to berlin: %v", err)
					}
				},
				Config:   joined + joinedNamespace(ns),
				PlanOnly: true,
			},
		},
		CheckDestroy: func(*terraform.State) error { return checkUnjoined(t, "berlin", names) },
	})
}

// A joined cluster renamed is replaced on the same member: the unjoin of
// the old name deletes the namespace it created, and the join of the new
// one waits until it is gone to create it again.
func TestAccFederationCluster_joinRenamed(t *testing.T) {
	acctest.Lab(t)
	before := member.NewJoinNames(federationNamespace, "ren-a", "host")
	after := member.NewJoinNames(federationNamespace, "ren-b", "host")
	cleanupJoin(t, "berlin", before)
	cleanupJoin(t, "berlin", after)
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, "ren-a", "ren-b") })
	renamed := member.NewJoinNames(federationNamespace, "ren-b", "other")
	cleanupJoin(t, "berlin", renamed)
	config := func(name, extra string) string {
		return acctest.HostProviderConfig(t) + joinTypes + joinedCluster(t, name, "kubefed_federated_type.namespaces.name", extra)
	}
	roleGone := func(names member.JoinNames) resource.TestCheckFunc {
		return func(*terraform.State) error {
			_, err := memberAdmin(t, "berlin").RbacV1().ClusterRoles().Get(context.Background(), names.ClusterRole, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("the former join's ClusterRole %s is still on berlin (err %w)", names.ClusterRole, err)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("ren-a", ""),
				Check:  checkMemberField(t, "berlin", namespacesGVR, "", federationNamespace, before.ServiceAccount, "metadata", "annotations", member.JoinedByAnnotation),
			},
			{
				Config: config("ren-b", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federation_cluster.joined", plancheck.ResourceActionDestroyBeforeCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("ready"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeTestCheckFunc(
					checkMemberField(t, "berlin", namespacesGVR, "", federationNamespace, after.ServiceAccount, "metadata", "annotations", member.JoinedByAnnotation),
					roleGone(before),
				),
			},
			{
				// Another host name renames the account in place: the new
				// join is made first, then the old one removed, which keeps
				// the namespace the new account lives in.
				Config: config("ren-b", `    host_cluster_name = "other"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federation_cluster.joined", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("service_account"),
							knownvalue.StringExact(federationNamespace+"/"+renamed.ServiceAccount)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("ready"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeTestCheckFunc(roleGone(after), checkJoinedAccount(t, "berlin", renamed)),
			},
		},
		CheckDestroy: func(*terraform.State) error { return checkUnjoined(t, "berlin", renamed) },
	})
}

// readyProbeTime is when the host last recorded a probe of the cluster.
func readyProbeTime(t *testing.T, cluster string) string {
	t.Helper()
	obj, err := newHostClients(t).get(kubeFedClusters, federationNamespace, cluster)
	if err != nil {
		t.Fatal(err)
	}
	conditions, _ := nested(obj, "status", "conditions").([]any)
	for _, c := range conditions {
		if condition := c.(map[string]any); condition["type"] == "Ready" {
			return fmt.Sprint(condition["lastProbeTime"])
		}
	}
	t.Fatalf("KubeFedCluster %s has no Ready condition", cluster)
	return ""
}

// backdateProbes moves the probe times the host records for the cluster
// back by d, as an older probe would have left them, and returns the Ready
// condition's.
func backdateProbes(t *testing.T, cluster string, d time.Duration) string {
	t.Helper()
	host := newHostClients(t)
	obj, err := host.get(kubeFedClusters, federationNamespace, cluster)
	if err != nil {
		t.Fatal(err)
	}
	conditions, _ := nested(obj, "status", "conditions").([]any)
	for _, c := range conditions {
		condition := c.(map[string]any)
		probed, err := time.Parse(time.RFC3339, fmt.Sprint(condition["lastProbeTime"]))
		if err != nil {
			t.Fatal(err)
		}
		condition["lastProbeTime"] = probed.Add(-d).UTC().Format(time.RFC3339)
	}
	if err := unstructured.SetNestedSlice(obj.Object, conditions, "status", "conditions"); err != nil {
		t.Fatal(err)
	}
	if _, err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).UpdateStatus(context.Background(), obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return readyProbeTime(t, cluster)
}

// The join's token appears nowhere Terraform writes or prints, and a
// planner with the guide's read-only role plans: each cluster's refresh
// warns that its health is not recorded and goes on, the host keeps the
// health it had, and an apply with that role fails at its first write.
func TestAccFederationCluster_joinTokenHiddenAndReadOnlyPlanner(t *testing.T) {
	acctest.Lab(t)
	ws := acctest.NewWorkspace(t)
	cluster := "plan-berlin"
	cleanupJoin(t, "berlin", member.NewJoinNames(federationNamespace, cluster, "host"))
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, cluster) })
	planner := plannerProvider(t, host)
	body := joinTypes + joinedCluster(t, cluster, "kubefed_federated_type.namespaces.name", "")
	writer := acctest.HostProviderConfig(t) + body
	t.Cleanup(func() {
		ws.Write(writer)
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})

	ws.Write(writer)
	out := ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	if want := acctest.ErrorMatching(`Cluster "plan-berlin" joins the federation at apply`, "ServiceAccount kube-federation-system/plan-berlin-host",
		"get/list/create/patch/delete on namespaces"); !want.MatchString(out) {
		t.Errorf("the plan does not say what join creates:\n%s", out)
	}
	secret, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), cluster+"-credentials", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	token := string(secret.Data["token"])
	if token == "" {
		t.Fatal("the host's Secret holds no token")
	}
	state, err := os.ReadFile(filepath.Join(ws.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	ws.MustRun(0, "plan", "-out=saved.tfplan", "-input=false", "-no-color")
	for what, text := range map[string]string{
		"the apply's output": out, "the state": string(state),
		"show -json":            ws.MustRun(0, "show", "-json", "-no-color"),
		"show -json saved plan": ws.MustRun(0, "show", "-json", "-no-color", "saved.tfplan"),
	} {
		if strings.Contains(text, token) {
			t.Errorf("the federation's token appears in %s", what)
		}
	}

	// A refresh records a probe that finds what the host records only when
	// the recorded one is a minute old: this one is made older.
	recorded := backdateProbes(t, cluster, 2*time.Minute)
	ws.Write(planner + body)
	out = ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if want := acctest.ErrorMatching(`Warning: Read-only plan`, "read_only = true"); !want.MatchString(out) {
		t.Errorf("the planner's plan does not say it is read-only:\n%s", out)
	}
	if got := readyProbeTime(t, cluster); got != recorded {
		t.Errorf("the planner's plan recorded a probe at %s (the last one was at %s)", got, recorded)
	}

	ws.Write(planner + body + `
resource "kubefed_federated_type" "services" {
  target_api_version = "v1"
  target_kind        = "Service"
}
`)
	out = ws.MustRun(1, "apply", "-auto-approve", "-input=false", "-no-color")
	if want := acctest.ErrorMatching("the provider is read-only", "read_only = true"); !want.MatchString(out) {
		t.Errorf("the planner's apply failed for another reason than read_only:\n%s", out)
	}
	if _, err := host.get(federatedTypeConfigs, federationNamespace, "services"); !apierrors.IsNotFound(err) {
		t.Errorf("the planner's apply wrote FederatedTypeConfig services (err %v)", err)
	}
}

func TestAccFederationCluster_joinValidation(t *testing.T) {
	kubeconfig := acctest.Lab(t).KubeconfigPath()
	step := func(config string, phrases ...string) resource.TestStep {
		return resource.TestStep{Config: unreachableHost + config, PlanOnly: true, ExpectError: acctest.ErrorMatching(phrases...)}
	}
	cluster := func(body string) string {
		return "resource \"kubefed_federation_cluster\" \"c\" {\n  name = \"v\"\n" + body + "\n}\n"
	}
	join := fmt.Sprintf(`  join = { config_path = %q, config_context = "berlin" }`, kubeconfig)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(cluster(join+"\n  token = \"t\""), "Credentials set with join", "token is not set with join"),
			step(cluster(join+"\n  client_certificate = \"x\"\n  client_key = \"y\""), "Credentials set with join", "client_key is not set with join"),
			step(cluster(`  token = "t"`), "Missing api_endpoint", "api_endpoint is required without join"),
			step(cluster(`  join = { config_context = "berlin" }`), "Join names no cluster", "set config_path"),
			step(cluster(fmt.Sprintf(`  join = { config_path = %q, federated_types = ["Deployments"] }`, kubeconfig)),
				"join.federated_types", "must be the name of a FederatedTypeConfig"),
			step(cluster(fmt.Sprintf(`  join = { config_path = %q, host_cluster_name = "my_host" }`, kubeconfig)),
				"join.host_cluster_name", "must be a DNS-1123 label"),
			step(cluster(fmt.Sprintf(`  join = { config_path = %q, config_context = "nowhere" }`, kubeconfig)),
				"Cannot read the join connection", `Cluster "v"`, `context "nowhere" is not in the kubeconfig`),
			step(cluster(`  join = { host = "https://127.0.0.1:9", exec = { args = ["x"] } }`), `attribute "command" is required`),
		},
	})
}

// execCredentialPlugin writes a credential plugin that prints token.
func execCredentialPlugin(t *testing.T, token string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "get-token")
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s' '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":%q}}'\n", token)
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// join with inline credentials and with an exec plugin; a type added to the
// join widens the ClusterRole in place; a join given up for a token of the
// user's own is removed from the member.
func TestAccFederationCluster_joinInlineAndExec(t *testing.T) {
	lab := acctest.Lab(t)
	sf, ny := lab.Cluster("san-francisco"), lab.Cluster("new-york")
	sfNames := member.NewJoinNames(federationNamespace, "jx-sf", "host")
	nyNames := member.NewJoinNames(federationNamespace, "jx-ny", "host")
	cleanupJoin(t, "san-francisco", sfNames)
	cleanupJoin(t, "new-york", nyNames)
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, "jx-sf", "jx-ny") })
	plugin := execCredentialPlugin(t, ny.Token)
	config := func(sfTypes, nyBlock string) string {
		return acctest.HostProviderConfig(t) + joinTypes + fmt.Sprintf(`
resource "kubefed_federation_cluster" "sf" {
  name = "jx-sf"
  join = {
    host                   = %q
    token                  = %s
    cluster_ca_certificate = %s
    federated_types        = [%s]
  }
}
`, sf.URL, acctest.Quote(sf.Token), acctest.Quote(string(sf.CAPEM)), sfTypes) + nyBlock
	}
	nyJoined := fmt.Sprintf(`
resource "kubefed_federation_cluster" "ny" {
  name = "jx-ny"
  join = {
    host                   = %q
    cluster_ca_certificate = %s
    exec                   = { command = %q, env = { PURPOSE = "test" } }
  }
}
`, ny.URL, acctest.Quote(string(ny.CAPEM)), plugin)
	nyToken := memberBlock("ny", "jx-ny", "new-york", "")(t)
	roleRules := func(member, role string, want []rbacv1.PolicyRule) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := memberAdmin(t, member).RbacV1().ClusterRoles().Get(context.Background(), role, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if g, w := fmt.Sprint(got.Rules), fmt.Sprint(want); g != w {
				return fmt.Errorf("ClusterRole %s on %s: rules %s, want %s", role, member, g, w)
			}
			return nil
		}
	}
	namespaces, configmaps := member.TypeResource{Plural: "namespaces"}, member.TypeResource{Plural: "configmaps"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("kubefed_federated_type.namespaces.name", nyJoined),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kubefed_federation_cluster.sf", tfjsonpath.New("api_endpoint"), knownvalue.StringExact(sf.URL)),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.ny", tfjsonpath.New("ca_bundle"), knownvalue.StringExact(string(ny.CAPEM))),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.ny", tfjsonpath.New("service_account"),
							knownvalue.StringExact(federationNamespace+"/jx-ny-host")),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.ny", tfjsonpath.New("member_rules"), knownvalue.ListSizeExact(len(member.MemberRules(nil)))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.sf", tfjsonpath.New("ready"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.ny", tfjsonpath.New("ready"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeTestCheckFunc(
					roleRules("san-francisco", sfNames.ClusterRole, member.MemberRules([]member.TypeResource{namespaces})),
					roleRules("new-york", nyNames.ClusterRole, member.MemberRules(nil)),
				),
			},
			{
				Config: config("kubefed_federated_type.namespaces.name, kubefed_federated_type.configmaps.name", nyToken),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federation_cluster.sf", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("kubefed_federation_cluster.ny", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.ny", tfjsonpath.New("service_account"), knownvalue.Null()),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.ny", tfjsonpath.New("member_rules"), knownvalue.Null()),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.sf", tfjsonpath.New("member_rules"), knownvalue.ListExact([]knownvalue.Check{
							knownvalue.StringExact("get on /api, /api/*, /apis, /apis/*, /healthz, /livez, /readyz, /version"),
							knownvalue.StringExact("create on selfsubjectaccessreviews.authorization.k8s.io"),
							knownvalue.StringExact("get on namespaces kube-system"),
							knownvalue.StringExact("get/list/create/patch/delete on configmaps, namespaces"),
							knownvalue.StringExact("read-only account: get/list/watch on configmaps, namespaces"),
						})),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					roleRules("san-francisco", sfNames.ClusterRole, member.MemberRules([]member.TypeResource{configmaps, namespaces})),
					checkSecret(host, "jx-ny-credentials", map[string]string{"token": ny.Token}),
					func(*terraform.State) error { return checkUnjoined(t, "new-york", nyNames) },
				),
			},
		},
		CheckDestroy: func(*terraform.State) error { return checkUnjoined(t, "san-francisco", sfNames) },
	})
}

// A new token_rotation renews the join's token: the member rejects the
// former token from then on (once its API server's cache of the token's
// authentication expires), accepts the new one, the host registers the
// cluster with it and the cluster stays ready; the plan after is empty.
func TestAccFederationCluster_joinTokenRotation(t *testing.T) {
	acctest.Lab(t)
	names := member.NewJoinNames(federationNamespace, "rot", "host")
	cleanupJoin(t, "berlin", names)
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, "rot") })
	config := func(rotation string) string {
		return acctest.HostProviderConfig(t) + joinTypes +
			joinedCluster(t, "rot", "kubefed_federated_type.namespaces.name", fmt.Sprintf("    token_rotation = %q", rotation))
	}
	var former, formerRead string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("2026-11"),
				Check: func(*terraform.State) error {
					former, formerRead = joinToken(t, names), readToken(t, host, "rot")
					return nil
				},
			},
			{
				Config: config("2026-12"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("kubefed_federation_cluster.joined", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.joined", tfjsonpath.New("ready"), knownvalue.Bool(true)),
				},
				Check: func(*terraform.State) error {
					renewed := joinToken(t, names)
					if renewed == former {
						return errors.New("the token is the same after token_rotation changed")
					}
					if registered := registeredToken(t, host, "rot"); registered != renewed {
						return errors.New("the host does not register the cluster with the member's new token")
					}
					if err := tokenAnswers(t, "berlin", renewed); err != nil {
						return fmt.Errorf("the new token: %w", err)
					}
					if read := readToken(t, host, "rot"); read == formerRead || read == "" {
						return errors.New("the read credentials hold no new token after token_rotation changed")
					}
					// An API server caches a token's authentication for ten
					// seconds.
					var err, readErr error
					for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
						err, readErr = tokenAnswers(t, "berlin", former), tokenAnswers(t, "berlin", formerRead)
						if apierrors.IsUnauthorized(err) && apierrors.IsUnauthorized(readErr) {
							return nil
						}
					}
					return fmt.Errorf("the former tokens, 30 s after the renewal: %w and (read-only) %w, want both rejected as unauthorized", err, readErr)
				},
			},
		},
		CheckDestroy: func(*terraform.State) error { return checkUnjoined(t, "berlin", names) },
	})
}

// joinToken is the token the member issued to the join's account.
func joinToken(t *testing.T, names member.JoinNames) string {
	t.Helper()
	secret, err := memberAdmin(t, "berlin").CoreV1().Secrets(names.Namespace).Get(context.Background(), names.TokenSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(secret.Data[corev1.ServiceAccountTokenKey])
}

// registeredToken is the token the host registers the cluster with.
func registeredToken(t *testing.T, host hostClients, cluster string) string {
	t.Helper()
	reg, err := host.get(kubeFedClusters, federationNamespace, cluster)
	if err != nil {
		t.Fatal(err)
	}
	secretName, _, _ := unstructured.NestedString(reg.Object, "spec", "secretRef", "name")
	secret, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), secretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(secret.Data["token"])
}

// tokenAnswers asks the member who the token is; nil when it accepts it.
func tokenAnswers(t *testing.T, memberName, token string) error {
	t.Helper()
	cfg := acctest.Lab(t).Cluster(memberName).RESTConfig()
	cfg.BearerToken, cfg.CertData, cfg.KeyData, cfg.CertFile, cfg.KeyFile = token, nil, nil, "", ""
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	return err
}
