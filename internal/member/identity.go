package member

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// identityNamespace is the namespace whose UID tells one cluster from
// another: every cluster has it from its first start, and it keeps its UID
// whatever the cluster's endpoint, certificates or credentials become.
const identityNamespace = "kube-system"

// Identity is the UID of the member's kube-system namespace, read with the
// member's own TLS settings and credentials within ProbeTimeout. Credentials
// that may not read that namespace get an error, and the cluster no
// identity.
func Identity(ctx context.Context, name string, conn Connection) (string, error) {
	cfg, err := conn.RESTConfig()
	if err != nil {
		return "", fmt.Errorf("cluster %q: %w", name, err)
	}
	cfg.Timeout = ProbeTimeout
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return "", fmt.Errorf("cluster %q: %w", name, err)
	}
	defer httpClient.CloseIdleConnections()
	client, err := kubernetes.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return "", fmt.Errorf("cluster %q: %w", name, err)
	}
	ns, err := client.CoreV1().Namespaces().Get(ctx, identityNamespace, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("cluster %q: reading namespace %s: %w", name, identityNamespace, err)
	}
	return string(ns.UID), nil
}

// OtherCluster reports whether a member that answers with identity
// answered is another cluster than the one recorded: both must be known.
func OtherCluster(recorded, answered string) bool {
	return recorded != "" && answered != "" && recorded != answered
}
