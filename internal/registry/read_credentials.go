package registry

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
)

// A registration may hold read credentials beside its write credentials:
// an identity on the member that may only get, list and watch what the
// federation manages there. They live in a Secret of their own,
// ReadSecretNameFor(cluster), in a namespace that holds no write credential,
// so that a planner may read every Secret of that namespace and none of the
// federation namespace. A read-only registry (WithReadCredentials) reaches
// the members with them alone.
//
//	who                                  what
//	kubefed_federation_cluster's create  writes the Secret (ApplyReadCredentials); an
//	and update                           update without read credentials removes it
//	a read-only registry (Clusters,      reads it in place of the credential Secret,
//	GetCluster)                          which it never reads
//	kubefed_federation_cluster's         removes it (ApplyReadCredentials with none) when
//	destroy                              the registration had read credentials

// DefaultReadCredentialsNamespace is where read credentials are kept when
// nothing says otherwise.
const DefaultReadCredentialsNamespace = "kube-federation-read"

// ErrReadOnly is what a read-only registry answers instead of writing.
var ErrReadOnly = errors.New("the registry is read-only: it writes nothing to the host")

// ReadSecretNameFor is the name of the Secret of a cluster's read
// credentials.
func ReadSecretNameFor(cluster string) string {
	return cluster + "-read-credentials"
}

// Credentials are what authenticates the federation to a member: a bearer
// token, or a client certificate and its key.
type Credentials struct {
	Token             string
	ClientCertificate []byte
	ClientKey         []byte
}

// Empty reports whether c holds no credential at all.
func (c Credentials) Empty() bool {
	return c.Token == "" && len(c.ClientCertificate) == 0 && len(c.ClientKey) == 0
}

// secretData is c under the keys KubeFed and kubernetes.io/tls Secrets use.
func (c Credentials) secretData() map[string][]byte {
	data := map[string][]byte{}
	if c.Token != "" {
		data[SecretKeyToken] = []byte(c.Token)
	}
	if len(c.ClientCertificate) > 0 {
		data[SecretKeyClientCertificate] = c.ClientCertificate
		data[SecretKeyClientKey] = c.ClientKey
	}
	return data
}

// WithReadCredentials returns the registry keeping read credentials in
// namespace; when readOnly, it also reads clusters with their read
// credentials instead of their write credentials, records no health and
// refuses what would write.
func (r *Registry) WithReadCredentials(namespace string, readOnly bool) *Registry {
	c := *r
	c.readNamespace, c.readOnly = namespace, readOnly
	return &c
}

// ReadOnly reports whether the registry reads with read credentials and
// writes nothing.
func (r *Registry) ReadOnly() bool { return r.readOnly }

// readNamespaceOrDefault is where the registry keeps read credentials.
func (r *Registry) readNamespaceOrDefault() string {
	if r.readNamespace == "" {
		return DefaultReadCredentialsNamespace
	}
	return r.readNamespace
}

// ApplyReadCredentials writes the read credentials of cluster to their
// Secret, creating their namespace when missing; empty credentials remove
// the Secret instead.
func (r *Registry) ApplyReadCredentials(ctx context.Context, cluster string, creds Credentials) error {
	if r.readOnly {
		return ErrReadOnly
	}
	if creds.Empty() {
		return r.deleteReadCredentials(ctx, cluster)
	}
	namespace := r.readNamespaceOrDefault()
	if err := r.ensureNamespaceNamed(ctx, namespace); err != nil {
		return err
	}
	secret := corev1apply.Secret(ReadSecretNameFor(cluster), namespace).WithType(corev1.SecretTypeOpaque).
		WithData(creds.secretData())
	if _, err := r.kubernetes.CoreV1().Secrets(namespace).Apply(ctx, secret, r.applyOptions()); err != nil {
		return fmt.Errorf("writing Secret %s/%s of cluster %q's read credentials in the host: %w", namespace,
			ReadSecretNameFor(cluster), cluster, err)
	}
	return nil
}

// deleteReadCredentials removes the Secret of cluster's read credentials;
// one already gone is no error.
func (r *Registry) deleteReadCredentials(ctx context.Context, cluster string) error {
	namespace, name := r.readNamespaceOrDefault(), ReadSecretNameFor(cluster)
	err := r.kubernetes.CoreV1().Secrets(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting Secret %s/%s of cluster %q's read credentials in the host: %w", namespace, name, cluster, err)
	}
	return nil
}

// credentialSecret is where the registry reads cluster c's credentials
// from: its credential Secret, or, read-only, its read credentials' Secret.
func (r *Registry) credentialSecret(c Cluster) (namespace, name string) {
	if r.readOnly {
		return r.readNamespaceOrDefault(), ReadSecretNameFor(c.Name)
	}
	return r.namespace, c.SecretName
}
