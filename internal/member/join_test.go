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
		fillTokensOnApply(client, j.Names, "issued-after-patch")
		ctx := context.Background()
		for _, name := range []string{j.Names.TokenSecret, j.Names.ReaderTokenSecret} {
			if _, err := client.CoreV1().Secrets(j.Names.Namespace).Create(ctx, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: j.Names.Namespace},
				Data:       map[string][]byte{corev1.ServiceAccountTokenKey: []byte("old")},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		tokens, err := j.Apply(ctx, client)
		if err != nil {
			t.Fatalf("renew %t: %v", renew, err)
		}
		deleted := 0
		for _, a := range client.Actions() {
			if a.Matches("delete", "secrets") {
				deleted++
			}
		}
		want := map[bool]string{false: "old", true: "issued-after-patch"}[renew]
		if wantDeleted := map[bool]int{false: 0, true: 2}[renew]; tokens.Write != want || tokens.Read != want || deleted != wantDeleted {
			t.Errorf("renew %t: tokens %+v, %d Secrets deleted; want %q for both and %d", renew, tokens, deleted, want, wantDeleted)
		}
	}
}

// fillTokensOnApply plays the member's token controller: each token
// Secret the join applies is filled with token, unless it holds one.
func fillTokensOnApply(client *fake.Clientset, n JoinNames, token string) {
	client.PrependReactor("patch", "secrets", func(action k8stesting.Action) (bool, runtime.Object, error) {
		go fillToken(client, n.Namespace, action.(k8stesting.PatchAction).GetName(), token)
		return false, nil, nil
	})
}

// fillToken writes token into a token Secret, as a member's token
// controller does, unless the Secret holds one already.
func fillToken(client *fake.Clientset, namespace, name, token string) {
	ctx := context.Background()
	for range 100 {
		secret, err := client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			if len(secret.Data[corev1.ServiceAccountTokenKey]) > 0 {
				return
			}
			secret.Data = map[string][]byte{corev1.ServiceAccountTokenKey: []byte(token)}
			if _, err := client.CoreV1().Secrets(namespace).Update(ctx, secret, metav1.UpdateOptions{}); err == nil {
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

// A join creates, beside the federation's account, a read-only account
// whose role only reads the federated types, and returns both tokens; its
// removal deletes both accounts.
func TestJoinCreatesAReadOnlyAccount(t *testing.T) {
	client := fake.NewClientset()
	j := testJoin()
	j.Types = []TypeResource{{Plural: "configmaps"}, {Group: "apps", Plural: "deployments"}}
	fillTokensOnApply(client, j.Names, "issued")
	ctx := context.Background()
	tokens, err := j.Apply(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	if tokens.Write != "issued" || tokens.Read != "issued" {
		t.Errorf("tokens %+v, want both issued", tokens)
	}
	n := j.Names
	role, err := client.RbacV1().ClusterRoles().Get(ctx, n.ReaderClusterRole, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := DescribeRules(role.Rules), "get/list/watch on configmaps; get/list/watch on deployments.apps"; got != want {
		t.Errorf("the reader's role grants %q, want %q", got, want)
	}
	binding, err := client.RbacV1().ClusterRoleBindings().Get(ctx, n.ReaderClusterRole, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := binding.Subjects; len(s) != 1 || s[0].Name != n.ReaderServiceAccount || s[0].Namespace != n.Namespace {
		t.Errorf("the reader's role is bound to %+v, want %s/%s", s, n.Namespace, n.ReaderServiceAccount)
	}
	if err := j.Remove(ctx, client); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{n.ServiceAccount, n.ReaderServiceAccount} {
		if _, err := client.CoreV1().ServiceAccounts(n.Namespace).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("ServiceAccount %s after the removal: %v", name, err)
		}
	}
	for _, name := range []string{n.ClusterRole, n.ReaderClusterRole} {
		if _, err := client.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("ClusterRole %s after the removal: %v", name, err)
		}
	}
}
