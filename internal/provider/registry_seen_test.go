package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

type fakePrivate map[string][]byte

func (f fakePrivate) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return f[key], nil
}

func (f fakePrivate) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(f, key)
		return nil
	}
	f[key] = value
	return nil
}

func TestRegisteredLaterLeavesOutEveryClusterRegisteredAfterTheRead(t *testing.T) {
	ctx := context.Background()
	private := fakePrivate{}
	if seen := seenAtRead(ctx, private); seen != nil {
		t.Fatalf("no note: got %v, want nil", seen)
	}
	old := runstate.Cluster{Cluster: registry.Cluster{Name: "old"}}
	if registeredLater(seenAtRead(ctx, private), old) {
		t.Error("without a note every cluster counts")
	}
	noteSeen(ctx, private, []string{"old"})
	seen := seenAtRead(ctx, private)
	late := runstate.Cluster{Cluster: registry.Cluster{Name: "late"}}
	ours := runstate.Cluster{Cluster: registry.Cluster{Name: "ours"}, InRun: true}
	for _, c := range []struct {
		cluster runstate.Cluster
		want    bool
	}{{old, false}, {late, true}, {ours, true}} {
		if got := registeredLater(seen, c.cluster); got != c.want {
			t.Errorf("%s: registeredLater = %v, want %v", c.cluster.Name, got, c.want)
		}
	}
	noteSeen(ctx, private, nil)
	if seen := seenAtRead(ctx, private); seen == nil || len(seen) != 0 {
		t.Errorf("a note of no clusters reads as %v, want an empty set", seen)
	}
	forgetSeen(ctx, private)
	if seen := seenAtRead(ctx, private); seen != nil {
		t.Errorf("a dropped note reads as %v", seen)
	}
}
