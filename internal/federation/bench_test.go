package federation

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkRender100ClustersThreeOverrides renders one Deployment for 100
// clusters, each targeted by three override rules: one by name and two by
// selector. One iteration renders all 100 clusters with a Renderer that has
// rendered nothing yet, as a plan does; no two clusters receive the same
// object, so every cluster costs a rendering.
func BenchmarkRender100ClustersThreeOverrides(b *testing.B) {
	regions := []string{"us-east", "us-west", "eu-central", "ap-south"}
	clusters := make([]Cluster, 100)
	rules := []OverrideRule{
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/annotations", Value: `{"tier":"prod"}`},
		}},
		{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOperator(OperatorIn), Values: regions}}}, Patches: []Patch{
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
	benchmarkRender(b, RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules}, clusters)
}

// BenchmarkRender100ClustersSharedSelectors renders one Deployment for 100
// clusters targeted only by selector rules, by environment and region, as
// fleets are usually configured: clusters with the same labels and replica
// count receive the same object, rendered once per iteration.
func BenchmarkRender100ClustersSharedSelectors(b *testing.B) {
	regions := []string{"us-east", "us-west", "eu-central", "ap-south"}
	envs := []string{"prod", "staging"}
	clusters := make([]Cluster, 100)
	for i := range clusters {
		clusters[i] = Cluster{Name: fmt.Sprintf("cluster-%03d", i), Labels: map[string]string{"env": envs[i%len(envs)], "region": regions[i%len(regions)]}}
	}
	var rules []OverrideRule
	for _, env := range envs {
		rules = append(rules, OverrideRule{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": env}}, Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/annotations", Value: fmt.Sprintf(`{"tier":%q}`, env)},
		}})
	}
	for _, region := range regions {
		rules = append(rules,
			OverrideRule{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": region}}, Patches: []Patch{
				{Op: OpAdd, Path: "/spec/template/spec/containers/0/env", Value: fmt.Sprintf(`[{"name":"REGION","value":%q}]`, region)},
			}},
			OverrideRule{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOperator(OperatorIn), Values: []string{region}}}}, Patches: []Patch{
				{Path: "/spec/template/spec/containers/0/image", Value: fmt.Sprintf(`"registry.%s.example.com/nginx:1.27"`, region)},
			}},
		)
	}
	benchmarkRender(b, RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules}, clusters)
}

// benchmarkRender renders spec for the clusters, with replica counts 0 to 6,
// once per iteration, and reports the cost per cluster.
func benchmarkRender(b *testing.B, spec RenderSpec, clusters []Cluster) {
	r, err := NewRenderer(spec)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		// A plan renders each cluster once, with a new Renderer.
		r.shared = &sharedRenders{}
		for i, c := range clusters {
			if _, err := r.Render(c, n(int64(i%7))); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(clusters)), "ns/cluster")
}
