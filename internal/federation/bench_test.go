package federation

import (
	"fmt"
	"testing"
)

// BenchmarkRender100ClustersThreeOverrides renders one Deployment for 100
// clusters, each targeted by three override rules: one by name and two by
// selector. One iteration renders all 100 clusters.
func BenchmarkRender100ClustersThreeOverrides(b *testing.B) {
	regions := []string{"us-east", "us-west", "eu-central", "ap-south"}
	clusters := make([]Cluster, 100)
	rules := []OverrideRule{
		{Selector: &Selector{MatchLabels: map[string]string{"env": "prod"}}, Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/annotations", Value: `{"tier":"prod"}`},
		}},
		{Selector: &Selector{MatchExpressions: []Requirement{{Key: "region", Operator: OperatorIn, Values: regions}}}, Patches: []Patch{
			{Op: OpAdd, Path: "/spec/template/spec/containers/0/env", Value: `[{"name":"REGION","value":"any"}]`},
		}},
	}
	for i := range clusters {
		name := fmt.Sprintf("cluster-%03d", i)
		clusters[i] = Cluster{Name: name, Labels: map[string]string{"env": "prod", "region": regions[i%len(regions)]}}
		rules = append(rules, OverrideRule{Cluster: name, Patches: []Patch{
			{Path: "/spec/template/spec/containers/0/image", Value: fmt.Sprintf(`"registry-%d.example.com/nginx:1.27"`, i)},
		}})
	}
	r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, c := range clusters {
			if _, err := r.Render(c, n(int64(i%7))); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(clusters)), "ns/cluster")
}
