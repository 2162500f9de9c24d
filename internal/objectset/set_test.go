package objectset

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

func TestSetNames(t *testing.T) {
	e := typesEnv()
	set := NewSet([]*Object{
		mustObject(t, e, Spec{TypeName: "deployments.apps",
			Template: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"}}`}),
		mustObject(t, e, Spec{TypeName: "configmaps",
			Template: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config","namespace":"shop"}}`}),
	}, Strategy{}, Spec{})
	tests := []struct {
		name string
		key  string
		want bool
	}{
		{"an object of the set", "apps/v1/Deployment/shop/web", true},
		{"the same object in another version", "apps/v1beta1/Deployment/shop/web", true},
		{"a core object of the set", "/v1/ConfigMap/shop/config", true},
		{"another name", "apps/v1/Deployment/shop/api", false},
		{"another namespace", "apps/v1/Deployment/shop-2/web", false},
		{"another group of the same kind", "extensions/v1beta1/Deployment/shop/web", false},
		{"another kind of the same name", "apps/v1/StatefulSet/shop/web", false},
		{"a cluster-scoped key of the same name", "apps/v1/Deployment/web", false},
		{"a key that does not parse", "web", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := set.Names(tt.key); got != tt.want {
				t.Errorf("Names(%q) = %v, want %v", tt.key, got, tt.want)
			}
		})
	}
	t.Run("no set", func(t *testing.T) {
		if (*Set)(nil).Names("apps/v1/Deployment/shop/web") {
			t.Error("a nil set names an object")
		}
	})
}

func TestSetPlanPlaced(t *testing.T) {
	tests := []struct {
		name   string
		placed map[string][]string
		want   []string
	}{
		{"no object", nil, []string{}},
		{"objects placed nowhere", map[string][]string{"a": {}, "b": nil}, []string{}},
		{"one object", map[string][]string{"a": {"tokyo", "berlin"}}, []string{"berlin", "tokyo"}},
		{"objects sharing clusters", map[string][]string{"a": {"tokyo", "berlin"}, "b": {"berlin", "austin"}},
			[]string{"austin", "berlin", "tokyo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := SetPlan{Objects: map[string]Planned{}}
			for key, placed := range tt.placed {
				plan.Objects[key] = Planned{Placed: placed}
			}
			got := plan.Placed()
			if got == nil || !slices.Equal(got, tt.want) {
				t.Errorf("Placed() = %#v, want %#v", got, tt.want)
			}
		})
	}
}

// BenchmarkHolding measures a refresh's look, in a set of n objects, for
// the objects that left it among the n the state holds: a lookup for each,
// whatever n is (ns/object stays flat).
func BenchmarkHolding(b *testing.B) {
	e := typesEnv()
	for _, n := range []int{100, 1000, 10000} {
		objects := make([]*Object, n)
		held := map[string]map[string]string{}
		for i := range objects {
			objects[i] = mustObject(b, e, Spec{TypeName: "configmaps",
				Template: fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c-%d","namespace":"shop"}}`, i)})
			held[objects[i].Key.String()] = map[string]string{"berlin": "{}"}
		}
		set := NewSet(objects, Strategy{}, Spec{})
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			for b.Loop() {
				if holding, _ := e.Holding(context.Background(), set, nil, held); holding != set {
					b.Fatal("the set holds objects it does not name")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
		})
	}
}
