package objectset

import (
	"reflect"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

func TestPathString(t *testing.T) {
	tests := []struct {
		name string
		path Path
		want string
	}{
		{"a patch of an override", Root("overrides").AtListIndex(0).AtName("patches").AtListIndex(2), "overrides[0].patches[2]"},
		{"a key of a map", Root("wait").AtName("fields").AtMapKey("status.phase"), `wait.fields["status.phase"]`},
		{"no path", Path{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.path.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
	// A path built from another does not change it.
	base := Root("overrides").AtListIndex(0)
	_, _ = base.AtName("cluster"), base.AtName("patches")
	if base.String() != "overrides[0]" {
		t.Errorf("the base path changed: %s", base)
	}
}

func TestProblems(t *testing.T) {
	var ps Problems
	ps.AddWarning("w", "warned about hunter22")
	if ps.HasError() {
		t.Fatal("a warning is no error")
	}
	ps.AddAttributeError(Root("template"), "e", "the value hunter22 is wrong")
	ps.AddError("e2", "")
	if ps.ErrorsCount() != 2 {
		t.Fatalf("ErrorsCount = %d", ps.ErrorsCount())
	}
	if warned := ps.AsWarnings(); warned.HasError() || !ps.HasError() || warned[1].At.String() != "template" {
		t.Errorf("AsWarnings: %v, leaving %v", warned, ps)
	}
}

func TestSetOrder(t *testing.T) {
	placed := []string{"berlin", "new-york", "san-francisco"}
	tests := []struct {
		name     string
		strategy Strategy
		placed   []string
		want     [][]string
	}{
		{"no strategy: one stage of every placed cluster", Strategy{}, placed, [][]string{placed}},
		{"no strategy and nothing placed: no stage", Strategy{}, nil, nil},
		{"stages, the rest last", Strategy{Stages: [][]string{{"berlin"}}}, placed, [][]string{{"berlin"}, {"new-york", "san-francisco"}}},
		{"at most one at a time", Strategy{MaxConcurrent: 1}, placed, [][]string{{"berlin"}, {"new-york"}, {"san-francisco"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order, err := NewSet(nil, tt.strategy, Spec{}).Order(tt.placed)
			if err != nil || !reflect.DeepEqual(order.Stages, tt.want) {
				t.Errorf("Order = %v, %v; want %v", order.Stages, err, tt.want)
			}
		})
	}
	stages, problems := NewSet(nil, Strategy{Stages: [][]string{{"tokyo"}, {"*"}}}, Spec{}).PlannedOrder(placed)
	if len(problems) != 1 || problems[0].Severity != Warning || problems[0].At.String() != "rollout_strategy.stages" ||
		!reflect.DeepEqual(stages, [][]string{placed}) {
		t.Errorf("a stage of a cluster not placed: %v, %v", stages, problems)
	}
}

func TestHealthAfter(t *testing.T) {
	const deployment, configMap = `{"apiVersion":"apps/v1","kind":"Deployment"}`, `{"apiVersion":"v1","kind":"ConfigMap"}`
	prior := map[string]rollout.Health{"berlin": {Ready: true, Message: "before"}, "tokyo": {Ready: true}, "paris": {Ready: true}}
	record := reconcile.Record{Held: map[string]string{"berlin": deployment, "new-york": deployment, "paris": configMap,
		"oslo": reconcile.Unknown}}
	seen := map[string]map[string]any{
		"new-york": {"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"replicas": int64(0)}},
		"paris":    {"apiVersion": "v1", "kind": "ConfigMap"},
		"oslo":     {"apiVersion": "apps/v1", "kind": "Deployment"},
	}
	got := HealthAfter(prior, record, seen)
	if len(got) != 3 || got["berlin"].Message != "before" || got["new-york"].Replicas != 0 || got["oslo"].Message == "" {
		t.Errorf("HealthAfter = %v: want berlin as before, new-york and oslo (read from what was seen) as seen, tokyo "+
			"(no longer held) and paris (a ConfigMap: no rollout to report) gone", got)
	}
	if prior["new-york"] != (rollout.Health{}) {
		t.Error("HealthAfter changed the prior health")
	}
}

func TestPlanOutcome(t *testing.T) {
	e := typesEnv()
	web := mustObject(t, e, Spec{TypeName: "deployments.apps",
		Template: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"}}`})
	settings := mustObject(t, e, Spec{TypeName: "configmaps",
		Template: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"shop"}}`})
	const a, b = `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1}}`, `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":2}}`
	const cmA, cmB = `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}`, `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"2"}}`
	ok := &reconcile.Status{Status: reconcile.StatusOK}
	berlinHealth := rollout.Health{Ready: true, Replicas: 1, Message: "1/1 ready"}
	priorHealth := map[string]rollout.Health{"berlin": berlinHealth, "tokyo": {Ready: true}}
	tests := []struct {
		name          string
		o             *Object
		held, planned map[string]string
		placed        []string
		status        map[string]reconcile.Status
		want          Outcome
		known         bool
	}{
		{"one cluster changes: its health is left to apply, and its status will be OK", web,
			map[string]string{"berlin": a, "tokyo": a}, map[string]string{"berlin": a, "tokyo": b}, []string{"berlin", "tokyo"}, nil,
			Outcome{Status: map[string]*reconcile.Status{"berlin": ok, "tokyo": ok},
				Health: map[string]*rollout.Health{"berlin": &berlinHealth, "tokyo": nil}}, true},
		{"a cluster that receives the object for the first time: its entries are left to apply", web,
			map[string]string{"berlin": a}, map[string]string{"berlin": a, "tokyo": a}, []string{"berlin", "tokyo"}, nil,
			Outcome{Status: map[string]*reconcile.Status{"berlin": ok, "tokyo": nil},
				Health: map[string]*rollout.Health{"berlin": &berlinHealth, "tokyo": nil}}, true},
		{"a change after a failed update: the status will be OK", web,
			map[string]string{"berlin": a}, map[string]string{"berlin": b}, []string{"berlin"},
			map[string]reconcile.Status{"berlin": {Status: reconcile.StatusUpdateFailed, Message: "denied"}},
			Outcome{Status: map[string]*reconcile.Status{"berlin": ok}, Health: map[string]*rollout.Health{"berlin": nil}}, true},
		{"a create: every entry left to apply", web,
			nil, map[string]string{"berlin": a, "tokyo": a}, []string{"berlin", "tokyo"}, nil,
			Outcome{Status: map[string]*reconcile.Status{"berlin": nil, "tokyo": nil},
				Health: map[string]*rollout.Health{"berlin": nil, "tokyo": nil}}, true},
		{"a ConfigMap has status and no health (a refresh dropped what an older version kept)", settings,
			map[string]string{"berlin": cmA, "tokyo": cmA}, map[string]string{"berlin": cmA, "tokyo": cmB}, []string{"berlin", "tokyo"}, nil,
			Outcome{Status: map[string]*reconcile.Status{"berlin": ok, "tokyo": ok}, Health: map[string]*rollout.Health{}}, true},
		{"a rollout left unfinished is waited for again, and will be OK", web,
			map[string]string{"berlin": a}, map[string]string{"berlin": a}, []string{"berlin"},
			map[string]reconcile.Status{"berlin": {Status: reconcile.StatusRolloutFailed}},
			Outcome{Status: map[string]*reconcile.Status{"berlin": ok}, Health: map[string]*rollout.Health{"berlin": nil}}, true},
		{"a write whose outcome was not known is written again", web,
			map[string]string{"berlin": reconcile.Unknown}, map[string]string{"berlin": a}, []string{"berlin"}, nil,
			Outcome{Status: map[string]*reconcile.Status{"berlin": nil}, Health: map[string]*rollout.Health{"berlin": nil}}, true},
		{"a cluster the object leaves: the entries are the apply's", web,
			map[string]string{"berlin": a, "tokyo": a}, map[string]string{"berlin": a}, []string{"berlin"}, nil, Outcome{}, false},
		{"a placed cluster not rendered for: the entries are the apply's", web,
			map[string]string{"berlin": a}, map[string]string{"berlin": a}, []string{"berlin", "tokyo"}, nil, Outcome{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prior := priorHealth
			if tt.o == settings {
				prior = nil
			}
			got, known := PlanOutcome(tt.o, tt.held, tt.planned, tt.placed, tt.status, prior)
			if known != tt.known || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("PlanOutcome = %+v, %v; want %+v, %v", got, known, tt.want, tt.known)
			}
		})
	}
}

func TestReadStatus(t *testing.T) {
	tests := []struct {
		name      string
		prior     map[string]reconcile.Status
		now, read map[string]string
		want      map[string]reconcile.Status
	}{
		{"an imported object is OK wherever it is", nil, map[string]string{"berlin": "{}"}, map[string]string{"berlin": "{}"},
			map[string]reconcile.Status{"berlin": {Status: reconcile.StatusOK}}},
		{"a write cut off and read back now is OK",
			map[string]reconcile.Status{"berlin": {Status: reconcile.StatusUnknown}}, map[string]string{"berlin": "{}"},
			map[string]string{"berlin": "{}"}, map[string]reconcile.Status{"berlin": {Status: reconcile.StatusOK}}},
		{"a write cut off and not read back stays unknown",
			map[string]reconcile.Status{"berlin": {Status: reconcile.StatusUnknown}}, map[string]string{"berlin": reconcile.Unknown},
			map[string]string{"berlin": reconcile.Unknown}, map[string]reconcile.Status{"berlin": {Status: reconcile.StatusUnknown}}},
		{"a failure stays",
			map[string]reconcile.Status{"berlin": {Status: reconcile.StatusUpdateFailed, Message: "m"}}, map[string]string{"berlin": "{}"},
			map[string]string{"berlin": "{}"}, map[string]reconcile.Status{"berlin": {Status: reconcile.StatusUpdateFailed, Message: "m"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadStatus(tt.prior, tt.now, tt.read); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReadStatus = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHeldKeysInApplyOrder(t *testing.T) {
	held := map[string]map[string]string{
		"apps/v1/Deployment/shop/web": {}, "/v1/ConfigMap/shop/a": {}, "/v1/Namespace/shop": {}, "not a key": {},
	}
	want := []string{"/v1/Namespace/shop", "/v1/ConfigMap/shop/a", "apps/v1/Deployment/shop/web"}
	if got := heldKeys(held); !reflect.DeepEqual(got, want) {
		t.Errorf("heldKeys = %v, want %v", got, want)
	}
}

func TestOutcomeKnown(t *testing.T) {
	e := typesEnv()
	waited := mustObject(t, e, Spec{TypeName: "deployments.apps",
		Template: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"}}`})
	set := NewSet([]*Object{waited}, Strategy{}, Spec{})
	key := waited.Key.String()
	held := map[string]map[string]string{key: {"berlin": "A"}}
	tests := []struct {
		name    string
		planned map[string]map[string]string
		status  map[string]map[string]reconcile.Status
		want    bool
	}{
		{"nothing to do", map[string]map[string]string{key: {"berlin": "A"}}, nil, true},
		{"a change", map[string]map[string]string{key: {"berlin": "B"}}, nil, false},
		{"a rollout left unfinished is waited for again", map[string]map[string]string{key: {"berlin": "A"}},
			map[string]map[string]reconcile.Status{key: {"berlin": {Status: reconcile.StatusRolloutFailed}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OutcomeKnown(set, held, tt.planned, tt.status); got != tt.want {
				t.Errorf("OutcomeKnown = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlanSetOutcome(t *testing.T) {
	e := typesEnv()
	web := mustObject(t, e, Spec{TypeName: "deployments.apps",
		Template: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"}}`})
	set := NewSet([]*Object{web}, Strategy{}, Spec{})
	key := web.Key.String()
	const a, b = `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1}}`, `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":2}}`
	ok := &reconcile.Status{Status: reconcile.StatusOK}
	health := rollout.Health{Ready: true, Replicas: 1}
	priorHealth := map[string]map[string]rollout.Health{key: {"berlin": health}}
	tests := []struct {
		name          string
		held, planned map[string]map[string]string
		placed        []string
		want          map[string]Outcome
		known         bool
	}{
		{"each object as PlanOutcome says", map[string]map[string]string{key: {"berlin": a, "tokyo": a}},
			map[string]map[string]string{key: {"berlin": a, "tokyo": b}}, []string{"berlin", "tokyo"},
			map[string]Outcome{key: {Status: map[string]*reconcile.Status{"berlin": ok, "tokyo": ok},
				Health: map[string]*rollout.Health{"berlin": &health, "tokyo": nil}}}, true},
		{"an object leaving the set: the entries are the apply's",
			map[string]map[string]string{key: {"berlin": a}, "/v1/ConfigMap/shop/gone": {"berlin": a}},
			map[string]map[string]string{key: {"berlin": a}}, []string{"berlin"}, nil, false},
		{"an object's clusters up to the apply", map[string]map[string]string{key: {"berlin": a, "tokyo": a}},
			map[string]map[string]string{key: {"berlin": a}}, []string{"berlin"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, known := PlanSetOutcome(set, tt.held, tt.planned, tt.placed, nil, priorHealth)
			if known != tt.known || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("PlanSetOutcome = %+v, %v; want %+v, %v", got, known, tt.want, tt.known)
			}
		})
	}
}

func TestByObject(t *testing.T) {
	byCluster := map[string]map[string]string{"berlin": {"a": "1", "b": "2"}, "tokyo": {"a": "3"}}
	want := map[string]map[string]string{"a": {"berlin": "1", "tokyo": "3"}, "b": {"berlin": "2"}}
	got := ByObject(byCluster)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if back := ByObject(got); !reflect.DeepEqual(back, byCluster) {
		t.Errorf("back %v, want %v", back, byCluster)
	}
}
