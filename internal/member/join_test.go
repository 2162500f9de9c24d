package member

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func testJoin() Join {
	return Join{
		Cluster:      "berlin",
		Names:        NewJoinNames("kube-federation-system", "berlin", "host"),
		Types:        []TypeResource{{Plural: "configmaps"}},
		FieldManager: "test",
		TokenTimeout: 300 * time.Millisecond,
	}
}

// A member without a token controller never fills the Secret: the join
// gives up after its timeout and says what is missing, on which cluster.
func TestJoinWithoutTokenController(t *testing.T) {
	client := fake.NewClientset()
	_, err := testJoin().Apply(context.Background(), client)
	if err == nil {
		t.Fatal("the join succeeded without a token")
	}
	for _, want := range []string{`cluster "berlin"`, "kube-federation-system/berlin-host-token", "was not filled within 300ms", "token controller", "without join"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// Credentials that may not create RBAC objects fail with the step, the
// cluster and the rights join needs.
func TestJoinForbidden(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("patch", "clusterroles", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
			"kubefed-controller-manager:berlin-host", nil)
	})
	_, err := testJoin().Apply(context.Background(), client)
	if err == nil {
		t.Fatal("the join succeeded although the ClusterRole was refused")
	}
	for _, want := range []string{`cluster "berlin": join: writing ClusterRole kubefed-controller-manager:berlin-host`, "forbidden", "cluster-admin"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestUnjoinForbidden(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("delete", "serviceaccounts", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "serviceaccounts"}, "berlin-host", nil)
	})
	err := testJoin().Remove(context.Background(), client)
	if err == nil || !strings.Contains(err.Error(), `cluster "berlin": unjoin: deleting ServiceAccount kube-federation-system/berlin-host`) {
		t.Errorf("error %v does not name the cluster and the step", err)
	}
}
