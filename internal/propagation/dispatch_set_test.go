package propagation

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

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
