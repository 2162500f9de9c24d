package scheduling

import (
	"strconv"
	"testing"
)

// bigFederation is 1,000 clusters: most share the wildcard preference, every
// tenth has a weight of its own, every seventh a maximum and every fifth a
// capacity estimate, so that passes, maximums and capacities all play a part.
func bigFederation(s Strategy) Input {
	in := Input{
		TotalReplicas: 25_000,
		Preferences:   map[string]Preference{Wildcard: {MinReplicas: 1, Weight: 1}},
		Current:       map[string]int64{},
		Capacity:      map[string]int64{},
		Key:           "prod/frontend",
		Strategy:      s,
	}
	for i := range 1000 {
		name := "cluster-" + strconv.Itoa(i)
		in.Clusters = append(in.Clusters, name)
		if i%10 == 0 {
			in.Preferences[name] = Preference{MinReplicas: 2, Weight: int64(1 + i%7)}
		}
		if i%7 == 0 {
			in.Preferences[name] = Preference{Weight: 3, MaxReplicas: ptr(int64(5 + i%11))}
		}
		if i%5 == 0 {
			in.Capacity[name] = int64(10 + i%13)
		}
		if i%3 == 0 {
			in.Current[name] = int64(i % 40)
		}
	}
	return in
}

func BenchmarkPlan1000Clusters(b *testing.B) {
	for _, s := range Strategies {
		for _, rebalance := range []bool{true, false} {
			in := bigFederation(s)
			in.Rebalance = rebalance
			b.Run(string(s)+"/rebalance="+strconv.FormatBool(rebalance), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Plan(in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPlanChoosing1000Clusters runs the choosing paths over the same
// federation, its clusters spread over 20 regions.
func BenchmarkPlanChoosing1000Clusters(b *testing.B) {
	options := []struct {
		name   string
		change func(*Input)
	}{
		{"weight_by=available_capacity", func(in *Input) { in.WeightBy = AvailableCapacity }},
		{"max_clusters=50", func(in *Input) { in.MaxClusters = 50 }},
		{"spread=region/min=3/max=10", func(in *Input) { in.Spread = Spread{ByLabel: "region", MinGroups: 3, MaxGroups: 10} }},
		{"all", func(in *Input) {
			in.WeightBy = AvailableCapacity
			in.MaxClusters = 50
			in.Spread = Spread{ByLabel: "region", MinGroups: 3, MaxGroups: 10}
		}},
	}
	for _, s := range Strategies {
		for _, o := range options {
			in := bigFederation(s)
			in.ClusterLabels = map[string]map[string]string{}
			for i, name := range in.Clusters {
				in.ClusterLabels[name] = map[string]string{"region": "region-" + strconv.Itoa(i%20)}
			}
			o.change(&in)
			b.Run(string(s)+"/"+o.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Plan(in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
