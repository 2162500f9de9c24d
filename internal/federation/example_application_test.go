package federation_test

import (
	"fmt"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// Read an application of three objects, patch its ConfigMap for Berlin,
// find the object the cluster replicas go to, and render each object in
// the order Berlin receives them.
func Example_application() {
	manifests := []string{`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {replicas: 1}
---
# Source: shop/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop}
data: {currency: USD}
`, `{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}`}

	objects, err := federation.ParseManifests(manifests, federation.ManifestOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	byKey := map[federation.Key]int{}
	var keys []federation.Key
	for i, m := range objects {
		byKey[m.Key] = i
		keys = append(keys, m.Key)
	}
	overrides, err := federation.SelectObjects([]federation.SetOverrideRule{{
		OverrideRule: federation.OverrideRule{Cluster: "berlin", Patches: []federation.Patch{{Path: "/data/currency", Value: `"EUR"`}}},
		Object:       &federation.ObjectRef{Kind: "ConfigMap", Name: "settings"},
	}}, keys)
	if err != nil {
		fmt.Println(err)
		return
	}
	target, err := federation.ReplicasTarget(keys, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	berlin := federation.Cluster{Name: "berlin"}
	for step, group := range federation.ApplyOrder(keys) {
		for _, key := range group {
			i := byKey[key]
			var replicas *int64
			if key == target {
				three := int64(3)
				replicas = &three
			}
			out, err := federation.Render(federation.RenderSpec{
				Template:   objects[i].Template,
				Namespaced: key.Namespace != "",
				Overrides:  overrides[i].Rules,
			}, berlin, replicas)
			if err != nil {
				fmt.Println(overrides[i].SetError(err))
				return
			}
			fmt.Printf("step %d %s:\n  %s\n", step, key, out.Display)
		}
	}
	// Output:
	// step 0 /v1/Namespace/shop:
	//   {"apiVersion":"v1","kind":"Namespace","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"shop"}}
	// step 1 /v1/ConfigMap/shop/settings:
	//   {"apiVersion":"v1","data":{"currency":"EUR"},"kind":"ConfigMap","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"settings","namespace":"shop"}}
	// step 2 apps/v1/Deployment/shop/web:
	//   {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"web","namespace":"shop"},"spec":{"replicas":3}}
}
