package propagation

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// racingMember is a member whose ConfigMap a kubectl patch changed, and
// whose object changes again, changes times, between each read of its
// managedFields and the forced apply that follows.
type racingMember struct {
	changes  int
	reads    int
	attempts []string // the resourceVersion each forced apply was conditional on
}

func (r *racingMember) member() Member {
	client := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
	client.PrependReactor("get", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		r.reads++
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "greeting", "namespace": "default"}}}
		obj.SetResourceVersion(strconv.Itoa(r.reads))
		obj.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl-patch", Operation: metav1.ManagedFieldsOperationUpdate,
			FieldsV1: metav1.NewFieldsV1(`{"f:data":{"f:greeting":{}}}`)}})
		return true, obj, nil
	})
	client.PrependReactor("patch", "configmaps", func(action clienttesting.Action) (bool, runtime.Object, error) {
		patch := action.(clienttesting.PatchActionImpl)
		gr := schema.GroupResource{Resource: "configmaps"}
		if patch.PatchOptions.Force == nil || !*patch.PatchOptions.Force {
			return true, nil, apierrors.NewApplyConflict([]metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict,
				Message: `conflict with "kubectl-patch" using v1`, Field: ".data.greeting"}}, "Apply failed with 1 conflict")
		}
		var body unstructured.Unstructured
		if err := json.Unmarshal(patch.Patch, &body.Object); err != nil {
			return true, nil, err
		}
		r.attempts = append(r.attempts, body.GetResourceVersion())
		if len(r.attempts) <= r.changes {
			return true, nil, apierrors.NewConflict(gr, "greeting", nil)
		}
		return true, &body, nil
	})
	return Member{Name: "berlin", Clients: &kube.Clients{Dynamic: client}}
}

func TestApplyReclaimsAgainWhenTheObjectChangesMeanwhile(t *testing.T) {
	o := Object{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "default", Name: "greeting"}
	rendered := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"greeting","namespace":"default"},"data":{"greeting":"hello"}}`)
	tests := []struct {
		name      string
		changes   int
		force     bool
		attempts  []string
		reclaimed Claims
		err       string
	}{
		{name: "unchanged: one forced apply, on the version read", attempts: []string{"1"},
			reclaimed: Claims{"kubectl-patch": {".data.greeting"}}},
		{name: "changed once: read again, apply on the new version", changes: 1, attempts: []string{"1", "2"},
			reclaimed: Claims{"kubectl-patch": {".data.greeting"}}},
		{name: "changing all the time: give up and say so", changes: 10, attempts: []string{"1", "2", "3", "4", "5", "6"},
			err: `cluster "berlin": the object kept changing while it was applied`},
		{name: "force: no read, no condition", force: true, attempts: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &racingMember{changes: tt.changes}
			res, err := Apply(context.Background(), r.member(), o, rendered, Options{FieldManager: "kubefed", Force: tt.force})
			if !reflect.DeepEqual(r.attempts, tt.attempts) {
				t.Errorf("forced applies on versions %q, want %q", r.attempts, tt.attempts)
			}
			if !reflect.DeepEqual(res.Reclaimed, tt.reclaimed) {
				t.Errorf("reclaimed %v, want %v", res.Reclaimed, tt.reclaimed)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("apply: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("apply: %v, want %q", err, tt.err)
			}
		})
	}
}
