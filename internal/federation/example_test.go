package federation_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// Place a ConfigMap on the production clusters and give Berlin its own
// setting.
func Example() {
	registered := []federation.Cluster{
		{Name: "berlin", Labels: map[string]string{"env": "prod"}},
		{Name: "new-york", Labels: map[string]string{"env": "prod"}},
		{Name: "staging-1", Labels: map[string]string{"env": "staging"}},
	}
	placement := federation.Placement{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
	}
	placed, err := placement.Select(registered, nil)
	if err != nil {
		fmt.Println(err)
		return
	}

	renderer, err := federation.NewRenderer(federation.RenderSpec{
		Template: `
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  currency: USD
`,
		Namespaced: true,
		Overrides: []federation.OverrideRule{{
			Cluster: "berlin",
			Patches: []federation.Patch{{Path: "/data/currency", Value: `"EUR"`}},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	labels := map[string]map[string]string{}
	for _, c := range registered {
		labels[c.Name] = c.Labels
	}
	for _, name := range placed {
		out, err := renderer.Render(federation.Cluster{Name: name, Labels: labels[name]}, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s\n", name, out.Display)
	}

	_, err = federation.Placement{Clusters: []string{"berln"}}.Select(registered, nil)
	fmt.Println(err)
	// Output:
	// berlin: {"apiVersion":"v1","data":{"currency":"EUR"},"kind":"ConfigMap","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"settings","namespace":"shop"}}
	// new-york: {"apiVersion":"v1","data":{"currency":"USD"},"kind":"ConfigMap","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"settings","namespace":"shop"}}
	// cluster "berln" is not registered; registered clusters: berlin, new-york, staging-1
}
