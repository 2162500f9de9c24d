package provider_test

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/provider"
)

func TestMain(m *testing.M) {
	acctest.Main(m)
}

var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"kubefed": provider.Server("test"),
}

const readClusters = `
data "kubefed_clusters" "all" {}
`

func TestAccProvider_kubeconfigContext(t *testing.T) {
	provider.FederationHost(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.HostProviderConfig(t) + readClusters,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kubefed_clusters.all", tfjsonpath.New("names"), knownvalue.NotNull()),
			},
		}},
	})
}

func TestAccProvider_inlineCredentials(t *testing.T) {
	provider.FederationHost(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: inlineProvider(t, acctest.Lab(t).Host().URL, acctest.Lab(t).Host().Token, string(acctest.Lab(t).Host().CAPEM)) + readClusters,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kubefed_clusters.all", tfjsonpath.New("names"), knownvalue.NotNull()),
			},
		}},
	})
}

func TestAccProvider_wrongToken(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      inlineProvider(t, acctest.Lab(t).Host().URL, "not-the-token", string(acctest.Lab(t).Host().CAPEM)) + readClusters,
			ExpectError: acctest.ErrorMatching("rejected the credentials (401 Unauthorized)", "check token"),
		}},
	})
}

func TestAccProvider_wrongCA(t *testing.T) {
	// Another cluster's CA: a valid PEM that did not sign the host's certificate.
	otherCA := string(acctest.Lab(t).Members()[0].CAPEM)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      inlineProvider(t, acctest.Lab(t).Host().URL, acctest.Lab(t).Host().Token, otherCA) + readClusters,
			ExpectError: acctest.ErrorMatching("TLS verification of the API server at", "failed", "cluster_ca_certificate"),
		}},
	})
}

func TestAccProvider_unreachableHost(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			// Port 1 on loopback: nothing listens there, so the connection is refused at once.
			Config:      inlineProvider(t, "https://127.0.0.1:1", "token", string(acctest.Lab(t).Host().CAPEM)) + readClusters,
			ExpectError: acctest.ErrorMatching("cannot reach the API server at https://127.0.0.1:1", "check host"),
		}},
	})
}

func TestAccProvider_nothingConfigured(t *testing.T) {
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_HOST", "KUBE_CTX", "KUBE_TOKEN"} {
		if _, set := os.LookupEnv(env); set {
			t.Setenv(env, "")
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      `provider "kubefed" {}` + readClusters,
			ExpectError: acctest.ErrorMatching("does not know which host cluster to use", "set config_path"),
		}},
	})
}

func inlineProvider(t *testing.T, host, token, ca string) string {
	t.Helper()
	return `
provider "kubefed" {
  host                   = ` + acctest.Quote(host) + `
  token                  = ` + acctest.Quote(token) + `
  cluster_ca_certificate = ` + acctest.Quote(ca) + `
}
`
}

// A host created in the same run: its address is unknown while planning, so
// resources plan unknown values instead of failing, and apply uses the host
// once it is known.
func TestAccProvider_hostKnownOnlyAtApply(t *testing.T) {
	host := acctest.Lab(t).Host()
	namespace := uniqueName("unknown-host")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
resource "terraform_data" "host" {
  input = ` + acctest.Quote(host.URL) + `
}

provider "kubefed" {
  host                   = terraform_data.host.output
  token                  = ` + acctest.Quote(host.Token) + `
  cluster_ca_certificate = ` + acctest.Quote(string(host.CAPEM)) + `
}

resource "kubefed_replica_scheduling_preference" "web" {
  namespace      = ` + acctest.Quote(namespace) + `
  name           = "web"
  total_replicas = 3
  cluster_selector = {
    match_labels = { selects = "nothing" }
  }
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("kubefed_replica_scheduling_preference.web", tfjsonpath.New("replicas")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				// No cluster matches: the three replicas stay unplaced.
				statecheck.ExpectKnownValue("kubefed_replica_scheduling_preference.web", tfjsonpath.New("unplaced_replicas"), knownvalue.Int64Exact(3)),
			},
		}},
	})
}
