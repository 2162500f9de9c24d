package member

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
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

// OtherClusterError is a member that answers as another cluster than the
// one its registration recorded: the writes meant for the registered
// cluster would land there.
type OtherClusterError struct {
	Cluster, Recorded, Answered string
}

func (e *OtherClusterError) Error() string {
	return fmt.Sprintf("cluster %q answers as another cluster: its kube-system namespace has UID %s, where the registration "+
		"recorded %s, so nothing was written to it. Point the registration (its api_endpoint and credentials) back at the "+
		"cluster it names; to move the name to another cluster on purpose, destroy the registration and register that "+
		"cluster anew", e.Cluster, e.Answered, e.Recorded)
}

// ConfirmIdentity decides whether a member may be written to: the identity
// its registration recorded and the one it answers (or why it could not be
// read) must match. A registration that recorded none has nothing to
// compare, as before identities were recorded.
func ConfirmIdentity(cluster, recorded, answered string, readErr error) error {
	switch {
	case recorded == "":
		return nil
	case readErr != nil:
		return fmt.Errorf("cannot confirm that cluster %q is the one registered (its kube-system namespace had UID %s), so "+
			"nothing was written to it: %w. The federation's credentials there must be able to get namespace %s, as at "+
			"registration", cluster, recorded, readErr, identityNamespace)
	case answered != recorded:
		return &OtherClusterError{Cluster: cluster, Recorded: recorded, Answered: answered}
	}
	return nil
}

// sharedIdentity is the identity a member answered once in a run.
type sharedIdentity struct {
	once     sync.Once
	answered string
	err      error
}

// Confirm reads the member's identity through its shared clients, once per
// run and connection, and decides with ConfirmIdentity whether it is the
// cluster whose identity its registration recorded. Callers confirm before
// their first write to the member.
func (p *Pool) Confirm(ctx context.Context, name string, conn Connection, recorded string) error {
	if recorded == "" {
		return nil
	}
	key := name + "\x00" + connectionKey(conn)
	p.mu.Lock()
	shared, ok := p.identities[key]
	if !ok {
		shared = &sharedIdentity{}
		p.identities[key] = shared
	}
	p.mu.Unlock()
	shared.once.Do(func() {
		clients, err := p.Clients(name, conn)
		if err != nil {
			shared.err = err
			return
		}
		ns, err := clients.Kubernetes.CoreV1().Namespaces().Get(kube.WithCluster(ctx, name), identityNamespace, metav1.GetOptions{})
		if err != nil {
			shared.err = fmt.Errorf("reading namespace %s: %w", identityNamespace, err)
			return
		}
		shared.answered = string(ns.UID)
	})
	return ConfirmIdentity(name, recorded, shared.answered, shared.err)
}

// ConfirmRegistrationUpdate decides whether an update of a registration
// may write the new endpoint and credentials: they must reach the cluster
// whose identity the registration recorded, read when the update probed
// them. Only require_ready = false (moving the name to another cluster on
// purpose, or registering one that cannot answer) skips the comparison; a
// registration that recorded no identity has nothing to compare.
func ConfirmRegistrationUpdate(cluster, recorded, answered string, readErr error, requireReady bool) error {
	switch {
	case !requireReady || recorded == "":
		return nil
	case readErr != nil:
		return fmt.Errorf("cannot confirm that the updated endpoint and credentials reach cluster %q, the one registered (its "+
			"kube-system namespace had UID %s): %w. The registration was not changed. Grant the new credentials get on "+
			"namespace %s, or set require_ready = false for the apply that changes them", cluster, recorded, readErr, identityNamespace)
	case answered != recorded:
		return fmt.Errorf("the updated endpoint and credentials of cluster %q reach another cluster: its kube-system namespace "+
			"has UID %s, where the registration recorded %s. The registration was not changed. Fix api_endpoint (or the "+
			"credentials) to reach the registered cluster; to move the name to another cluster on purpose, set "+
			"require_ready = false for that apply, or destroy the registration and register the other cluster anew",
			cluster, answered, recorded)
	}
	return nil
}
