package provider

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// The status and health values are built without reflection; they must
// equal what the framework builds from tagged structs, and read back to
// what they were built from.
func TestStatusAndHealthValues(t *testing.T) {
	type statusEntry struct {
		Status  string `tfsdk:"status"`
		Message string `tfsdk:"message"`
	}
	type healthEntry struct {
		Ready             bool   `tfsdk:"ready"`
		Replicas          int64  `tfsdk:"replicas"`
		ReadyReplicas     int64  `tfsdk:"ready_replicas"`
		UpdatedReplicas   int64  `tfsdk:"updated_replicas"`
		AvailableReplicas int64  `tfsdk:"available_replicas"`
		Message           string `tfsdk:"message"`
	}
	ctx := context.Background()
	for name, tc := range map[string]struct {
		status map[string]reconcile.Status
		health map[string]rollout.Health
	}{
		"none": {status: map[string]reconcile.Status{}, health: map[string]rollout.Health{}},
		"two clusters": {
			status: map[string]reconcile.Status{
				"berlin":   {Status: "Applied"},
				"new-york": {Status: "Failed", Message: "forbidden"},
			},
			health: map[string]rollout.Health{
				"berlin":   {Ready: true, Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3},
				"new-york": {Replicas: 2, ReadyReplicas: 1, UpdatedReplicas: 2, Message: "1 of 2 ready"},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			var diags diag.Diagnostics
			status := statusValue(tc.status, &diags)
			health := healthValue(tc.health, &diags)
			if diags.HasError() {
				t.Fatal(diags)
			}

			asStructs := map[string]statusEntry{}
			for c, s := range tc.status {
				asStructs[c] = statusEntry{Status: s.Status, Message: s.Message}
			}
			byFramework, d := types.MapValueFrom(ctx, clusterStatusType, asStructs)
			if d.HasError() {
				t.Fatal(d)
			}
			if !status.Equal(byFramework) {
				t.Errorf("cluster_status %v, the framework builds %v", status, byFramework)
			}
			healthStructs := map[string]healthEntry{}
			for c, h := range tc.health {
				healthStructs[c] = healthEntry{h.Ready, h.Replicas, h.ReadyReplicas, h.UpdatedReplicas, h.AvailableReplicas, h.Message}
			}
			byFramework, d = types.MapValueFrom(ctx, healthType, healthStructs)
			if d.HasError() {
				t.Fatal(d)
			}
			if !health.Equal(byFramework) {
				t.Errorf("cluster_health %v, the framework builds %v", health, byFramework)
			}

			if got := statusEntries(status); !reflect.DeepEqual(got, tc.status) {
				t.Errorf("status read back as %v, want %v", got, tc.status)
			}
			if got := healthEntries(health); !reflect.DeepEqual(got, tc.health) {
				t.Errorf("health read back as %v, want %v", got, tc.health)
			}
		})
	}
}

func TestStatusAndHealthEntriesOfNullAndUnknown(t *testing.T) {
	for name, v := range map[string]types.Map{
		"null":    types.MapNull(clusterStatusType),
		"unknown": types.MapUnknown(clusterStatusType),
	} {
		if got := statusEntries(v); len(got) != 0 {
			t.Errorf("%s cluster_status read as %v", name, got)
		}
	}
	for name, v := range map[string]types.Map{
		"null":    types.MapNull(healthType),
		"unknown": types.MapUnknown(healthType),
	} {
		if got := healthEntries(v); len(got) != 0 {
			t.Errorf("%s cluster_health read as %v", name, got)
		}
	}
}
