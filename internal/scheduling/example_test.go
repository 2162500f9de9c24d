package scheduling_test

import (
	"fmt"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
)

// Ten replicas over three equally weighted clusters: KubeFed rounds each
// share up and runs out before the last cluster, Balanced stays within one.
func ExamplePlan() {
	clusters := []string{"berlin", "new-york", "san-francisco"}
	for _, strategy := range scheduling.Strategies {
		res, err := scheduling.Plan(scheduling.Input{
			TotalReplicas: 10,
			Clusters:      clusters,
			Preferences:   map[string]scheduling.Preference{scheduling.Wildcard: {Weight: 1}},
			Key:           "shop/frontend",
			Strategy:      strategy,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-8s", strategy)
		for _, c := range clusters {
			fmt.Printf(" %s=%d", c, res.Replicas[c])
		}
		fmt.Println()
	}

	_, err := scheduling.Plan(scheduling.Input{
		TotalReplicas: 10,
		Clusters:      clusters,
		Preferences:   map[string]scheduling.Preference{"berlin": {MinReplicas: 4, MaxReplicas: new(int64(2))}},
	})
	fmt.Println(err)
	// Output:
	// kubefed  berlin=4 new-york=4 san-francisco=2
	// balanced berlin=3 new-york=4 san-francisco=3
	// preferences["berlin"]: min_replicas (4) is greater than max_replicas (2)
}

// Twelve replicas over three regions whose clusters can hold 12, 12 and 2
// more: weights from capacity, at most two clusters, and a spread over two
// regions at least.
func ExamplePlan_capacityAndSpread() {
	clusters := []string{"berlin", "new-york", "san-francisco"}
	res, err := scheduling.Plan(scheduling.Input{
		TotalReplicas: 12,
		Clusters:      clusters,
		Capacity:      map[string]int64{"berlin": 2, "new-york": 12, "san-francisco": 12},
		WeightBy:      scheduling.AvailableCapacity,
		MaxClusters:   2,
		Spread:        scheduling.Spread{ByLabel: "region", MinGroups: 2},
		ClusterLabels: map[string]map[string]string{
			"berlin":        {"region": "eu"},
			"new-york":      {"region": "us-east"},
			"san-francisco": {"region": "us-west"},
		},
		Rebalance: true,
		Key:       "shop/frontend",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range clusters {
		fmt.Printf("%s=%d\n", c, res.Replicas[c])
	}
	fmt.Println("berlin excluded:", res.Excluded["berlin"])
	// Output:
	// berlin=0
	// new-york=6
	// san-francisco=6
	// berlin excluded: region=eu ranks below the 2 groups chosen ("us-east", "us-west")
}
