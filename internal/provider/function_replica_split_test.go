package provider_test

import (
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// Provider-defined functions need OpenTofu 1.7 or Terraform 1.8; on
// Terraform 1.5 these tests skip.
var functionsSupported = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)}

func counts(values map[string]int64) knownvalue.Check {
	checks := map[string]knownvalue.Check{}
	for cluster, n := range values {
		checks[cluster] = knownvalue.NumberExact(big.NewFloat(float64(n)))
	}
	return knownvalue.MapExact(checks)
}

func TestAccFunctionReplicaSplit(t *testing.T) {
	acctest.Lab(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   functionsSupported,
		Steps: []resource.TestStep{{
			Config: `
output "even" {
  value = provider::kubefed::replica_split(50, ["a", "b", "c"], {"*" = {weight = 1}}, {})
}
output "weighted_with_caps" {
  # KubeFed's own case: a heavy cluster capped early, the rest shared.
  value = provider::kubefed::replica_split(91, ["A", "B", "C", "D", "E"], {
    A = { weight = 10000, max_replicas = 10 }
    B = { weight = 1 }
    C = { weight = 1, max_replicas = 21 }
    D = { weight = 1, max_replicas = 10 }
    E = { weight = 1 }
  }, {})
}
output "kubefed_ten_over_three" {
  value = sort(values(provider::kubefed::replica_split(10, ["a", "b", "c"], {}, { key = "web/web" })))
}
output "balanced_ten_over_three" {
  value = sort(values(provider::kubefed::replica_split(10, ["a", "b", "c"], {}, { strategy = "balanced", key = "web/web" })))
}
output "running_replicas_stay" {
  value = provider::kubefed::replica_split(50, ["A", "B", "C"], {}, { current = { C = 30 } })
}
output "capacity_overflow" {
  value = provider::kubefed::replica_split(50, ["A", "B", "C"], {}, { rebalance = true, capacity = { C = 10 } })
}
output "capacity_without_overflow" {
  # What the preference resource plans: never more than a cluster holds.
  value = provider::kubefed::replica_split(50, ["A", "B", "C"], {}, { rebalance = true, capacity = { C = 10 }, overflow = false })
}
output "weights_from_capacity" {
  value = provider::kubefed::replica_split(12, ["a", "b", "c"], {}, {
    weight_by = "available_capacity", capacity = { a = 12, b = 6, c = 6 }
  })
}
output "at_most_two_clusters" {
  # berlin, with the least room, is left out.
  value = provider::kubefed::replica_split(12, ["sf", "ny", "berlin"], {}, { max_clusters = 2, capacity = { berlin = 2 }, key = "shop/web" })
}
output "spread_over_regions" {
  # Without the spread, the light berlin gets nothing; with it, eu gets one.
  value = provider::kubefed::replica_split(3, ["sf", "ny", "berlin"], { sf = { weight = 10 }, ny = { weight = 10 }, berlin = { weight = 1 } }, {
    key            = "shop/web"
    spread         = { by_label = "region", min_groups = 2 }
    cluster_labels = { sf = { region = "us" }, ny = { region = "us" }, berlin = { region = "eu" } }
  })
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("even", counts(map[string]int64{"a": 16, "b": 17, "c": 17})),
				statecheck.ExpectKnownOutputValue("weighted_with_caps", counts(map[string]int64{"A": 10, "B": 25, "C": 21, "D": 10, "E": 25})),
				// KubeFed rounds each share up: 4/4/2. Balanced gives 4/3/3.
				statecheck.ExpectKnownOutputValue("kubefed_ten_over_three", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("2"), knownvalue.StringExact("4"), knownvalue.StringExact("4")})),
				statecheck.ExpectKnownOutputValue("balanced_ten_over_three", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("3"), knownvalue.StringExact("3"), knownvalue.StringExact("4")})),
				statecheck.ExpectKnownOutputValue("running_replicas_stay", counts(map[string]int64{"A": 10, "B": 10, "C": 30})),
				// The final count is plan plus overflow: C plans 10 and overflows 7.
				statecheck.ExpectKnownOutputValue("capacity_overflow", counts(map[string]int64{"A": 20, "B": 20, "C": 17})),
				statecheck.ExpectKnownOutputValue("capacity_without_overflow", counts(map[string]int64{"A": 20, "B": 20, "C": 10})),
				statecheck.ExpectKnownOutputValue("weights_from_capacity", counts(map[string]int64{"a": 6, "b": 3, "c": 3})),
				statecheck.ExpectKnownOutputValue("at_most_two_clusters", counts(map[string]int64{"sf": 6, "ny": 6, "berlin": 0})),
				statecheck.ExpectKnownOutputValue("spread_over_regions", counts(map[string]int64{"sf": 2, "ny": 0, "berlin": 1})),
			},
		}},
	})
}

func TestAccFunctionReplicaSplit_badInput(t *testing.T) {
	acctest.Lab(t)
	for _, tc := range []struct {
		name, call string
		want       []string
	}{
		{"negative total", `provider::kubefed::replica_split(-1, ["a"], {}, {})`, []string{"total_replicas"}},
		{"min above max", `provider::kubefed::replica_split(5, ["a"], { a = { min_replicas = 3, max_replicas = 2 } }, {})`,
			[]string{`preferences["a"]`}},
		{"unknown strategy", `provider::kubefed::replica_split(5, ["a"], {}, { strategy = "random" })`, []string{"strategy", "random"}},
		{"weight not a number", `provider::kubefed::replica_split(5, ["a"], { a = { weight = "heavy" } }, {})`,
			[]string{`preferences["a"].weight must be a number`}},
		{"unknown preference attribute", `provider::kubefed::replica_split(5, ["a"], { a = { wieght = 1 } }, {})`,
			[]string{`preferences["a"] has no attribute "wieght"`}},
		{"negative current", `provider::kubefed::replica_split(5, ["a"], {}, { current = { a = -2 } })`, []string{"current", `"a"`}},
		{"overflow not a bool", `provider::kubefed::replica_split(5, ["a"], {}, { overflow = "no" })`, []string{"options.overflow must be a bool"}},
		{"unknown weight source", `provider::kubefed::replica_split(5, ["a"], {}, { weight_by = "luck" })`, []string{"weight_by", "luck"}},
		{"negative max_clusters", `provider::kubefed::replica_split(5, ["a"], {}, { max_clusters = -1 })`, []string{"max_clusters", "negative"}},
		{"unknown spread attribute", `provider::kubefed::replica_split(5, ["a"], {}, { spread = { by = "region" } })`,
			[]string{`options.spread has no attribute "by"`}},
		{"labels not a map of strings", `provider::kubefed::replica_split(5, ["a"], {}, { cluster_labels = { a = ["x"] } })`,
			[]string{`options.cluster_labels["a"] must be a map of strings`}},
		{"spread by a label no cluster has", `provider::kubefed::replica_split(5, ["a"], {}, { spread = { by_label = "region" } })`,
			[]string{`no candidate cluster has the label "region"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				TerraformVersionChecks:   functionsSupported,
				Steps: []resource.TestStep{{
					Config:      `output "x" { value = ` + tc.call + ` }`,
					ExpectError: acctest.ErrorMatching(tc.want...),
				}},
			})
		})
	}
}
