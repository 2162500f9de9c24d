package lab

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ServiceAccountToken returns a token for the service account namespace/name
// of the named cluster, minted through the TokenRequest API. It creates the
// namespace and the service account when missing (no controller creates a
// service account by name), but grants nothing: the token has exactly the
// rights the caller binds to the account, which makes it the way to test
// least-privilege credentials.
func (l *Lab) ServiceAccountToken(ctx context.Context, cluster, namespace, name string, expiration time.Duration) (string, error) {
	c := l.Cluster(cluster)
	if c.Name == "" {
		return "", fmt.Errorf("no cluster %q in this lab", cluster)
	}
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		return "", err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("cluster %s: creating namespace %s: %w", cluster, namespace, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if _, err := cs.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("cluster %s: creating service account %s/%s: %w", cluster, namespace, name, err)
	}
	req := &authenticationv1.TokenRequest{}
	if expiration > 0 {
		secs := int64(expiration / time.Second)
		req.Spec.ExpirationSeconds = &secs
	}
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, req, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("cluster %s: requesting a token for %s/%s: %w", cluster, namespace, name, err)
	}
	return tr.Status.Token, nil
}
