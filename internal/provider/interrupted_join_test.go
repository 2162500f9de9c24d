package provider_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// A join killed after it made its accounts on the member and before the
// cluster was registered (the process ends there, as one killed would)
// leaves them recorded in the host: the join's record on the cluster's
// credential Secret was written before the member's first write. Taken out
// of the configuration, the next plan names what is left on the member and
// how to end it; put back, the apply completes the join, the plan after is
// empty, and the destroy leaves nothing on the member or the host.
func TestAccInterruptedJoin_recordedNamedAndCompleted(t *testing.T) {
	lab := acctest.Lab(t)
	const cluster = "ij-berlin"
	names := member.NewJoinNames(federationNamespace, cluster, "host")
	cleanupJoin(t, "berlin", names)
	host := newHostClients(t)
	ctx := context.Background()
	t.Cleanup(func() {
		deleteClusters(t, host, cluster)
		_ = host.kube.CoreV1().Secrets(federationNamespace).Delete(ctx, cluster+"-credentials", metav1.DeleteOptions{})
	})
	ws := acctest.NewWorkspace(t)
	base := acctest.HostProviderConfig(t) + joinTypes
	joined := base + joinedCluster(t, cluster, "kubefed_federated_type.configmaps.name", `    host_cluster_name = "host"`)
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })

	ws.Write(joined)
	if code, out := ws.RunWith([]string{"KUBEFED_TEST_EXIT_AFTER_JOIN=" + cluster}, "apply", "-auto-approve", "-input=false", "-no-color"); code == 0 {
		t.Fatalf("the apply with the provider killed after the join succeeded:\n%s", out)
	}
	if list := ws.MustRun(0, "state", "list", "-no-color"); strings.Contains(list, "kubefed_federation_cluster.joined") {
		t.Fatalf("the cut-off create reached the state, so this test proves nothing:\n%s", list)
	}
	if err := checkJoinedAccount(t, "berlin", names)(nil); err != nil {
		t.Fatalf("the killed apply made no account on the member, so this test proves nothing: %v", err)
	}
	if _, err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).Get(ctx, cluster, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the cluster was registered before the kill (err %v), so this test proves nothing", err)
	}
	secret, err := host.kube.CoreV1().Secrets(federationNamespace).Get(ctx, cluster+"-credentials", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the host holds no record of the join: %v", err)
	}
	if record := secret.Annotations[registry.JoinAnnotation]; !strings.Contains(record, names.Namespace+"/"+names.ServiceAccount) {
		t.Fatalf("the join's record %q does not name its account", record)
	}

	ws.Write(base)
	out := ws.MustRun(0, "plan", "-input=false", "-no-color")
	for _, want := range []string{`The join of cluster "` + cluster + `" is left on its member`, lab.Cluster("berlin").URL, names.ClusterRole,
		names.ReaderServiceAccount, cluster + "-credentials"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the plan does not name %q of the interrupted join:\n%s", want, out)
		}
	}

	ws.Write(joined)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if err := checkJoinedAccount(t, "berlin", names)(nil); err != nil {
		t.Error(err)
	}

	ws.Write(base)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	if err := checkUnjoined(t, "berlin", names); err != nil {
		t.Error(err)
	}
	if _, err := host.kube.CoreV1().Secrets(federationNamespace).Get(ctx, cluster+"-credentials", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the join's record outlived the destroy (err %v)", err)
	}
}
