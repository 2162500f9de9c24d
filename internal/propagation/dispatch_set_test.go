package propagation

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// namedWriter logs each write with the item's name.
type namedWriter struct {
	name string
	fakeWriter
}

func (w *namedWriter) Write(ctx context.Context, op reconcile.Operation) (Answer, error) {
	w.calls.add(w.name + " " + string(op.Action) + " " + op.Cluster)
	if err := w.errs[op.Cluster]; err != nil {
		return Answer{}, err
	}
	return Answer{}, nil
}

type namedWaiter struct {
	name string
	fakeWaiter
}

func (w *namedWaiter) Wait(ctx context.Context, cluster string) (WaitResult, error) {
	w.calls.add(w.name + " wait " + cluster)
	if res, ok := w.waits[cluster]; ok {
		return res, nil
	}
	return WaitResult{Cluster: cluster, Status: rollout.Status{Done: true}}, nil
}

func TestDispatchSet(t *testing.T) {
	removeOn := func(c string) reconcile.Operation { return reconcile.Operation{Cluster: c, Action: reconcile.Remove} }
	failed := WaitResult{Status: rollout.Status{Failed: true, Reason: "ProgressDeadlineExceeded"}}
	tests := []struct {
		name      string
		stages    [][]string
		staged    bool
		items     func(c *calls) []Item
		wantCalls []string
		want      [][]string
		halted    int
	}{
		{
			name:   "tier by tier on a stage, removals in reverse, waits last, then the next stage",
			stages: [][]string{{"a"}, {"b"}},
			staged: true,
			items: func(c *calls) []Item {
				return []Item{
					{Ops: []reconcile.Operation{applyOn("a"), applyOn("b")}, Tier: 0, Writer: &namedWriter{"ns", fakeWriter{calls: c}}},
					{Ops: []reconcile.Operation{applyOn("a"), applyOn("b")}, Tier: 8, Writer: &namedWriter{"deploy", fakeWriter{calls: c}},
						Waiter: &namedWaiter{"deploy", fakeWaiter{calls: c}}},
					{Ops: []reconcile.Operation{applyOn("a"), applyOn("b")}, Tier: 5, Writer: &namedWriter{"config", fakeWriter{calls: c}}},
					{Ops: []reconcile.Operation{removeOn("a"), removeOn("b")}, Tier: 7, Writer: &namedWriter{"svc", fakeWriter{calls: c}}},
				}
			},
			wantCalls: []string{
				"ns apply a", "config apply a", "deploy apply a", "deploy wait a",
				"ns apply b", "config apply b", "deploy apply b", "deploy wait b",
				"svc remove a", "svc remove b",
			},
			want:   [][]string{{"a apply", "b apply"}, {"a apply", "b apply"}, {"a apply", "b apply"}, {"a remove", "b remove"}},
			halted: -1,
		},
		{
			name:   "a failed rollout stops the later stages and the removals of every item",
			stages: [][]string{{"a"}, {"b"}},
			staged: true,
			items: func(c *calls) []Item {
				return []Item{
					{Ops: []reconcile.Operation{applyOn("a"), applyOn("b")}, Tier: 5, Writer: &namedWriter{"config", fakeWriter{calls: c}}},
					{Ops: []reconcile.Operation{applyOn("a"), applyOn("b")}, Tier: 8, Writer: &namedWriter{"deploy", fakeWriter{calls: c}},
						Waiter: &namedWaiter{"deploy", fakeWaiter{calls: c, waits: map[string]WaitResult{"a": failed}}}},
					{Ops: []reconcile.Operation{removeOn("a"), removeOn("b")}, Tier: 7, Writer: &namedWriter{"svc", fakeWriter{calls: c}}},
				}
			},
			wantCalls: []string{"config apply a", "deploy apply a", "deploy wait a"},
			want: [][]string{
				{"a apply", "b apply stopped"},
				{"a apply rollout=failed", "b apply stopped"},
				{"a remove stopped", "b remove stopped"},
			},
			halted: 0,
		},
		{
			name:   "a failed last stage halts there, with nothing left to stop",
			stages: [][]string{{"a"}, {"b"}},
			staged: true,
			items: func(c *calls) []Item {
				return []Item{
					{Ops: []reconcile.Operation{applyOn("a"), applyOn("b")}, Tier: 8, Writer: &namedWriter{"deploy", fakeWriter{calls: c}},
						Waiter: &namedWaiter{"deploy", fakeWaiter{calls: c, waits: map[string]WaitResult{"b": failed}}}},
				}
			},
			wantCalls: []string{"deploy apply a", "deploy wait a", "deploy apply b", "deploy wait b"},
			want:      [][]string{{"a apply", "b apply rollout=failed"}},
			halted:    1,
		},
		{
			name:   "a failed only stage halts there",
			stages: [][]string{{"a", "b"}},
			staged: true,
			items: func(c *calls) []Item {
				return []Item{
					{Ops: []reconcile.Operation{applyOn("a"), applyOn("b")}, Tier: 8, Writer: &namedWriter{"deploy", fakeWriter{calls: c}},
						Waiter: &namedWaiter{"deploy", fakeWaiter{calls: c, waits: map[string]WaitResult{"a": failed}}}},
				}
			},
			wantCalls: []string{"deploy apply a", "deploy apply b", "deploy wait a", "deploy wait b"},
			want:      [][]string{{"a apply rollout=failed", "b apply"}},
			halted:    0,
		},
		{
			name:   "an unstaged rollout does not halt",
			stages: [][]string{{"a"}},
			items: func(c *calls) []Item {
				return []Item{
					{Ops: []reconcile.Operation{applyOn("a")}, Tier: 8, Writer: &namedWriter{"deploy", fakeWriter{calls: c}},
						Waiter: &namedWaiter{"deploy", fakeWaiter{calls: c, waits: map[string]WaitResult{"a": failed}}}},
				}
			},
			wantCalls: []string{"deploy apply a", "deploy wait a"},
			want:      [][]string{{"a apply rollout=failed"}},
			halted:    -1,
		},
		{
			name:   "a failed write keeps the later tiers off that cluster only",
			stages: [][]string{{"a", "b"}},
			items: func(c *calls) []Item {
				return []Item{
					{Ops: []reconcile.Operation{applyOn("a"), applyOn("b")}, Tier: 0,
						Writer: &namedWriter{"ns", fakeWriter{calls: c, errs: map[string]error{"a": errors.New("forbidden")}}}},
					{Ops: []reconcile.Operation{applyOn("a"), applyOn("b")}, Tier: 5, Writer: &namedWriter{"config", fakeWriter{calls: c}}},
				}
			},
			wantCalls: []string{"ns apply a", "ns apply b", "config apply b"},
			want:      [][]string{{"a apply err", "b apply"}, {"a apply stopped", "b apply"}},
			halted:    -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &calls{}
			res := DispatchSet(context.Background(), tt.items(c), Rollout{Stages: tt.stages, Staged: tt.staged, MaxParallel: 1})
			if !reflect.DeepEqual(c.log, tt.wantCalls) {
				t.Errorf("calls:\n got %q\nwant %q", c.log, tt.wantCalls)
			}
			var got [][]string
			for _, outcomes := range res.Outcomes {
				var line []string
				for _, o := range outcomes {
					s := fmt.Sprintf("%s %s", o.Cluster, o.Op.Action)
					switch {
					case o.Stopped != "":
						s += " stopped"
					case o.Err != "":
						s += " err"
					case o.Rollout == reconcile.RolloutFailed:
						s += " rollout=failed"
					}
					line = append(line, s)
				}
				got = append(got, line)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outcomes:\n got %q\nwant %q", got, tt.want)
			}
			if res.Halted != tt.halted {
				t.Errorf("halted = %d, want %d", res.Halted, tt.halted)
			}
		})
	}
}

// concurrentWriter counts the items it is writing at once, across the
// items that share it, and keeps the largest count.
type concurrentWriter struct {
	mu            sync.Mutex
	now, most     int
	release       chan struct{}
	written, want int
}

func (w *concurrentWriter) Write(context.Context, reconcile.Operation) (Answer, error) {
	w.mu.Lock()
	w.now++
	w.most = max(w.most, w.now)
	w.written++
	if w.written == w.want {
		close(w.release)
	}
	w.mu.Unlock()
	// Hold every write until all have started, or for a while: a bound
	// that is not kept shows in most.
	select {
	case <-w.release:
	case <-time.After(50 * time.Millisecond):
	}
	w.mu.Lock()
	w.now--
	w.mu.Unlock()
	return Answer{}, nil
}

// A set's items of one tier are written as many at once as ItemsAtOnce
// says, and every one of them is written.
func TestDispatchSetBoundsItemsAtOnce(t *testing.T) {
	tests := []struct {
		name        string
		items       int
		itemsAtOnce int
		wantMost    int
	}{
		{"bounded", 10, 3, 3},
		{"a bound above the items", 4, 32, 4},
		{"unbounded", 6, 0, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &concurrentWriter{release: make(chan struct{}), want: tt.items}
			items := make([]Item, tt.items)
			for i := range items {
				items[i] = Item{Ops: []reconcile.Operation{applyOn("a")}, Writer: w}
			}
			res := DispatchSet(context.Background(), items, Rollout{Stages: [][]string{{"a"}}, ItemsAtOnce: tt.itemsAtOnce})
			if w.most != tt.wantMost {
				t.Errorf("%d items written at once, want %d", w.most, tt.wantMost)
			}
			for i, outcomes := range res.Outcomes {
				if len(outcomes) != 1 || outcomes[0].Err != "" {
					t.Errorf("item %d: %+v", i, outcomes)
				}
			}
		})
	}
}
