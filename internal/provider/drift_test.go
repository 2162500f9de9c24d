package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// Drift that repairs itself, and fields that belong to the members, run by
// the CLI so that the plan's warnings and exit codes can be read.
func TestAccDrift_reclaimAndMemberFields(t *testing.T) {
	lab := acctest.Lab(t)
	prefix, ns := "drift", uniqueName("drift")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	config := func(image string) string {
		return acctest.HostProviderConfig(t) + objectTestTypes + objectTestClusters(t, prefix) + federatedNamespace(ns) + fmt.Sprintf(`
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}

resource "kubefed_federated_object" "greeting" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "greeting", namespace = %[1]q }, data = { greeting = "hello" } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
  depends_on = [kubefed_federated_object.ns]
}

resource "kubefed_federated_object" "web" {
  type = kubefed_federated_type.deployments.name
  template = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "web", namespace = %[1]q }
    spec = {
      replicas = 2
      selector = { matchLabels = { app = "web" } }
      template = {
        metadata = { labels = { app = "web" } }
        spec     = { containers = [{ name = "web", image = %[2]q }] }
      }
    }
  })
  placement       = { clusters = [kubefed_federation_cluster.sf.name] }
  retain_replicas = true
  ignore_fields   = ["metadata.annotations[\"sidecar.example.com/status\"]"]
  depends_on      = [kubefed_federated_object.ns]
}
`, ns, image)
	}
	t.Cleanup(func() {
		ws.Write(config("nginx:1.27"))
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	apply := func() { ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color") }
	emptyPlan := func(why string) {
		t.Helper()
		if code, out := ws.Run("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
			t.Fatalf("%s: plan exited %d, want an empty plan:\n%s", why, code, out)
		}
	}
	ws.Write(config("nginx:1.27"))
	apply()
	emptyPlan("right after apply")
	sf := memberClient(t, "san-francisco").Resource(configMapsGVR).Namespace(ns)
	ctx := context.Background()

	// kubectl patch of a value we set: the plan shows it and says it is
	// taken back, with no error and no force_conflicts.
	if _, err := sf.Patch(ctx, "greeting", types.MergePatchType, []byte(`{"data":{"greeting":"tampered"}}`),
		metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
		t.Fatal(err)
	}
	out := ws.MustRun(2, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	for _, want := range []string{"fields of configmaps " + ns + "/greeting are taken back", prefix + "-sf", `"kubectl-patch": .data.greeting`} {
		if !acctest.ErrorMatching(want).MatchString(out) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Error:") {
		t.Errorf("the plan of a reclaim fails:\n%s", out)
	}
	apply()
	if err := checkMemberField(t, "san-francisco", configMapsGVR, ns, "greeting", "hello", "data", "greeting")(nil); err != nil {
		t.Error(err)
	}
	emptyPlan("after the reclaim")

	// An autoscaler scales the Deployment through the scale subresource:
	// retain_replicas leaves it alone.
	kube, err := kubernetes.NewForConfig(lab.Cluster("san-francisco").RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}
	if _, err := kube.AppsV1().Deployments(ns).UpdateScale(ctx, "web", scale, metav1.UpdateOptions{FieldManager: "hpa"}); err != nil {
		t.Fatal(err)
	}
	emptyPlan("after an autoscaler scaled the Deployment")

	// Fields other tools own: an ignored annotation and an injected sidecar.
	deployments := memberClient(t, "san-francisco").Resource(deploymentsGVR).Namespace(ns)
	if _, err := deployments.Patch(ctx, "web", types.MergePatchType, []byte(`{"metadata":{"annotations":{"sidecar.example.com/status":"injected"}}}`),
		metav1.PatchOptions{FieldManager: "mesh-injector"}); err != nil {
		t.Fatal(err)
	}
	sidecar := `[{"op":"add","path":"/spec/template/spec/containers/-","value":{"name":"proxy","image":"mesh/proxy:1"}}]`
	if _, err := deployments.Patch(ctx, "web", types.JSONPatchType, []byte(sidecar), metav1.PatchOptions{FieldManager: "mesh-injector"}); err != nil {
		t.Fatal(err)
	}
	emptyPlan("after a mesh annotated the Deployment and injected a sidecar")

	// A new image still rolls out, and the autoscaler's count stays.
	ws.Write(config("nginx:1.28"))
	apply()
	for _, check := range [][]string{{"spec", "replicas"}, {"status", "readyReplicas"}} {
		if err := checkMemberField(t, "san-francisco", deploymentsGVR, ns, "web", int64(3), check...)(nil); err != nil {
			t.Error(err)
		}
	}
	obj, err := memberObject(t, "san-francisco", deploymentsGVR, ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	containers := fmt.Sprint(nested(obj, "spec", "template", "spec", "containers"))
	if !strings.Contains(containers, "nginx:1.28") || !strings.Contains(containers, "mesh/proxy:1") {
		t.Errorf("containers after the update: %s, want nginx:1.28 and the injected proxy", containers)
	}
	emptyPlan("after the image update")
}
