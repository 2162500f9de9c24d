package propagation

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

func TestProjectKeepsOnlyAppliedFields(t *testing.T) {
	applied := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{
			"ports": []any{map[string]any{"port": 80}},
			"type":  "ClusterIP",
		},
	}
	live := map[string]any{
		"metadata": map[string]any{"name": "web", "uid": "u", "labels": map[string]any{"app": "web", "theirs": "x"}},
		"spec": map[string]any{
			"ports":     []any{map[string]any{"port": int64(80), "protocol": "TCP"}},
			"type":      "ClusterIP",
			"clusterIP": "10.0.0.1",
		},
		"status": map[string]any{},
	}
	want := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"ports": []any{map[string]any{"port": int64(80)}}, "type": "ClusterIP"},
	}
	if got := Project(live, applied); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

func TestProjectShowsChangesToAppliedFields(t *testing.T) {
	applied := map[string]any{"data": map[string]any{"a": "1"}, "list": []any{"x"}}
	live := map[string]any{"data": map[string]any{"a": "2"}, "list": []any{"x", "y"}}
	got := Project(live, applied)
	// A changed value and a list someone grew are differences; a field
	// that is gone is missing.
	if !reflect.DeepEqual(got, live) {
		t.Errorf("got %#v, want the live values %#v", got, live)
	}
	if got := Project(map[string]any{}, applied); len(got) != 0 {
		t.Errorf("missing fields: got %#v, want none", got)
	}
}

func TestFanOutBoundsParallelismAndSortsResults(t *testing.T) {
	members := []Member{{Name: "c"}, {Name: "a"}, {Name: "d"}, {Name: "b"}}
	var running, peak atomic.Int32
	results := FanOut(context.Background(), members, Options{MaxParallel: 2, Timeout: time.Second}, func(ctx context.Context, m Member) Result {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if _, ok := ctx.Deadline(); !ok {
			t.Errorf("%s: no per-cluster deadline", m.Name)
		}
		time.Sleep(20 * time.Millisecond)
		return Result{Status: StatusOK}
	})
	if peak.Load() > 2 {
		t.Errorf("%d clusters at once, want at most 2", peak.Load())
	}
	var names []string
	for _, r := range results {
		names = append(names, r.Cluster)
	}
	if !reflect.DeepEqual(names, []string{"a", "b", "c", "d"}) {
		t.Errorf("results in order %v", names)
	}
}
