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
// Secret `<service account>-token`. The read-only account that plans with
// `read_only = true` is `<service account>-reader` beside it, with its token
// Secret `<service account>-reader-token` and ClusterRole and
// ClusterRoleBinding `kubefed-reader:<service account>`.
type JoinNames struct {
	Namespace      string
	ServiceAccount string
	TokenSecret    string
	ClusterRole    string

	ReaderServiceAccount string
	ReaderTokenSecret    string
	ReaderClusterRole    string
}

// NewJoinNames returns the names of the join of cluster to the federation
// of host, in namespace.
func NewJoinNames(namespace, cluster, host string) JoinNames {
	return JoinNamesOf(namespace, cluster+"-"+host)
}

// JoinNamesOf returns the names of a join from its ServiceAccount's, which
// the others derive from.
func JoinNamesOf(namespace, serviceAccount string) JoinNames {
	reader := serviceAccount + "-reader"
	return JoinNames{
		Namespace: namespace, ServiceAccount: serviceAccount,
		TokenSecret: serviceAccount + "-token", ClusterRole: "kubefed-controller-manager:" + serviceAccount,
		ReaderServiceAccount: reader, ReaderTokenSecret: reader + "-token", ReaderClusterRole: "kubefed-reader:" + serviceAccount,
	}
}

// Creates says what a join with these names creates on the member
// cluster, whose federation role grants rules: a plan's warning.
func (n JoinNames) Creates(cluster, rules string) string {
	return fmt.Sprintf("With the join credentials, apply creates on cluster %q: namespace %s (unless it exists), ServiceAccount %s/%s "+
		"with its token Secret %s, and ClusterRole and ClusterRoleBinding %s, granting: %s; and the read-only ServiceAccount "+
		"%s with its token Secret %s, and ClusterRole and ClusterRoleBinding %s, granting get/list/watch on the same types. "+
		"The cluster is registered with the first token, and the second is its read credentials; the join credentials "+
		"are not written to the host.",
		cluster, n.Namespace, n.Namespace, n.ServiceAccount, n.TokenSecret, n.ClusterRole, rules,
		n.ReaderServiceAccount, n.ReaderTokenSecret, n.ReaderClusterRole)
}

// LeftBehind says what a join that was not removed leaves on the member
// cluster, and what its token can do until then.
func (n JoinNames) LeftBehind(cluster string) string {
	return fmt.Sprintf("Remove by hand, on cluster %q: ClusterRoleBindings and ClusterRoles %s and %s, Secrets %s/%s and %s/%s, "+
		"and ServiceAccounts %s/%s and %s/%s. Until then the first ServiceAccount's token keeps the rights of its ClusterRole.",
		cluster, n.ClusterRole, n.ReaderClusterRole, n.Namespace, n.TokenSecret, n.Namespace, n.ReaderTokenSecret,
		n.Namespace, n.ServiceAccount, n.Namespace, n.ReaderServiceAccount)
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
// the federation's ServiceAccount with a long-lived token and a
// ClusterRole of MemberRules bound to it, and a read-only ServiceAccount
// with its token and a ClusterRole of ReaderRules, the registration's read
// credentials. Apply and Remove are idempotent.
type Join struct {
	// Cluster is the member's name in the federation, for messages.
	Cluster      string
	Names        JoinNames
	Types        []TypeResource
	FieldManager string
	// TokenTimeout bounds each wait; zero means DefaultTokenTimeout.
	TokenTimeout time.Duration
	// RenewToken replaces both token Secrets, so that the member issues
	// new tokens and rejects the ones it held from then on.
	RenewToken bool
}

// Tokens are the tokens a join returns: the federation's, which writes,
// and the read-only account's.
type Tokens struct {
	Write, Read string
}

// account is one ServiceAccount of a join, with its token Secret and the
// ClusterRole bound to it.
type account struct {
	serviceAccount, tokenSecret, clusterRole string
	rules                                    []rbacv1.PolicyRule
}

// accounts are the federation's account and the read-only one.
func (j Join) accounts() []account {
	n := j.Names
	return []account{
		{n.ServiceAccount, n.TokenSecret, n.ClusterRole, MemberRules(j.Types)},
		{n.ReaderServiceAccount, n.ReaderTokenSecret, n.ReaderClusterRole, ReaderRules(j.Types)},
	}
}

// Apply creates what is missing and brings the rest up to date with
// server-side apply, then waits for the member's token controller to fill
// both token Secrets and returns the tokens.
func (j Join) Apply(ctx context.Context, client kubernetes.Interface) (Tokens, error) {
	if err := j.ensureNamespace(ctx, client); err != nil {
		return Tokens{}, err
	}
	accounts := j.accounts()
	for _, a := range accounts {
		if err := j.applyAccount(ctx, client, a); err != nil {
			return Tokens{}, err
		}
	}
	write, err := j.waitToken(ctx, client, accounts[0])
	if err != nil {
		return Tokens{}, err
	}
	read, err := j.waitToken(ctx, client, accounts[1])
	if err == nil {
		exitAfterJoin(j.Cluster)
	}
	return Tokens{Write: write, Read: read}, err
}

// applyAccount applies one account of the join: its ServiceAccount, its
// token Secret (renewed first when asked), its ClusterRole and binding.
func (j Join) applyAccount(ctx context.Context, client kubernetes.Interface, a account) error {
	ns := j.Names.Namespace
	opts := metav1.ApplyOptions{FieldManager: j.FieldManager, Force: true}
	sa := corev1apply.ServiceAccount(a.serviceAccount, ns).WithAutomountServiceAccountToken(false)
	if _, err := client.CoreV1().ServiceAccounts(ns).Apply(ctx, sa, opts); err != nil {
		return j.fail("join: creating ServiceAccount "+ns+"/"+a.serviceAccount, err)
	}
	if err := j.revokeToken(ctx, client, a); err != nil {
		return err
	}
	secret := corev1apply.Secret(a.tokenSecret, ns).WithType(corev1.SecretTypeServiceAccountToken).
		WithAnnotations(map[string]string{serviceAccountNameAnnotation: a.serviceAccount})
	if _, err := client.CoreV1().Secrets(ns).Apply(ctx, secret, opts); err != nil {
		return j.fail("join: creating the token Secret "+ns+"/"+a.tokenSecret, err)
	}
	role := rbacv1apply.ClusterRole(a.clusterRole)
	for _, r := range a.rules {
		role.WithRules(policyRule(r))
	}
	if _, err := client.RbacV1().ClusterRoles().Apply(ctx, role, opts); err != nil {
		return j.fail("join: writing ClusterRole "+a.clusterRole, err)
	}
	binding := rbacv1apply.ClusterRoleBinding(a.clusterRole).
		WithRoleRef(rbacv1apply.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(a.clusterRole)).
		WithSubjects(rbacv1apply.Subject().WithKind(rbacv1.ServiceAccountKind).WithName(a.serviceAccount).WithNamespace(ns))
	if _, err := client.RbacV1().ClusterRoleBindings().Apply(ctx, binding, opts); err != nil {
		return j.fail("join: writing ClusterRoleBinding "+a.clusterRole, err)
	}
	return nil
}

// RenewsToken reports whether a join's token rotation trigger, changed
// from prior to planned, asks for a new token: it does when set to a new
// value, not when it is taken away.
func RenewsToken(prior, planned string) bool {
	return planned != "" && planned != prior
}

// revokeToken deletes an account's token Secret when the join renews its
// tokens: the member's authenticator rejects a Secret's token once the
// Secret is gone, and the Secret created again in its place holds a new one.
func (j Join) revokeToken(ctx context.Context, client kubernetes.Interface, a account) error {
	if !j.RenewToken {
		return nil
	}
	ns := j.Names.Namespace
	err := client.CoreV1().Secrets(ns).Delete(ctx, a.tokenSecret, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return j.fail("join: revoking the token (deleting Secret "+ns+"/"+a.tokenSecret+")", err)
	}
	return nil
}

// Remove deletes what Apply created, as `kubefedctl unjoin` does: each
// account's binding, role, token Secret and ServiceAccount, and the
// namespace when a join created it and no other join uses it. What is
// already gone is fine.
func (j Join) Remove(ctx context.Context, client kubernetes.Interface) error {
	for _, a := range j.accounts() {
		if err := j.removeAccount(ctx, client, a); err != nil {
			return err
		}
	}
	if keep, err := j.keepNamespace(ctx, client); keep || err != nil {
		return err
	}
	ns := j.Names.Namespace
	if err := client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return j.fail("unjoin: deleting namespace "+ns, err)
	}
	return nil
}

// removeAccount deletes one account of the join.
func (j Join) removeAccount(ctx context.Context, client kubernetes.Interface, a account) error {
	ns := j.Names.Namespace
	deletes := []struct {
		what string
		del  func() error
	}{
		{"ClusterRoleBinding " + a.clusterRole, func() error {
			return client.RbacV1().ClusterRoleBindings().Delete(ctx, a.clusterRole, metav1.DeleteOptions{})
		}},
		{"ClusterRole " + a.clusterRole, func() error {
			return client.RbacV1().ClusterRoles().Delete(ctx, a.clusterRole, metav1.DeleteOptions{})
		}},
		{"the token Secret " + ns + "/" + a.tokenSecret, func() error {
			return client.CoreV1().Secrets(ns).Delete(ctx, a.tokenSecret, metav1.DeleteOptions{})
		}},
		{"ServiceAccount " + ns + "/" + a.serviceAccount, func() error {
			return client.CoreV1().ServiceAccounts(ns).Delete(ctx, a.serviceAccount, metav1.DeleteOptions{})
		}},
	}
	for _, d := range deletes {
		if err := d.del(); err != nil && !apierrors.IsNotFound(err) {
			return j.fail("unjoin: deleting "+d.what, err)
		}
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
		if a.Name != "default" && a.Name != n.ServiceAccount && a.Name != n.ReaderServiceAccount && a.DeletionTimestamp == nil {
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

// waitToken polls an account's token Secret until the member's token
// controller has written the token into it.
func (j Join) waitToken(ctx context.Context, client kubernetes.Interface, a account) (string, error) {
	timeout := j.timeout()
	ns := j.Names.Namespace
	var token string
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		// An error is remembered, not returned: the controller may replace a
		// Secret it finds stale, so the Secret may be missing for a moment.
		secret, err := client.CoreV1().Secrets(ns).Get(ctx, a.tokenSecret, metav1.GetOptions{})
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
		return "", fmt.Errorf("cluster %q: waiting for the token of ServiceAccount %s/%s: %w", j.Cluster, ns, a.serviceAccount, ctx.Err())
	}
	msg := fmt.Sprintf("cluster %q: the token Secret %s/%s was not filled within %s: the cluster's token controller "+
		"(kube-controller-manager's serviceaccount-token controller, which needs --service-account-private-key-file) "+
		"does not seem to run there; start it, or register the cluster without join, with a token of your own",
		j.Cluster, ns, a.tokenSecret, timeout)
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
