package member

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// A join that renews its token deletes the token Secret before applying
// it again, so the member issues a new token; one that does not leaves the
// Secret, and its token, as they are.
func TestJoinRenewTokenReplacesTheSecret(t *testing.T) {
	for _, renew := range []bool{false, true} {
		client := fake.NewClientset()
		j := testJoin()
		j.RenewToken = renew
		// The token controller's part: fill the Secret once it is applied.
		client.PrependReactor("patch", "secrets", func(action k8stesting.Action) (bool, runtime.Object, error) {
			go fillToken(client, j.Names, "issued-after-patch")
			return false, nil, nil
		})
		ctx := context.Background()
		if _, err := client.CoreV1().Secrets(j.Names.Namespace).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: j.Names.TokenSecret, Namespace: j.Names.Namespace},
			Data:       map[string][]byte{corev1.ServiceAccountTokenKey: []byte("old")},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		token, err := j.Apply(ctx, client)
		if err != nil {
			t.Fatalf("renew %t: %v", renew, err)
		}
		var deleted bool
		for _, a := range client.Actions() {
			deleted = deleted || a.Matches("delete", "secrets")
		}
		if want := map[bool]string{false: "old", true: "issued-after-patch"}[renew]; token != want || deleted != renew {
			t.Errorf("renew %t: token %q, Secret deleted %t; want %q and %t", renew, token, deleted, want, renew)
		}
	}
}

// fillToken writes token into the join's token Secret, as a member's
// token controller does, unless the Secret holds one already.
func fillToken(client *fake.Clientset, n JoinNames, token string) {
	ctx := context.Background()
	for range 100 {
		secret, err := client.CoreV1().Secrets(n.Namespace).Get(ctx, n.TokenSecret, metav1.GetOptions{})
		if err == nil {
			if len(secret.Data[corev1.ServiceAccountTokenKey]) > 0 {
				return
			}
			secret.Data = map[string][]byte{corev1.ServiceAccountTokenKey: []byte(token)}
			if _, err := client.CoreV1().Secrets(n.Namespace).Update(ctx, secret, metav1.UpdateOptions{}); err == nil {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRenewsToken(t *testing.T) {
	for _, tc := range []struct {
		prior, planned string
		want           bool
	}{
		{"", "", false},
		{"2026-01", "2026-01", false},
		{"2026-01", "2026-02", true},
		{"", "2026-01", true},
		{"2026-01", "", false},
	} {
		if got := RenewsToken(tc.prior, tc.planned); got != tc.want {
			t.Errorf("RenewsToken(%q, %q) = %t, want %t", tc.prior, tc.planned, got, tc.want)
		}
	}
}
