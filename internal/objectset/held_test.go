package objectset

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// typesEnv is an Env that knows ConfigMaps and Deployments, and no cluster.
func typesEnv() *Env {
	types := []registry.FederatedType{
		registry.NewFederatedType(registry.APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}, registry.Enabled, ""),
		registry.NewFederatedType(registry.APIResource{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Namespaced: true}, registry.Enabled, ""),
	}
	return &Env{
		Types: func(context.Context) ([]registry.FederatedType, error) { return types, nil },
		Type: func(_ context.Context, name string) (*registry.FederatedType, error) {
			for _, t := range types {
				if t.Name() == name {
					return &t, nil
				}
			}
			return nil, registry.ErrNotFound
		},
	}
}

func mustObject(t testing.TB, e *Env, spec Spec) *Object {
	t.Helper()
	o, problems := e.NewObject(context.Background(), spec)
	if o == nil {
		t.Fatalf("NewObject: %v", problems)
	}
	return o
}

// Holding keeps every object clusters hold that the set no longer names,
// as the prior set knew it or as its key names it, and nothing else.
func TestHolding(t *testing.T) {
	e := typesEnv()
	web := mustObject(t, e, Spec{TypeName: "deployments.apps",
		Template: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"}}`})
	oldConfig := mustObject(t, e, Spec{TypeName: "configmaps", Orphan: true,
		Template: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config-v1","namespace":"shop"}}`})
	set := NewSet([]*Object{web}, Strategy{}, Spec{Application: "shop", Orphan: false})
	prior := NewSet([]*Object{web, oldConfig}, Strategy{}, Spec{})
	held := map[string]map[string]string{
		"apps/v1/Deployment/shop/web":      {"berlin": "{}"},
		"apps/v1beta1/Deployment/shop/web": {"berlin": "{}"}, // the same object in another version: the set names it
		"/v1/ConfigMap/shop/config-v1":     {"berlin": "{}"}, // left the set; the prior set knows it
		"/v1/ConfigMap/shop/config-v0":     {"berlin": "{}"}, // left the set before; only its key names it
		"/v1/ConfigMap/shop/gone":          {},               // held nowhere any more
	}
	holding, problems := e.Holding(context.Background(), set, prior, held)
	if problems.HasError() {
		t.Fatalf("problems: %v", problems)
	}
	got := holding.Keys()
	want := []string{"/v1/ConfigMap/shop/config-v0", "/v1/ConfigMap/shop/config-v1", "apps/v1/Deployment/shop/web"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("holding %v, want %v", got, want)
	}
	if o := holding.Get("/v1/ConfigMap/shop/config-v1"); o != oldConfig {
		t.Errorf("the object the prior set knows is not taken from it")
	}
	v0 := holding.Get("/v1/ConfigMap/shop/config-v0")
	if v0.Target.Resource.Resource != "configmaps" || v0.Target.Namespace != "shop" || v0.Target.Name != "config-v0" ||
		v0.Application != "shop" || v0.Orphan {
		t.Errorf("the object named by its key is %+v, application %q, orphan %v", v0.Target, v0.Application, v0.Orphan)
	}
	if same, _ := e.Holding(context.Background(), set, nil, map[string]map[string]string{"apps/v1/Deployment/shop/web": {"berlin": "{}"}}); same != set {
		t.Errorf("a set that names everything held is not kept as it is")
	}
}

// An object of a type no longer enabled cannot be worked on: the problem
// says so and what to do.
func TestHolding_aTypeNoLongerEnabled(t *testing.T) {
	e := typesEnv()
	set := NewSet(nil, Strategy{}, Spec{})
	holding, problems := e.Holding(context.Background(), set, nil, map[string]map[string]string{"batch/v1/Job/shop/migrate": {"berlin": "{}"}})
	if len(holding.Objects) != 0 || !problems.HasError() || !strings.Contains(problems[0].Detail, "Enable the type again") {
		t.Fatalf("holding %v, problems %v", holding.Keys(), problems)
	}
}

// Stuck names what clusters hold that the set cannot work on, so that an
// apply or a refresh keeps it in the state.
func TestStuck(t *testing.T) {
	e := typesEnv()
	held := map[string]map[string]string{
		"batch/v1/Job/shop/migrate":  {"berlin": "{}"},
		"/v1/ConfigMap/shop/config":  {"berlin": "{}"},
		"batch/v1/Job/shop/finished": {},
	}
	holding, _ := e.Holding(context.Background(), NewSet(nil, Strategy{}, Spec{}), nil, held)
	if got := Stuck(holding, held); !slices.Equal(got, []string{"batch/v1/Job/shop/migrate"}) {
		t.Fatalf("Stuck = %v", got)
	}
}

// An apply that cannot work on an object clusters hold keeps it in its
// result as the state had it, with an error: the removal stays owed.
func TestApplyKeepsWhatItCannotWorkOn(t *testing.T) {
	e := typesEnv()
	held := map[string]map[string]string{"batch/v1/Job/shop/migrate": {"berlin": `{"kind":"Job"}`}}
	status := map[string]map[string]reconcile.Status{"batch/v1/Job/shop/migrate": {"berlin": {Status: reconcile.StatusOK}}}
	res := e.Apply(context.Background(), ApplyInput{Set: NewSet(nil, Strategy{}, Spec{}), Held: held, PriorStatus: status})
	rec := res.Records["batch/v1/Job/shop/migrate"]
	if !slices.Contains(res.Keys, "batch/v1/Job/shop/migrate") || rec.Held["berlin"] != `{"kind":"Job"}` ||
		rec.Status["berlin"].Status != reconcile.StatusOK || !res.Problems.HasError() {
		t.Fatalf("keys %v, record %+v, problems %v", res.Keys, rec, res.Problems)
	}
}
