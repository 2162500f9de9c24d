package provider_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// A KubeFedCluster deleted by hand leaves its credential Secret, with the
// member's token, in the host: a plan registers the cluster again, and a
// destroy removes the Secret rather than forgetting the resource.
func TestAccFederationCluster_registrationDeletedByHand(t *testing.T) {
	acctest.Lab(t)
	const name = "gone-berlin"
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, name) })
	deleteByHand := func() {
		err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).Delete(context.Background(), name, metav1.DeleteOptions{})
		if err != nil {
			t.Fatalf("deleting KubeFedCluster %s by hand: %v", name, err)
		}
	}
	secretGone := func(*terraform.State) error {
		_, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), name+"-credentials", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("the credential Secret %s-credentials, with the member's token, is still in the host", name)
	}
	config := acctest.HostProviderConfig(t) + memberBlock("berlin", name, "berlin", "")(t)
	endpoint := acctest.Lab(t).Cluster("berlin").URL
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				// The plan registers the cluster again, in place.
				PreConfig: deleteByHand,
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kubefed_federation_cluster.berlin", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("kubefed_federation_cluster.berlin", tfjsonpath.New("api_endpoint"), knownvalue.StringExact(endpoint)),
				}},
				Check: func(*terraform.State) error {
					_, err := host.get(kubeFedClusters, federationNamespace, name)
					return err
				},
			},
			{
				// Deleted again, then destroyed: the closing destroy must
				// remove the Secret.
				PreConfig:          deleteByHand,
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
		CheckDestroy: secretGone,
	})
}
