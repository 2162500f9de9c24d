package provider_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// A team keeps its state in the host with the CLI's kubernetes backend, as
// the running-in-ci guide says: the state is a Secret there, a Lease locks
// it, and of two applies at once one is refused or waits, and neither loses
// what the other did.
func TestAccStateBackend_kubernetesSecretAndLease(t *testing.T) {
	acctest.Lab(t)
	host := newHostClients(t)
	prefix, ns := "state", uniqueName("state")
	cleanupObjectTest(t, prefix, ns)
	stateNamespace, suffix := createStateNamespace(t, host), "federation"
	alice, bob := acctest.NewMirrorWorkspace(t), acctest.NewMirrorWorkspace(t)
	config := func(configMaps ...string) string {
		return stateBackendConfig(t, stateNamespace, suffix) + acctest.HostProviderConfig(t) + objectTestTypes +
			objectTestClusters(t, prefix) + federatedNamespace(ns) + stateTestConfigMaps(ns, configMaps)
	}
	t.Cleanup(func() {
		alice.Write(config())
		alice.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})

	alice.Write(config("alice"))
	alice.MustRun(0, "init", "-input=false", "-no-color")
	alice.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	ctx := context.Background()
	stateSecret := "tfstate-default-" + suffix
	secret, err := host.kube.CoreV1().Secrets(stateNamespace).Get(ctx, stateSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the state Secret %s/%s after the first apply: %v", stateNamespace, stateSecret, err)
	}
	if len(secret.Data["tfstate"]) == 0 {
		t.Fatalf("the state Secret %s/%s holds no tfstate: keys %v", stateNamespace, stateSecret, keysOf(secret.Data))
	}

	// Bob's workspace shares the state: it sees Alice's objects at once.
	bob.Write(config("alice", "bob"))
	bob.MustRun(0, "init", "-input=false", "-no-color")
	if out := bob.MustRun(0, "state", "list", "-no-color"); !strings.Contains(out, "kubefed_federated_object.cm[\"alice\"]") {
		t.Fatalf("bob's workspace does not list alice's ConfigMap from the shared state:\n%s", out)
	}

	// Alice changes her ConfigMap and holds the lock at apply's prompt.
	alice.Write(config("alice", "alice-2"))
	aliceApply := startApply(t, alice, "apply", "-no-color")
	aliceApply.waitFor(t, "Enter a value:")
	leaseHolder(t, host, stateNamespace, "lock-"+stateSecret)

	code, out := bob.Run("apply", "-auto-approve", "-input=false", "-no-color", "-lock-timeout=0s")
	if code == 0 || !acctest.ErrorMatching("Error acquiring the state lock").MatchString(out) {
		t.Fatalf("an apply while alice holds the lock exited %d, want a failure on the lock:\n%s", code, out)
	}
	bobApply := startApply(t, bob, "apply", "-auto-approve", "-input=false", "-no-color", "-lock-timeout=3m")
	bobApply.waitFor(t, "Acquiring state lock")
	select {
	case out := <-bobApply.done:
		t.Fatalf("bob's apply ended while alice held the lock:\n%s", out)
	default:
	}
	if _, err := io.WriteString(aliceApply.stdin, "yes\n"); err != nil {
		t.Fatal(err)
	}
	if out := <-aliceApply.done; !strings.Contains(out, "Apply complete! Resources: 1 added") {
		t.Fatalf("alice's apply, once approved:\n%s", out)
	}
	// Bob's configuration has bob's ConfigMap, not alice-2: his apply, which
	// can only plan once alice's has written the state and let go, adds
	// bob's and removes alice-2.
	if out := <-bobApply.done; !strings.Contains(out, "Apply complete! Resources: 1 added, 0 changed, 1 destroyed") {
		t.Fatalf("bob's apply, after waiting for the lock:\n%s", out)
	}

	want := []string{`kubefed_federated_object.cm["alice"]`, `kubefed_federated_object.cm["bob"]`}
	listed := alice.MustRun(0, "state", "list", "-no-color")
	for _, address := range want {
		if !strings.Contains(listed, address) {
			t.Errorf("the shared state lacks %s:\n%s", address, listed)
		}
	}
	if strings.Contains(listed, `cm["alice-2"]`) {
		t.Errorf("the shared state still holds alice-2, which bob's apply removed:\n%s", listed)
	}
	for _, name := range []string{"alice", "bob"} {
		for _, member := range []string{"san-francisco", "new-york", "berlin"} {
			if _, err := memberObject(t, member, configMapsGVR, ns, name); err != nil {
				t.Errorf("ConfigMap %s/%s on %s: %v", ns, name, member, err)
			}
		}
	}
	if err := checkMemberAbsent(t, "berlin", configMapsGVR, ns, "alice-2")(nil); err != nil {
		t.Error(err)
	}
	alice.Write(config("alice", "bob"))
	if code, out := alice.Run("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Errorf("a plan of bob's configuration from alice's workspace exited %d, want an empty plan:\n%s", code, out)
	}
}

// stateBackendConfig keeps the state in the host, in namespace, as the
// running-in-ci guide shows.
func stateBackendConfig(t *testing.T, namespace, suffix string) string {
	host := acctest.Lab(t).Host()
	return fmt.Sprintf(`
terraform {
  backend "kubernetes" {
    config_path    = %q
    config_context = %q
    namespace      = %q
    secret_suffix  = %q
  }
}
`, host.KubeconfigPath, host.Context, namespace, suffix)
}

// stateTestConfigMaps federates one ConfigMap per name to the test's
// clusters.
func stateTestConfigMaps(ns string, names []string) string {
	quoted := make([]string, len(names))
	for i, name := range names {
		quoted[i] = fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf(`
resource "kubefed_federated_object" "cm" {
  for_each   = toset([%s])
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = each.key, namespace = %q }, data = { owner = each.key } })
  placement  = { cluster_selector = { match_labels = { fotest = kubefed_federation_cluster.sf.labels.fotest } } }
  depends_on = [kubefed_federated_object.ns]
}
`, strings.Join(quoted, ", "), ns)
}

// createStateNamespace makes the host namespace the state lives in, and
// removes it after the test.
func createStateNamespace(t *testing.T, host hostClients) string {
	t.Helper()
	name := uniqueName("tfstate")
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := host.kube.CoreV1().Namespaces().Create(context.Background(), namespace, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		err := host.kube.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("removing the state namespace %s: %v", name, err)
		}
	})
	return name
}

// runningApply is a CLI child process the test talks to while it runs.
type runningApply struct {
	stdin  io.WriteCloser
	output *lockedBuffer
	done   <-chan string // the whole output, once the process has ended
}

// startApply starts the CLI with args, its stdin open for a prompt's answer.
func startApply(t *testing.T, ws *acctest.Workspace, args ...string) runningApply {
	t.Helper()
	cmd := ws.Command(args...)
	output := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = output, output
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		_ = cmd.Wait()
		done <- output.String()
	}()
	t.Cleanup(func() { _ = stdin.Close() })
	return runningApply{stdin: stdin, output: output, done: done}
}

// waitFor waits until the output shows text, for up to two minutes.
func (a runningApply) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(a.output.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the CLI's output does not show %q:\n%s", text, a.output.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// leaseHolder fails the test unless the lock Lease has a holder.
func leaseHolder(t *testing.T, host hostClients, namespace, name string) {
	t.Helper()
	lease, err := host.kube.CoordinationV1().Leases(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the lock Lease %s/%s while an apply holds the lock: %v", namespace, name, err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Fatalf("the lock Lease %s/%s has no holder while an apply holds the lock", namespace, name)
	}
}

func keysOf(data map[string][]byte) []string {
	keys := make([]string, 0, len(data))
	for key := range data {
		keys = append(keys, key)
	}
	return keys
}

// lockedBuffer collects a child process's output while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
