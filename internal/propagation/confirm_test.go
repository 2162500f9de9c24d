package propagation

import (
	"context"
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// A member that is not confirmed as the cluster registered receives no
// write: the apply and the removal fail with the confirmation's error and
// send nothing. A confirmed member is written to.
func TestWritesConfirmTheMemberFirst(t *testing.T) {
	o := Object{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "default", Name: "settings"}
	rendered := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"}}`)
	other := errors.New("answers as another cluster")
	for _, tt := range []struct {
		name      string
		confirm   error
		wantSends bool
	}{
		{name: "confirmed", wantSends: true},
		{name: "another cluster", confirm: other},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
			m := Member{Name: "berlin", Clients: &kube.Clients{Dynamic: client},
				Confirm: func(context.Context) error { return tt.confirm }}
			_, applyErr := Apply(context.Background(), m, o, rendered, Options{FieldManager: "test"})
			removeErr := Remove(context.Background(), m, o, false, Options{})
			if sent := len(client.Actions()) > 0; sent != tt.wantSends {
				t.Errorf("requests sent: %v (%v), want %v", sent, client.Actions(), tt.wantSends)
			}
			if tt.confirm != nil && (!errors.Is(applyErr, other) || !errors.Is(removeErr, other)) {
				t.Errorf("apply: %v, remove: %v; want the confirmation's error", applyErr, removeErr)
			}
		})
	}
}
