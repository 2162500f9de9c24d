package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

func TestCollectWarningsGathersTheServersWarningsPerContext(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Add("Warning", `299 - "apps/v1beta1 is deprecated"`)
		w.Header().Add("Warning", `299 - "apps/v1beta1 is deprecated"`)
		w.Header().Add("Warning", `299 - "spec.x: fractional value"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}}`))
	}))
	defer server.Close()
	clients, err := NewClientFactory().NewClients(&rest.Config{Host: server.URL})
	if err != nil {
		t.Fatal(err)
	}

	ctx, warnings := CollectWarnings(context.Background())
	if _, err := clients.Kubernetes.CoreV1().ConfigMaps("n").Get(ctx, "c", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"apps/v1beta1 is deprecated", "spec.x: fractional value"}
	if got := warnings.List(); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings %q, want %q, each once", got, want)
	}

	// A request without a collector logs them; another collector starts
	// empty.
	if _, err := clients.Kubernetes.CoreV1().ConfigMaps("n").Get(context.Background(), "c", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	_, other := CollectWarnings(context.Background())
	if got := other.List(); len(got) != 0 {
		t.Errorf("a fresh collector holds %q", got)
	}
	var none *Warnings
	if none.List() != nil {
		t.Error("a nil collector lists warnings")
	}
}
