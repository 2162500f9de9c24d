package member

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1apply "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// DefaultTokenTimeout bounds each wait of a join: for the member's token
// controller to fill the token Secret (within a second on a healthy
// cluster), and for a federation namespace being deleted to be gone.
const DefaultTokenTimeout = 60 * time.Second

// JoinedByAnnotation marks a federation namespace that a join created on a
// member, with the service account it was created for. Only a namespace so
// marked is deleted again, by the removal of the last join whose account it
// holds: one that was there before (the host's own, when the host joins
// itself) is never removed, nor one another join still uses.
const JoinedByAnnotation = "kubefed.terraform.io/joined-by"

// serviceAccountNameAnnotation is how a token Secret names its account for
// the token controller.
const serviceAccountNameAnnotation = corev1.ServiceAccountNameKey

// JoinNames are the names of what a join creates on a member, as
// `kubefedctl join` names them: a ServiceAccount `<cluster>-<host>` in the
// federation namespace, a ClusterRole and ClusterRoleBinding
// `kubefed-controller-manager:<service account>`, and the account's token
// Secret `<service account>-token`.
type JoinNames struct {
	Namespace      string
	ServiceAccount string
	TokenSecret    string
	ClusterRole    string
}

// NewJoinNames returns the names of the join of cluster to the federation
// of host, in namespace.
func NewJoinNames(namespace, cluster, host string) JoinNames {
	return JoinNamesOf(namespace, cluster+"-"+host)
}

// JoinNamesOf returns the names of a join from its ServiceAccount's, which
// the others derive from.
func JoinNamesOf(namespace, serviceAccount string) JoinNames {
	return JoinNames{
		Namespace: namespace, ServiceAccount: serviceAccount,
		TokenSecret: serviceAccount + "-token", ClusterRole: "kubefed-controller-manager:" + serviceAccount,
	}
}

// HostClusterName turns a name for the host (a kubeconfig context, a host
// name) into one fit for the member's object names: a DNS-1123 label, with
// every other character made a dash. It returns "host" when nothing is left.
func HostClusterName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.TrimRight(b.String(), "-")
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	if name == "" {
		return "host"
	}
	return name
}

// Join is what joining one member creates there: the federation namespace,
// the federation's ServiceAccount with a long-lived token, and a ClusterRole
// of MemberRules bound to it. Apply and Remove are idempotent.
type Join struct {
	// Cluster is the member's name in the federation, for messages.
	Cluster      string
	Names        JoinNames
	Types        []TypeResource
	FieldManager string
	// TokenTimeout bounds each wait; zero means DefaultTokenTimeout.
	TokenTimeout time.Duration
	// RenewToken replaces the token Secret, so that the member issues a
	// new token and rejects the one it held from then on.
	RenewToken bool
}

// Apply creates what is missing and brings the rest up to date with
// server-side apply, then waits for the member's token controller to fill
// the token Secret and returns the token.
func (j Join) Apply(ctx context.Context, client kubernetes.Interface) (string, error) {
	if err := j.ensureNamespace(ctx, client); err != nil {
		return "", err
	}
	n := j.Names
	opts := metav1.ApplyOptions{FieldManager: j.FieldManager, Force: true}
	sa := corev1apply.ServiceAccount(n.ServiceAccount, n.Namespace).WithAutomountServiceAccountToken(false)
	if _, err := client.CoreV1().ServiceAccounts(n.Namespace).Apply(ctx, sa, opts); err != nil {
		return "", j.fail("join: creating ServiceAccount "+n.Namespace+"/"+n.ServiceAccount, err)
	}
	if err := j.revokeToken(ctx, client); err != nil {
		return "", err
	}
	secret := corev1apply.Secret(n.TokenSecret, n.Namespace).WithType(corev1.SecretTypeServiceAccountToken).
		WithAnnotations(map[string]string{serviceAccountNameAnnotation: n.ServiceAccount})
	if _, err := client.CoreV1().Secrets(n.Namespace).Apply(ctx, secret, opts); err != nil {
		return "", j.fail("join: creating the token Secret "+n.Namespace+"/"+n.TokenSecret, err)
	}
	role := rbacv1apply.ClusterRole(n.ClusterRole)
	for _, r := range MemberRules(j.Types) {
		role.WithRules(policyRule(r))
	}
	if _, err := client.RbacV1().ClusterRoles().Apply(ctx, role, opts); err != nil {
		return "", j.fail("join: writing ClusterRole "+n.ClusterRole, err)
	}
	binding := rbacv1apply.ClusterRoleBinding(n.ClusterRole).
		WithRoleRef(rbacv1apply.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(n.ClusterRole)).
		WithSubjects(rbacv1apply.Subject().WithKind(rbacv1.ServiceAccountKind).WithName(n.ServiceAccount).WithNamespace(n.Namespace))
	if _, err := client.RbacV1().ClusterRoleBindings().Apply(ctx, binding, opts); err != nil {
		return "", j.fail("join: writing ClusterRoleBinding "+n.ClusterRole, err)
	}
	return j.waitToken(ctx, client)
}

// RenewsToken reports whether a join's token rotation trigger, changed
// from prior to planned, asks for a new token: it does when set to a new
// value, not when it is taken away.
func RenewsToken(prior, planned string) bool {
	return planned != "" && planned != prior
}

// revokeToken deletes the token Secret of a join that renews its token:
// the member's authenticator rejects a Secret's token once the Secret is
// gone, and the Secret created again in its place holds a new one.
func (j Join) revokeToken(ctx context.Context, client kubernetes.Interface) error {
	if !j.RenewToken {
		return nil
	}
	n := j.Names
	err := client.CoreV1().Secrets(n.Namespace).Delete(ctx, n.TokenSecret, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return j.fail("join: revoking the token (deleting Secret "+n.Namespace+"/"+n.TokenSecret+")", err)
	}
	return nil
}

// Remove deletes what Apply created, as `kubefedctl unjoin` does: the
// binding, the role, the token Secret and the ServiceAccount, and the
// namespace when a join created it and no other join uses it. What is
// already gone is fine.
func (j Join) Remove(ctx context.Context, client kubernetes.Interface) error {
	n := j.Names
	deletes := []struct {
		what string
		del  func() error
	}{
		{"ClusterRoleBinding " + n.ClusterRole, func() error {
			return client.RbacV1().ClusterRoleBindings().Delete(ctx, n.ClusterRole, metav1.DeleteOptions{})
		}},
		{"ClusterRole " + n.ClusterRole, func() error {
			return client.RbacV1().ClusterRoles().Delete(ctx, n.ClusterRole, metav1.DeleteOptions{})
		}},
		{"the token Secret " + n.Namespace + "/" + n.TokenSecret, func() error {
			return client.CoreV1().Secrets(n.Namespace).Delete(ctx, n.TokenSecret, metav1.DeleteOptions{})
		}},
		{"ServiceAccount " + n.Namespace + "/" + n.ServiceAccount, func() error {
			return client.CoreV1().ServiceAccounts(n.Namespace).Delete(ctx, n.ServiceAccount, metav1.DeleteOptions{})
		}},
	}
	for _, d := range deletes {
		if err := d.del(); err != nil && !apierrors.IsNotFound(err) {
			return j.fail("unjoin: deleting "+d.what, err)
		}
	}
	if keep, err := j.keepNamespace(ctx, client); keep || err != nil {
		return err
	}
	if err := client.CoreV1().Namespaces().Delete(ctx, n.Namespace, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return j.fail("unjoin: deleting namespace "+n.Namespace, err)
	}
	return nil
}

// keepNamespace reports whether the federation namespace stays after this
// join's removal: it does unless a join created it and no other account
// (another join's, a join under a new name) is left in it.
func (j Join) keepNamespace(ctx context.Context, client kubernetes.Interface) (bool, error) {
	n := j.Names
	ns, err := client.CoreV1().Namespaces().Get(ctx, n.Namespace, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return true, j.fail("unjoin: reading namespace "+n.Namespace, err)
	case ns.Annotations[JoinedByAnnotation] == "":
		return true, nil
	}
	accounts, err := client.CoreV1().ServiceAccounts(n.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return true, j.fail("unjoin: listing the ServiceAccounts of namespace "+n.Namespace, err)
	}
	for _, a := range accounts.Items {
		if a.Name != "default" && a.Name != n.ServiceAccount && a.DeletionTimestamp == nil {
			return true, nil
		}
	}
	return false, nil
}

// ensureNamespace creates the federation namespace when it is missing,
// marked as this join's; a namespace that exists is left as it is. One
// being deleted (by the unjoin of a replacement just before) is waited for:
// nothing can be created in it.
func (j Join) ensureNamespace(ctx context.Context, client kubernetes.Interface) error {
	name := j.Names.Namespace
	existing, err := client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil && existing.DeletionTimestamp == nil:
		return nil
	case err == nil:
		if err := j.waitNamespaceGone(ctx, client); err != nil {
			return err
		}
	case !apierrors.IsNotFound(err):
		return j.fail("join: reading namespace "+name, err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: name, Annotations: map[string]string{JoinedByAnnotation: j.Names.ServiceAccount},
	}}
	_, err = client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{FieldManager: j.FieldManager})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return j.fail("join: creating namespace "+name, err)
	}
	return nil
}

// waitNamespaceGone waits for the federation namespace to be deleted.
func (j Join) waitNamespaceGone(ctx context.Context, client kubernetes.Interface) error {
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, j.timeout(), true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Namespaces().Get(ctx, j.Names.Namespace, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("cluster %q: namespace %s is being deleted and still was after %s: wait until it is gone, then apply again",
			j.Cluster, j.Names.Namespace, j.timeout())
	}
	return nil
}

// timeout bounds each wait of the join.
func (j Join) timeout() time.Duration {
	if j.TokenTimeout <= 0 {
		return DefaultTokenTimeout
	}
	return j.TokenTimeout
}

// waitToken polls the token Secret until the member's token controller
// has written the token into it.
func (j Join) waitToken(ctx context.Context, client kubernetes.Interface) (string, error) {
	timeout := j.timeout()
	n := j.Names
	var token string
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		// An error is remembered, not returned: the controller may replace a
		// Secret it finds stale, so the Secret may be missing for a moment.
		secret, err := client.CoreV1().Secrets(n.Namespace).Get(ctx, n.TokenSecret, metav1.GetOptions{})
		last = err
		if err == nil {
			token = string(secret.Data[corev1.ServiceAccountTokenKey])
		}
		return token != "", nil
	})
	if err == nil {
		return token, nil
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("cluster %q: waiting for the token of ServiceAccount %s/%s: %w", j.Cluster, n.Namespace, n.ServiceAccount, ctx.Err())
	}
	msg := fmt.Sprintf("cluster %q: the token Secret %s/%s was not filled within %s: the cluster's token controller "+
		"(kube-controller-manager's serviceaccount-token controller, which needs --service-account-private-key-file) "+
		"does not seem to run there; start it, or register the cluster without join, with a token of your own",
		j.Cluster, n.Namespace, n.TokenSecret, timeout)
	if last != nil {
		msg += fmt.Sprintf(" (last error reading the Secret: %v)", last)
	}
	return "", errors.New(msg)
}

// fail names the cluster and the step, and says what the join credentials
// need when the member refused them.
func (j Join) fail(step string, err error) error {
	hint := ""
	switch kube.Classify(err) {
	case kube.FailureForbidden:
		hint = "; the join credentials need the rights of kubefedctl join: create and delete namespaces, ServiceAccounts, " +
			"Secrets, ClusterRoles and ClusterRoleBindings, and hold every right the ClusterRole grants (cluster-admin does)"
	case kube.FailureUnauthorized:
		hint = "; check the credentials of join (token, client certificate, exec plugin or the kubeconfig context's user)"
	}
	return fmt.Errorf("cluster %q: %s: %w%s", j.Cluster, step, err, hint)
}

// Endpoint is the API server URL and the PEM of the CA a client
// configuration reaches a member with, the CA read from its file when the
// configuration names one: what a joined member is registered with.
func Endpoint(cfg *rest.Config) (string, []byte, error) {
	cfg = rest.CopyConfig(cfg)
	if err := rest.LoadTLSFiles(cfg); err != nil {
		return "", nil, fmt.Errorf("reading the CA of %s: %w", cfg.Host, err)
	}
	return cfg.Host, cfg.CAData, nil
}

func policyRule(r rbacv1.PolicyRule) *rbacv1apply.PolicyRuleApplyConfiguration {
	rule := rbacv1apply.PolicyRule().WithVerbs(r.Verbs...)
	if len(r.NonResourceURLs) > 0 {
		return rule.WithNonResourceURLs(r.NonResourceURLs...)
	}
	return rule.WithAPIGroups(r.APIGroups...).WithResources(r.Resources...).WithResourceNames(r.ResourceNames...)
}
