package runstate

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

func TestMissedNamesObjectsThatMissAClusterPlannedAfterThem(t *testing.T) {
	run := New(nil)
	eu := federation.Placement{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}}
	all := federation.Placement{Selector: &metav1.LabelSelector{}}
	run.PlannedPlacement("configmaps/app/eu", eu, false)
	run.PlannedPlacement("configmaps/app/all", all, false)
	run.PlannedPlacement("configmaps/app/named", federation.Placement{Clusters: []string{"paris"}, Selector: eu.Selector}, false)
	run.PlannedPlacement("configmaps/app/nowhere", federation.Placement{}, false)
	run.PlannedPlacement("configmaps/app/read-eu", eu, true)

	for _, c := range []struct {
		name          string
		before, after map[string]string
		want          []string
	}{
		{"a new cluster in eu", nil, map[string]string{"region": "eu"}, []string{"configmaps/app/all", "configmaps/app/eu"}},
		{"a new cluster elsewhere", nil, map[string]string{"region": "us"}, []string{"configmaps/app/all"}},
		{"a cluster moved to eu", map[string]string{"region": "us"}, map[string]string{"region": "eu"}, []string{"configmaps/app/eu", "configmaps/app/read-eu"}},
		{"a cluster that keeps its region", map[string]string{"region": "eu", "tier": "a"}, map[string]string{"region": "eu"}, nil},
	} {
		if got := run.Missed("paris", c.before, c.after); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: missed %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSnapshotIsReadOnceAndHealthComesFromTheRunFirst(t *testing.T) {
	loads := 0
	run := New(func(context.Context) (registry.Registrations, error) {
		loads++
		return registry.Registrations{Clusters: []registry.Cluster{
			{Name: "berlin", Health: registry.ClusterHealth{Ready: true}},
			{Name: "paris", Health: registry.ClusterHealth{Ready: true}},
		}}, nil
	})
	ctx := context.Background()
	run.RecordHealth("paris", registry.ClusterHealth{Ready: false, Reason: "ClusterNotReachable"})
	for range 3 {
		if _, err := run.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if loads != 1 {
		t.Errorf("the clusters were read %d times, want once per run", loads)
	}
	if h, ok := run.Health(ctx, "berlin"); !ok || !h.Ready {
		t.Errorf("berlin: %+v %v, want the health read with the snapshot", h, ok)
	}
	if h, _ := run.Health(ctx, "paris"); h.Ready || h.Reason != "ClusterNotReachable" {
		t.Errorf("paris: %+v, want the health a probe of this run recorded", h)
	}
	if _, ok := run.Health(ctx, "tokyo"); ok {
		t.Error("a cluster nobody registered has no health")
	}
}

func TestSnapshotErrorIsKept(t *testing.T) {
	run := New(func(context.Context) (registry.Registrations, error) {
		return registry.Registrations{}, errors.New("host down")
	})
	if _, err := run.Snapshot(context.Background()); err == nil {
		t.Fatal("want the loader's error")
	}
	if _, ok := run.Health(context.Background(), "x"); ok {
		t.Error("no health without a snapshot")
	}
}

func TestTypeSeesPlannedTypesFirstAndRetriesWhatIsNotFound(t *testing.T) {
	run := New(nil)
	asked := 0
	get := func(_ context.Context, name string) (*registry.FederatedType, error) {
		asked++
		if name == "missing" {
			return nil, registry.ErrNotFound
		}
		t := registry.NewFederatedType(registry.APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}, registry.Enabled, registry.Disabled)
		return &t, nil
	}
	ctx := context.Background()
	for range 2 {
		if _, err := run.Type(ctx, "configmaps", get); err != nil {
			t.Fatal(err)
		}
		if _, err := run.Type(ctx, "missing", get); !errors.Is(err, registry.ErrNotFound) {
			t.Fatalf("missing: %v", err)
		}
	}
	if asked != 3 {
		t.Errorf("the host was asked %d times, want 3: once for the type found, each time for the missing one", asked)
	}
	planned := registry.NewFederatedType(registry.APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}, registry.Disabled, registry.Disabled)
	run.PlanType(planned)
	if got, _ := run.Type(ctx, "configmaps", get); got.Propagation != registry.Disabled {
		t.Errorf("a type planned in the run wins over the host's: got %+v", got)
	}
}

func TestTypeIsAskedForOnceByCallersAtTheSameTime(t *testing.T) {
	run := New(nil)
	var asked atomic.Int32
	release := make(chan struct{})
	get := func(_ context.Context, name string) (*registry.FederatedType, error) {
		asked.Add(1)
		<-release
		if name != "configmaps" {
			return nil, registry.ErrNotFound
		}
		t := registry.NewFederatedType(registry.APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}, registry.Enabled, registry.Disabled)
		return &t, nil
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if got, err := run.Type(context.Background(), "configmaps", get); err != nil || got.Target.Kind != "ConfigMap" {
				t.Errorf("got %+v, %v", got, err)
			}
		})
	}
	close(release)
	wg.Wait()
	if n := asked.Load(); n != 1 {
		t.Fatalf("the host was asked %d times by ten callers at once, want once", n)
	}
}

func TestReplacingIsACreateOfAnIDPlannedFromState(t *testing.T) {
	run := New(nil)
	if run.Replacing("configmaps/app/x") {
		t.Error("nothing planned yet")
	}
	run.MarkReplacing("configmaps/app/x")
	if !run.Replacing("configmaps/app/x") || run.Replacing("configmaps/app/y") {
		t.Error("only the id planned from its state is being replaced")
	}
}

func TestEnsureNamespace(t *testing.T) {
	run := New(nil)
	var mu sync.Mutex
	calls := 0
	fail := true
	ensure := func(context.Context, string) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if fail {
			fail = false
			return errors.New("host unreachable")
		}
		return nil
	}
	if err := run.EnsureNamespace(context.Background(), "web", ensure); err == nil {
		t.Fatal("the first ensure fails, and says so")
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if err := run.EnsureNamespace(context.Background(), "web", ensure); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := run.EnsureNamespace(context.Background(), "shop", ensure); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("ensure ran %d times; want once failing, once for web after it and once for shop", calls)
	}
}

func TestClaimCreateOncePerRun(t *testing.T) {
	run := New(nil)
	if !run.ClaimCreate("FederatedObject/configmaps/app/x") {
		t.Fatal("the first create of an object is claimed")
	}
	if run.ClaimCreate("FederatedObject/configmaps/app/x") {
		t.Error("a second create of the same object in one run must be refused")
	}
	if !run.ClaimCreate("FederatedObject/configmaps/app/y") {
		t.Error("another object is another claim")
	}
}

func TestHostTypesAreListedOncePerRun(t *testing.T) {
	run := New(nil)
	configmaps := registry.FederatedType{Target: registry.APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}}
	lists := 0
	fail := true
	list := func(context.Context) ([]registry.FederatedType, error) {
		lists++
		if fail {
			return nil, errors.New("host unreachable")
		}
		return []registry.FederatedType{configmaps}, nil
	}
	if _, err := run.HostTypes(context.Background(), list); err == nil {
		t.Fatal("a failed list reads as no error")
	}
	fail = false
	for range 3 {
		got, err := run.HostTypes(context.Background(), list)
		if err != nil || len(got) != 1 || got[0].Name() != "configmaps" {
			t.Fatalf("HostTypes = %v, %v; want configmaps", got, err)
		}
	}
	if lists != 2 {
		t.Errorf("listed %d times, want 2: the failure is not kept, the list is", lists)
	}
	found, err := run.Type(context.Background(), "configmaps", func(context.Context, string) (*registry.FederatedType, error) {
		return nil, errors.New("read by name")
	})
	if err != nil || found.Target.Kind != "ConfigMap" {
		t.Errorf("Type(configmaps) = %v, %v; want the listed type, not a read by name", found, err)
	}
}

func TestFirstTimeIsOncePerKey(t *testing.T) {
	r := New(nil)
	got := []bool{r.FirstTime("a"), r.FirstTime("a"), r.FirstTime("b"), r.FirstTime("a")}
	if want := []bool{true, false, true, false}; !reflect.DeepEqual(got, want) {
		t.Errorf("FirstTime answered %v, want %v", got, want)
	}
}
