package provider_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// A registration repointed by hand in the host at another member (its
// endpoint, CA and token edited) keeps the identity it recorded: the next
// apply's writes there fail naming both identities, and nothing is
// written to that member.
func TestAccIdentity_repointedRegistrationReceivesNoWrite(t *testing.T) {
	l := acctest.Lab(t)
	const name = "idw-moved"
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, name) })
	berlin, newYork := memberIdentity(t, "berlin"), memberIdentity(t, "new-york")
	config := func(level string) string {
		return acctest.HostProviderConfig(t) + memberBlock("moved", name, "berlin", "  lifecycle {\n    ignore_changes = all\n  }")(t) + `
resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
}

resource "kubefed_federated_object" "settings" {
  type       = kubefed_federated_type.configmaps.name
  template   = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "idw-settings", namespace = "default" }, data = { LEVEL = "` + level + `" } })
  placement  = { clusters = [kubefed_federation_cluster.moved.name] }
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("info")},
			{
				PreConfig: func() { repoint(t, host, name, l.Cluster("new-york")) },
				Config:    config("warn"),
				ExpectError: acctest.ErrorMatching(`cluster "`+name+`" answers as another cluster`, "UID "+newYork,
					"the registration recorded "+berlin, "nothing was written to it"),
			},
			{
				PreConfig: func() {
					if _, err := memberAdmin(t, "new-york").CoreV1().ConfigMaps("default").Get(context.Background(), "idw-settings", metav1.GetOptions{}); err == nil {
						t.Error("new-york received the object meant for berlin")
					}
					cm, err := memberAdmin(t, "berlin").CoreV1().ConfigMaps("default").Get(context.Background(), "idw-settings", metav1.GetOptions{})
					if err != nil || cm.Data["LEVEL"] != "info" {
						t.Errorf("berlin holds %v (%v), want LEVEL=info as the first apply left it", cm, err)
					}
					repoint(t, host, name, l.Cluster("berlin"))
				},
				Config: config("warn"),
			},
		},
	})
}

// A registration whose endpoint now answers as another cluster than the
// one it recorded (the cluster behind a stable address rebuilt or
// swapped, made here by recording berlin's identity for a registration of
// new-york) is refused by an update that leaves the endpoint as it is, so
// the plan has nothing new to probe: apply compares, names both
// identities and changes nothing in the host. require_ready = false moves
// the name on purpose.
func TestAccIdentity_updateReachingAnotherClusterIsRefusedAtApply(t *testing.T) {
	const name = "idu-swapped"
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, name) })
	berlin, newYork := memberIdentity(t, "berlin"), memberIdentity(t, "new-york")
	config := func(tier string, requireReady bool) string {
		return acctest.HostProviderConfig(t) + memberBlock("swapped", name, "new-york",
			fmt.Sprintf("  labels        = { tier = %q }\n  require_ready = %t", tier, requireReady))(t)
	}
	recorded := func(wantTier, wantIdentity string) {
		t.Helper()
		obj, err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := obj.GetLabels()["tier"]; got != wantTier {
			t.Errorf("the host records tier %q, want %q", got, wantTier)
		}
		if got := obj.GetAnnotations()[registry.IdentityAnnotation]; got != wantIdentity {
			t.Errorf("the host records identity %q, want %q", got, wantIdentity)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("one", true)},
			{
				PreConfig: func() {
					recorded("one", newYork)
					patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, registry.IdentityAnnotation, berlin)
					if _, err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).Patch(context.Background(), name,
						k8stypes.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("two", true),
				ExpectError: acctest.ErrorMatching(`Cannot update the registration of cluster "`+name+`"`, "UID "+newYork,
					"recorded "+berlin, "was not changed", "require_ready = false"),
			},
			{
				PreConfig: func() { recorded("one", berlin) },
				Config:    config("two", false),
				Check: func(*terraform.State) error {
					recorded("two", newYork)
					return nil
				},
			},
		},
	})
}

// memberIdentity is the UID of the member's kube-system namespace.
func memberIdentity(t *testing.T, member string) string {
	t.Helper()
	ns, err := memberAdmin(t, member).CoreV1().Namespaces().Get(context.Background(), "kube-system", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(ns.UID)
}

// repoint edits the registration called name in the host, as someone with
// kubectl would, to reach to: its endpoint, its CA and its Secret's token.
func repoint(t *testing.T, host hostClients, name string, to lab.Cluster) {
	ctx := context.Background()
	spec := fmt.Sprintf(`{"spec":{"apiEndpoint":%q,"caBundle":%q}}`, to.URL, base64.StdEncoding.EncodeToString(to.CAPEM))
	if _, err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).Patch(ctx, name, k8stypes.MergePatchType,
		[]byte(spec), metav1.PatchOptions{}); err != nil {
		t.Error(err)
	}
	token := fmt.Sprintf(`{"data":{"token":%q}}`, base64.StdEncoding.EncodeToString([]byte(to.Token)))
	if _, err := host.kube.CoreV1().Secrets(federationNamespace).Patch(ctx, name+"-credentials", k8stypes.MergePatchType,
		[]byte(token), metav1.PatchOptions{}); err != nil {
		t.Error(err)
	}
}
