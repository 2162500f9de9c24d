package objectset

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

func keyedObjects(keys ...federation.Key) []*Object {
	out := make([]*Object, len(keys))
	for i, k := range keys {
		out[i] = &Object{Spec: Spec{Key: k}}
	}
	return out
}

func objectNames(groups [][]*Object) [][]string {
	var out [][]string
	for _, g := range groups {
		var names []string
		for _, o := range g {
			names = append(names, o.Key.Name)
		}
		out = append(out, names)
	}
	return out
}

func TestTiers(t *testing.T) {
	ns := federation.Key{Version: "v1", Kind: "Namespace", Name: "ns"}
	cm := func(name string) federation.Key {
		return federation.Key{Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: name}
	}
	deploy := federation.Key{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "ns", Name: "web"}
	tests := []struct {
		name string
		keys []federation.Key
		want [][]string
	}{
		{name: "no objects", keys: nil, want: nil},
		{name: "one tier of ConfigMaps", keys: []federation.Key{cm("a"), cm("b"), cm("c")}, want: [][]string{{"a", "b", "c"}}},
		{name: "a namespace, its ConfigMaps and a Deployment", keys: []federation.Key{ns, cm("a"), cm("b"), deploy},
			want: [][]string{{"ns"}, {"a", "b"}, {"web"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objects := keyedObjects(tt.keys...)
			objects = NewSet(objects, Strategy{}, Spec{}).Objects
			if got := objectNames(tiers(objects)); !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("tiers = %v, want %v", got, tt.want)
			}
		})
	}
}

// eachObject keeps the objects' order in the problems, whatever order
// the work finishes in.
func TestEachObject_diagnosticsInObjectOrder(t *testing.T) {
	var keys []federation.Key
	for i := range 25 {
		keys = append(keys, federation.Key{Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: fmt.Sprintf("cm-%02d", i)})
	}
	objects := keyedObjects(keys...)
	var ran atomic.Int64
	diags := (&Env{}).eachObject(objects, func(o *Object, problems *Problems) {
		ran.Add(1)
		problems.AddError(o.Key.Name, "first")
		problems.AddWarning(o.Key.Name, "second")
	})
	if ran.Load() != 25 || len(diags) != 50 {
		t.Fatalf("ran %d objects with %d diagnostics, want 25 and 50", ran.Load(), len(diags))
	}
	for i, d := range diags {
		if want := keys[i/2].Name; d.Summary != want {
			t.Fatalf("diagnostic %d is about %s, want %s", i, d.Summary, want)
		}
	}
}

// eachObject works on as many objects at once as requests may wait on
// one cluster, and no more: the first of them each wait until all of them
// have started, which fewer at a time would never allow.
func TestEachObject_asManyAtOnceAsRequestsPerCluster(t *testing.T) {
	for _, tc := range []struct {
		settings Settings
		want     int
	}{
		{settings: Settings{RequestsPerCluster: 32}, want: 32},
		{settings: Settings{RequestsPerCluster: 3}, want: 3},
		{settings: Settings{}, want: 10},
	} {
		if most := mostObjectsAtOnce(t, &Env{Settings: tc.settings}, tc.want); most != tc.want {
			t.Errorf("%+v: at most %d objects ran at once, want %d", tc.settings, most, tc.want)
		}
	}
}

// mostObjectsAtOnce runs 3*atOnce objects, the first atOnce of them
// holding until all of them have started, and returns how many ran at once.
func mostObjectsAtOnce(t *testing.T, e *Env, atOnce int) int {
	objects := keyedObjects(make([]federation.Key, 3*atOnce)...)
	var running, most atomic.Int64
	var started sync.WaitGroup
	started.Add(atOnce)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	var first atomic.Int64
	var hung atomic.Bool
	e.eachObject(objects, func(*Object, *Problems) {
		now := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		if first.Add(1) <= int64(atOnce) {
			started.Done()
			select {
			case <-all:
			case <-time.After(time.Minute): // a guard against a hang, not a measure of speed
				hung.Store(true)
			}
		}
	})
	if hung.Load() {
		t.Fatal("the first objects never ran together")
	}
	return int(most.Load())
}
