package registry

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// SecretConnectionAnnotation records, on the credential Secret the provider
// writes for a cluster, how the cluster is reached besides the Secret's
// credentials: the cluster's name and its KubeFedCluster's endpoint, CA,
// disabled TLS checks, proxy and identity, as JSON. A KubeFedCluster deleted by hand
// takes that away while the Secret stays; with the annotation, destroying
// the objects placed on the cluster still reaches it to remove them.
// KubeFed reads only the Secret's data.
//
//	who                                  what
//	RegisterCluster and ApplyCluster     write it with the Secret's data
//	(kubefed_federation_cluster's
//	create and update)
//	UnregisteredCluster (the destroy of  reads it, for a cluster the host no longer
//	a federated object)                  registers
//	DeleteCluster (the cluster's         removes it, with the Secret
//	destroy)
const SecretConnectionAnnotation = "kubefed.terraform.io/connection"

// secretConnection is the value of SecretConnectionAnnotation.
type secretConnection struct {
	Cluster                string   `json:"cluster"`
	APIEndpoint            string   `json:"apiEndpoint"`
	CABundle               []byte   `json:"caBundle,omitempty"`
	DisabledTLSValidations []string `json:"disabledTLSValidations,omitempty"`
	ProxyURL               string   `json:"proxyURL,omitempty"`
	// Identity is the cluster's IdentityAnnotation, which goes with the
	// KubeFedCluster: a removal through the Secret confirms it too.
	Identity string `json:"identity,omitempty"`
}

// connectionAnnotation is the SecretConnectionAnnotation of c's Secret.
func connectionAnnotation(c Cluster) (string, error) {
	raw, err := json.Marshal(secretConnection{
		Cluster: c.Name, APIEndpoint: c.Connection.APIEndpoint, CABundle: c.Connection.CABundle,
		DisabledTLSValidations: c.Connection.DisabledTLSValidations, ProxyURL: c.Connection.ProxyURL, Identity: c.Identity,
	})
	return string(raw), err
}

// UnregisteredCluster is how to reach a cluster whose KubeFedCluster is gone
// from the host while its credential Secret, written by the provider, is
// still there: the Secret's credentials and the connection its
// SecretConnectionAnnotation recorded. It returns ErrNotFound when no Secret
// of the federation namespace records the cluster.
func (r *Registry) UnregisteredCluster(ctx context.Context, name string) (*Cluster, error) {
	if r.readOnly {
		return nil, fmt.Errorf("cluster %q is no longer registered, and its credential Secret is not read: %w", name, ErrReadOnly)
	}
	secrets, err := r.kubernetes.CoreV1().Secrets(r.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Secrets in namespace %q of the host for cluster %q's credentials: %w", r.namespace, name, err)
	}
	for _, s := range secrets.Items {
		raw, ok := s.Annotations[SecretConnectionAnnotation]
		if !ok {
			continue
		}
		var recorded secretConnection
		if err := json.Unmarshal([]byte(raw), &recorded); err != nil || recorded.Cluster != name || recorded.APIEndpoint == "" {
			continue
		}
		c := &Cluster{Name: name, SecretName: s.Name, Identity: recorded.Identity, Connection: member.Connection{
			APIEndpoint: recorded.APIEndpoint, CABundle: recorded.CABundle,
			DisabledTLSValidations: recorded.DisabledTLSValidations, ProxyURL: recorded.ProxyURL,
		}}
		c.setCredentials(s.Data)
		return c, nil
	}
	return nil, fmt.Errorf("no credential Secret of cluster %q in namespace %q of the host: %w", name, r.namespace, ErrNotFound)
}
