package propagation

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// The API server's warnings about an object come back with the result of a
// dry run and of an apply, instead of going to standard error.
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

	warned := func(what string, res Result) {
		t.Helper()
		if res.Err != nil {
			t.Fatalf("%s: %v", what, res.Err)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "fractional byte value") {
			t.Errorf("%s: warnings %q, want the fractional byte value once", what, res.Warnings)
		}
	}
	warned("dry run", DryRun(ctx, m, o, pod, opts))
	t.Cleanup(func() {
		if res := Remove(context.Background(), m, o, false, opts); res.Err != nil {
			t.Errorf("removing the pod: %v", res.Err)
		}
	})
	warned("apply", Apply(ctx, m, o, pod, opts))
}
