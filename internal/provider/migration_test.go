package provider_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

var federatedDeploymentsGVR = schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: "federateddeployments"}

// kubeFedInstallation is a federation KubeFed ran: its objects in the
// host, written as KubeFed stored them, and the objects its sync
// controller created on the members.
type kubeFedInstallation struct {
	prefix, namespace string
	// members maps each registered cluster's name to its lab member.
	members map[string]string
}

// writeKubeFedInstallation writes, into the lab, an installation whose
// objects are named after prefix in a namespace of its own, and removes
// what the test leaves behind when it ends.
func writeKubeFedInstallation(t *testing.T, prefix string) kubeFedInstallation {
	t.Helper()
	acctest.Lab(t)
	ns := uniqueName(prefix)
	cleanupObjectTest(t, prefix, ns)
	k := newKubeFedInstallation(prefix, ns)
	k.write(t)
	return k
}

func newKubeFedInstallation(prefix, namespace string) kubeFedInstallation {
	return kubeFedInstallation{prefix: prefix, namespace: namespace, members: map[string]string{
		prefix + "-sf":     "san-francisco",
		prefix + "-berlin": "berlin",
	}}
}

// federatedDeployment is the FederatedDeployment as KubeFed stored it: a
// template without apiVersion, kind or name, with an annotation KubeFed
// never sent, and overrides for Berlin that replace a label the template
// lacks and address the last container from the end.
func (k kubeFedInstallation) federatedDeployment() map[string]any {
	return map[string]any{
		"apiVersion": "types.kubefed.io/v1beta1",
		"kind":       "FederatedDeployment",
		"metadata":   map[string]any{"name": "web", "namespace": k.namespace},
		"spec": map[string]any{
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}, "annotations": map[string]any{"team": "web"}},
				"spec": map[string]any{
					"replicas": int64(2),
					"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
					"template": map[string]any{
						"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
						"spec": map[string]any{"containers": []any{
							map[string]any{"name": "web", "image": "nginx:1.27"},
							map[string]any{"name": "log", "image": "busybox:1.36"},
						}},
					},
				},
			},
			"placement": map[string]any{"clusters": []any{
				map[string]any{"name": k.prefix + "-sf"},
				map[string]any{"name": k.prefix + "-berlin"},
			}},
			"overrides": []any{map[string]any{
				"clusterName": k.prefix + "-berlin",
				"clusterOverrides": []any{
					map[string]any{"path": "/spec/replicas", "value": int64(1)},
					map[string]any{"path": "/metadata/labels/tier", "value": "gold"},
					map[string]any{"path": "/spec/template/spec/containers/-1/image", "value": "busybox:1.37"},
				},
			}},
		},
	}
}

// memberDeployment is the Deployment KubeFed's sync controller created on
// a cluster: the template with the cluster's overrides applied, the
// managed label added, and the template's annotations left out.
func (k kubeFedInstallation) memberDeployment(cluster string) map[string]any {
	replicas, labels, logImage := int64(2), map[string]any{"app": "web", "kubefed.io/managed": "true"}, "busybox:1.36"
	if cluster == k.prefix+"-berlin" {
		replicas, labels["tier"], logImage = 1, "gold", "busybox:1.37"
	}
	return map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   map[string]any{"name": "web", "namespace": k.namespace, "labels": labels},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "web", "image": "nginx:1.27"},
					map[string]any{"name": "log", "image": logImage},
				}},
			},
		},
	}
}

// write puts the installation into the lab: the FederatedDeployment's CRD
// and type configuration, a KubeFedCluster and credential Secret per
// member, the namespace in the host and on the members, the
// FederatedDeployment and the members' Deployments.
func (k kubeFedInstallation) write(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	host := newHostClients(t)
	federated := registry.APIResource{Group: "types.kubefed.io", Version: "v1beta1", Kind: "FederatedDeployment", Plural: "federateddeployments", Namespaced: true}
	crd, err := registry.FederatedCRD(federated)
	if err != nil {
		t.Fatal(err)
	}
	create := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("writing %s: %v", what, err)
		}
	}
	installKubeFed(t, host)
	_, err = host.dynamic.Resource(crds).Create(ctx, crd, metav1.CreateOptions{})
	create("the FederatedDeployment CRD", err)
	t.Cleanup(func() { removeKubeFedType(t, host, crd.GetName()) })
	_, err = host.dynamic.Resource(federatedTypeConfigs).Namespace(federationNamespace).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.kubefed.io/v1beta1", "kind": "FederatedTypeConfig",
		"metadata": map[string]any{"name": "deployments.apps", "namespace": federationNamespace},
		"spec": map[string]any{
			"federatedType": map[string]any{"group": "types.kubefed.io", "kind": "FederatedDeployment", "pluralName": "federateddeployments", "scope": "Namespaced", "version": "v1beta1"},
			"propagation":   "Enabled",
			"targetType":    map[string]any{"group": "apps", "kind": "Deployment", "pluralName": "deployments", "scope": "Namespaced", "version": "v1"},
		},
	}}, metav1.CreateOptions{})
	create("the FederatedTypeConfig", err)
	for name, member := range k.members {
		k.writeCluster(t, host, name, member)
	}
	namespace := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": k.namespace}}}
	_, err = host.dynamic.Resource(namespacesGVR).Create(ctx, namespace, metav1.CreateOptions{})
	create("the namespace in the host", err)
	waitServed(t, host, federatedDeploymentsGVR)
	_, err = host.dynamic.Resource(federatedDeploymentsGVR).Namespace(k.namespace).Create(ctx, &unstructured.Unstructured{Object: k.federatedDeployment()}, metav1.CreateOptions{})
	create("the FederatedDeployment", err)
	for name, member := range k.members {
		client := memberClient(t, member)
		_, err := client.Resource(namespacesGVR).Create(ctx, namespace.DeepCopy(), metav1.CreateOptions{})
		create("the namespace on "+member, err)
		_, err = client.Resource(deploymentsGVR).Namespace(k.namespace).Create(ctx, &unstructured.Unstructured{Object: k.memberDeployment(name)},
			metav1.CreateOptions{FieldManager: "kubefed-controller-manager"})
		create("the Deployment on "+member, err)
	}
}

// installKubeFed makes sure the host has what installing KubeFed left: its
// namespace and its core CRDs.
func installKubeFed(t *testing.T, host hostClients) {
	t.Helper()
	ctx := context.Background()
	core, err := registry.CoreCRDs()
	if err != nil {
		t.Fatal(err)
	}
	namespace := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": federationNamespace}}}
	if _, err := host.dynamic.Resource(namespacesGVR).Create(ctx, namespace, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating %s: %v", federationNamespace, err)
	}
	for _, crd := range core {
		if _, err := host.dynamic.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("installing the CRD %s: %v", crd.GetName(), err)
		}
	}
	waitServed(t, host, federatedTypeConfigs)
	waitServed(t, host, kubeFedClusters)
}

// removeKubeFedType removes the type the installation enabled, unless the
// test's destroy did, and waits until its CRD is gone, so that the next
// test can write it again.
func removeKubeFedType(t *testing.T, host hostClients, crd string) {
	ctx := context.Background()
	_ = host.dynamic.Resource(federatedTypeConfigs).Namespace(federationNamespace).Delete(ctx, "deployments.apps", metav1.DeleteOptions{})
	_ = host.dynamic.Resource(crds).Delete(ctx, crd, metav1.DeleteOptions{})
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := host.dynamic.Resource(crds).Get(ctx, crd, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("the CRD %s is still there: %v", crd, err)
	}
}

// writeCluster registers a member as `kubefedctl join` did: a KubeFedCluster
// whose Secret, of a generated name, holds the token.
func (k kubeFedInstallation) writeCluster(t *testing.T, host hostClients, name, member string) {
	t.Helper()
	ctx := context.Background()
	c := acctest.Lab(t).Cluster(member)
	secretName := name + "-x7k2p"
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata": map[string]any{"name": secretName, "namespace": federationNamespace},
		"data":     map[string]any{"token": base64.StdEncoding.EncodeToString([]byte(c.Token))},
	}}
	if _, err := host.dynamic.Resource(secretsGVR).Namespace(federationNamespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatalf("writing the Secret of %s: %v", name, err)
	}
	cluster := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.kubefed.io/v1beta1", "kind": "KubeFedCluster",
		"metadata": map[string]any{"name": name, "namespace": federationNamespace},
		"spec": map[string]any{
			"apiEndpoint": c.URL,
			"caBundle":    base64.StdEncoding.EncodeToString(c.CAPEM),
			"secretRef":   map[string]any{"name": secretName},
		},
	}}
	if _, err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).Create(ctx, cluster, metav1.CreateOptions{}); err != nil {
		t.Fatalf("writing the KubeFedCluster %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = host.dynamic.Resource(secretsGVR).Namespace(federationNamespace).Delete(context.Background(), secretName, metav1.DeleteOptions{})
	})
}

// configuration is what a user writes for the installation, with the
// import blocks that take it over.
func (k kubeFedInstallation) configuration(t *testing.T) string {
	return k.resources(t) + k.importBlocks()
}

// resources are the resource blocks of the installation.
func (k kubeFedInstallation) resources(t *testing.T) string {
	return acctest.HostProviderConfig(t) +
		memberBlock("sf", k.prefix+"-sf", "san-francisco", "")(t) +
		memberBlock("berlin", k.prefix+"-berlin", "berlin", "")(t) + fmt.Sprintf(`
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_object" "web" {
  type = kubefed_federated_type.deployments.name
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = %[1]q, labels = { app = "web" }, annotations = { team = "web" } }
    spec = {
      replicas = 2
      selector = { matchLabels = { app = "web" } }
      template = {
        metadata = { labels = { app = "web" } }
        spec = { containers = [{ name = "web", image = "nginx:1.27" }, { name = "log", image = "busybox:1.36" }] }
      }
    }
  })
  placement = { clusters = [kubefed_federation_cluster.sf.name, kubefed_federation_cluster.berlin.name] }
  overrides = [{
    cluster = kubefed_federation_cluster.berlin.name
    patches = [
      { path = "/spec/replicas", value = "1" },
      { path = "/metadata/labels/tier", value = jsonencode("gold") },
      { path = "/spec/template/spec/containers/-1/image", value = jsonencode("busybox:1.37") },
    ]
  }]
}
`, k.namespace)
}

// Taking over what KubeFed ran changes nothing on the members but the
// template's annotations, which KubeFed never sent: the first plan imports
// everything and shows that change alone, apply makes it, and the next
// plan is empty.
func TestAccMigration_fromKubeFed(t *testing.T) {
	k := writeKubeFedInstallation(t, "mig")
	prefix, ns := k.prefix, k.namespace
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: k.configuration(t),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kubefed_federation_cluster.sf", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("kubefed_federation_cluster.berlin", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("kubefed_federated_type.deployments", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("kubefed_federated_object.web", plancheck.ResourceActionUpdate),
					onlyAnnotationsChange{address: "kubefed_federated_object.web", clusters: []string{prefix + "-sf", prefix + "-berlin"},
						added: map[string]any{"team": "web"}},
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				checkMemberField(t, "san-francisco", deploymentsGVR, ns, "web", "web", "metadata", "annotations", "team"),
				checkMemberField(t, "berlin", deploymentsGVR, ns, "web", "web", "metadata", "annotations", "team"),
				checkMemberField(t, "san-francisco", deploymentsGVR, ns, "web", 2, "spec", "replicas"),
				checkMemberField(t, "berlin", deploymentsGVR, ns, "web", 1, "spec", "replicas"),
				checkMemberField(t, "berlin", deploymentsGVR, ns, "web", "gold", "metadata", "labels", "tier"),
				checkMemberField(t, "berlin", deploymentsGVR, ns, "web", "true", "metadata", "labels", "kubefed.io/managed"),
				checkMemberContainerImage(t, "berlin", ns, "log", "busybox:1.37"),
				checkMemberContainerImage(t, "san-francisco", ns, "log", "busybox:1.36"),
			),
		}},
	})
}

// onlyAnnotationsChange checks that each cluster's rendered object changes
// only by the annotations added.
type onlyAnnotationsChange struct {
	address  string
	clusters []string
	added    map[string]any
}

func (c onlyAnnotationsChange) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.address {
			continue
		}
		before, errBefore := renderedTexts(rc.Change.Before.(map[string]any)["rendered"])
		after, errAfter := renderedTexts(rc.Change.After.(map[string]any)["rendered"])
		if err := errors.Join(errBefore, errAfter); err != nil {
			resp.Error = err
			return
		}
		for _, cluster := range c.clusters {
			if err := c.check(cluster, before[cluster], after[cluster]); err != nil {
				resp.Error = err
				return
			}
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.address)
}

func (c onlyAnnotationsChange) check(cluster string, before, after any) error {
	was, err := decodeRendered(before)
	if err != nil {
		return fmt.Errorf("rendered[%s] before: %w", cluster, err)
	}
	will, err := decodeRendered(after)
	if err != nil {
		return fmt.Errorf("rendered[%s] after: %w", cluster, err)
	}
	if got := will["metadata"].(map[string]any)["annotations"]; !reflect.DeepEqual(got, c.added) {
		return fmt.Errorf("rendered[%s] plans annotations %v, want %v", cluster, got, c.added)
	}
	// The read projects the member's annotations onto the ones planned:
	// none of them is there.
	if a, _ := was["metadata"].(map[string]any)["annotations"].(map[string]any); len(a) > 0 {
		return fmt.Errorf("rendered[%s] was read with annotations %v, which KubeFed never sent", cluster, a)
	}
	delete(was["metadata"].(map[string]any), "annotations")
	delete(will["metadata"].(map[string]any), "annotations")
	if !reflect.DeepEqual(was, will) {
		return fmt.Errorf("rendered[%s] changes more than its annotations:\nbefore %v\nafter  %v", cluster, before, after)
	}
	return nil
}

func decodeRendered(v any) (map[string]any, error) {
	text, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("is %v, not a string", v)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		return nil, err
	}
	if _, ok := obj["metadata"].(map[string]any); !ok {
		return nil, fmt.Errorf("has no metadata: %s", text)
	}
	return obj, nil
}

// checkMemberContainerImage checks the image of the named container of the
// Deployment web on a member.
func checkMemberContainerImage(t *testing.T, member, namespace, container, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := memberObject(t, member, deploymentsGVR, namespace, "web")
		if err != nil {
			return err
		}
		containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			if m, _ := c.(map[string]any); m["name"] == container {
				if m["image"] != want {
					return fmt.Errorf("container %s on %s runs %v, want %s", container, member, m["image"], want)
				}
				return nil
			}
		}
		return fmt.Errorf("no container %s on %s", container, member)
	}
}
