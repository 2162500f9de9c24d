package provider_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// A joined cluster gets its read credentials from the join: a read-only
// account on the member whose token may list the federated types and
// write nothing. kubefed-planner, with read_only = true, plans a changed
// template on the joined cluster with it; its apply fails naming
// read_only. The destroy removes the account and the host's read Secret.
func TestAccReadOnly_joinedClusterPlansWithTheJoinsReadOnlyAccount(t *testing.T) {
	acctest.Lab(t)
	const cluster = "ro-joined"
	names := member.NewJoinNames(federationNamespace, cluster, "host")
	cleanupJoin(t, "berlin", names)
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, cluster) })
	planner := plannerProvider(t, host)
	config := func(provider, level string) string {
		return provider + joinTypes + joinedCluster(t, cluster,
			"kubefed_federated_type.namespaces.name, kubefed_federated_type.configmaps.name, kubefed_federated_type.deployments.name",
			`    host_cluster_name = "host"`) + `
resource "kubefed_federated_object" "settings" {
  type      = kubefed_federated_type.configmaps.name
  template  = yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "ro-joined-settings", namespace = "default" }, data = { LEVEL = "` + level + `" } })
  placement = { clusters = [kubefed_federation_cluster.joined.name] }
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(acctest.HostProviderConfig(t), "info"),
				Check: func(*terraform.State) error {
					if err := checkJoinedReader(t, "berlin", cluster, names); err != nil {
						return err
					}
					return checkReaderOnlyReads(t, "berlin", names)
				},
			},
			{
				Config: config(planner, "warn"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kubefed_federated_object.settings", plancheck.ResourceActionUpdate),
					expectRendered("kubefed_federated_object.settings", true,
						map[string]knownvalue.Check{cluster: knownvalue.StringRegexp(regexp.MustCompile(`"LEVEL":"warn"`))}),
				}},
				ExpectError: acctest.ErrorMatching("the provider is read-only", "read_only = true"),
			},
			{
				// Nothing was written: the state plans nothing with the
				// provider that may write.
				Config:   config(acctest.HostProviderConfig(t), "info"),
				PlanOnly: true,
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if err := checkUnjoined(t, "berlin", names); err != nil {
				return err
			}
			_, err := host.kube.CoreV1().Secrets(readCredentialsNamespace).Get(context.Background(), cluster+"-read-credentials", metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("the read credentials of %s are still in the host (err %w)", cluster, err)
			}
			return nil
		},
	})
}

// checkReaderOnlyReads checks, with the token of the join's read-only
// account, that the member lets it list ConfigMaps and create none.
func checkReaderOnlyReads(t *testing.T, memberName string, names member.JoinNames) error {
	ctx := context.Background()
	secret, err := memberAdmin(t, memberName).CoreV1().Secrets(names.Namespace).Get(ctx, names.ReaderTokenSecret, metav1.GetOptions{})
	if err != nil {
		return err
	}
	c := acctest.Lab(t).Cluster(memberName)
	reader, err := kubernetes.NewForConfig(&rest.Config{Host: c.URL, BearerToken: string(secret.Data["token"]),
		TLSClientConfig: rest.TLSClientConfig{CAData: c.CAPEM}})
	if err != nil {
		return err
	}
	if _, err := reader.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err != nil {
		return fmt.Errorf("the read-only account may not list ConfigMaps: %w", err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ro-joined-written", Namespace: "default"}}
	if _, err := reader.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		return fmt.Errorf("the read-only account's create of a ConfigMap answered %w, want forbidden", err)
	}
	return nil
}
