package propagation

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// The API server's warnings about an object come back with the result of a
// dry run and of an apply, instead of going to standard error; a dry run
// says whether the member holds the object.
func TestAccServerWarningsComeBackWithTheResult(t *testing.T) {
	lab := acctest.Lab(t)
	clients, err := kube.NewClientFactory().NewClients(lab.Cluster("berlin").RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	m := Member{Name: "berlin", Clients: clients}
	o := Object{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: "default", Name: "warned"}
	// A fractional number of bytes is accepted, with a warning.
	pod := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"warned","namespace":"default"},
		"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"ephemeral-storage":"1500m"}}}]}}`)
	opts := Options{FieldManager: "propagation-test"}
	ctx := context.Background()

	warned := func(what string, res Answer, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "fractional byte value") {
			t.Errorf("%s: warnings %q, want the fractional byte value once", what, res.Warnings)
		}
	}
	res, err := DryRun(ctx, m, o, pod, opts)
	warned("dry run", res, err)
	if res.Found {
		t.Error("a dry run of a create found the object on the member")
	}
	t.Cleanup(func() {
		if err := Remove(context.Background(), m, o, false, opts); err != nil {
			t.Errorf("removing the pod: %v", err)
		}
	})
	applied, err := Apply(ctx, m, o, pod, opts)
	warned("apply", applied, err)
	if res, err := DryRun(ctx, m, o, pod, opts); err != nil || !res.Found {
		t.Errorf("a dry run over the applied object = %+v, %v; want it found", res, err)
	}
}

// ReadCapacity reads a member's nodes and pods, and tells the workload's own
// pods from the others of its namespace by the workload's selector.
func TestAccReadCapacityOfAMember(t *testing.T) {
	lab := acctest.Lab(t)
	clients, err := kube.NewClientFactory().NewClients(lab.Cluster("berlin").RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := fmt.Sprintf("capacity-read-%d", time.Now().UnixNano()%1_000_000)
	if _, err := clients.Kubernetes.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = clients.Kubernetes.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	for name, replicas := range map[string]int32{"web": 2, "web-canary": 1} {
		labels := map[string]string{"app": "web", "track": name}
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}},
		}}
		if _, err := clients.Kubernetes.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	m := Member{Name: "berlin", Clients: clients}
	web := &Object{Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespace: ns, Name: "web"}
	var src CapacitySource
	deadline := time.Now().Add(time.Minute)
	for {
		src = ReadCapacity(ctx, []Member{m}, web, Options{MaxParallel: 1, Timeout: 10 * time.Second})[0]
		if src.Err != nil {
			t.Fatal(src.Err)
		}
		if len(src.WorkloadPods) == 2 && len(podsIn(src.Pods, ns)) == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !src.WorkloadFound || len(src.WorkloadPods) != 2 || len(podsIn(src.Pods, ns)) != 3 {
		t.Fatalf("found %v, %d pods of web and %d in the namespace; want 2 of 3", src.WorkloadFound, len(src.WorkloadPods), len(podsIn(src.Pods, ns)))
	}
	for _, p := range src.WorkloadPods {
		if p.Labels["track"] != "web" {
			t.Errorf("pod %s of another workload counted as web's", p.Name)
		}
	}
	if len(src.Nodes) == 0 {
		t.Error("no nodes read")
	}
	missing := *web
	missing.Name = "absent"
	if src := ReadCapacity(ctx, []Member{m}, &missing, Options{MaxParallel: 1})[0]; src.Err != nil || src.WorkloadFound {
		t.Errorf("an absent workload: %+v, want no error and not found", src)
	}
}

func podsIn(pods []corev1.Pod, namespace string) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.Namespace == namespace {
			out = append(out, p)
		}
	}
	return out
}
