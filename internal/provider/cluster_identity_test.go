package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// A registration records the identity of the cluster it reaches (its
// kube-system namespace's UID); a plan that points the registration at
// another cluster, healthy and with valid credentials, fails naming both
// identities, while a change that still reaches the same cluster plans
// and applies.
func TestAccFederationCluster_anotherClustersIdentity(t *testing.T) {
	acctest.Lab(t)
	const name = "idn-moved"
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, name) })
	identity := func(member string) string {
		ns, err := memberAdmin(t, member).CoreV1().Namespaces().Get(context.Background(), "kube-system", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return string(ns.UID)
	}
	berlin, newYork := identity("berlin"), identity("new-york")
	recorded := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			c, err := host.get(kubeFedClusters, federationNamespace, name)
			if err != nil {
				return err
			}
			if got := c.GetAnnotations()["kubefed.terraform.io/cluster-identity"]; got != want {
				return fmt.Errorf("KubeFedCluster %s records identity %q, want %q", name, got, want)
			}
			return nil
		}
	}
	config := func(member, extra string) string {
		return acctest.HostProviderConfig(t) + memberBlock("moved", name, member, extra)(t)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("berlin", ""), Check: recorded(berlin)},
			{
				Config: config("new-york", ""),
				ExpectError: acctest.ErrorMatching(`Cluster "`+name+`" answers as another cluster`, "UID "+newYork,
					`registered as "`+name+`" had `+berlin, "Fix api_endpoint"),
			},
			{
				// Another way to the same cluster is no other cluster.
				Config: config("berlin", `  disabled_tls_validations = ["SubjectName"]`),
				Check:  recorded(berlin),
			},
		},
	})
}
