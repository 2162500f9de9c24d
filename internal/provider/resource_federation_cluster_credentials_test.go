package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// clusterConfig is a kubefed_federation_cluster configuration of values.
func clusterConfig(ctx context.Context, t *testing.T, values map[string]any) tfsdk.Config {
	t.Helper()
	var resp resource.SchemaResponse
	NewFederationClusterResource().Schema(ctx, resource.SchemaRequest{}, &resp)
	return tfsdk.Config{Schema: resp.Schema, Raw: configOfType(resp.Schema.Type().TerraformType(ctx), values)}
}

func TestGivenCredentials(t *testing.T) {
	cases := []struct {
		name   string
		values map[string]any
		want   memberCredentials
	}{
		{name: "a token", values: map[string]any{"token": "t"}, want: memberCredentials{token: "t"}},
		{name: "a write-only token", values: map[string]any{"token_wo": "t"}, want: memberCredentials{token: "t", tokenWriteOnly: true}},
		{name: "a key", values: map[string]any{"client_key": "k"}, want: memberCredentials{clientKey: "k"}},
		{name: "a write-only key", values: map[string]any{"client_key_wo": "k"},
			want: memberCredentials{clientKey: "k", clientKeyWriteOnly: true}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			config := clusterConfig(ctx, t, tc.values)
			var plan federationClusterModel
			// The plan holds what the configuration does, write-only values
			// nulled, as Terraform plans them.
			diags := clusterModels.fromConfig(ctx, config, &plan)
			plan.TokenWO, plan.ClientKeyWO = types.StringNull(), types.StringNull()
			got := givenCredentials(ctx, &plan, config, &diags)
			if diags.HasError() || got != tc.want {
				t.Errorf("got %+v %v, want %+v", got, diags, tc.want)
			}
		})
	}
}

func TestJoinWriteOnlyOf(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		values map[string]any
		want   joinWriteOnly
	}{
		{name: "no join", values: map[string]any{"token_wo": "t"}},
		{name: "a join with its token", values: map[string]any{"join": map[string]any{"token": "t"}}},
		{name: "a join with a write-only token", values: map[string]any{"join": map[string]any{"token_wo": "t"}}, want: joinWriteOnly{token: "t"}},
		{name: "a join with a write-only key", values: map[string]any{"join": map[string]any{"client_key_wo": "k"}}, want: joinWriteOnly{clientKey: "k"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var diags diag.Diagnostics
			got := joinWriteOnlyOf(ctx, clusterConfig(ctx, t, tc.values), &diags)
			if diags.HasError() || got != tc.want || got.given() != (tc.want != joinWriteOnly{}) {
				t.Errorf("got %+v %v, want %+v", got, diags, tc.want)
			}
		})
	}
}

// A destroy of a cluster joined with write-only credentials removes the
// registration without reaching the member, and says what stays there.
func TestUnjoinOnDelete_writeOnlyJoin(t *testing.T) {
	var diags diag.Diagnostics
	state := &federationClusterModel{Name: types.StringValue("berlin"), ServiceAccount: types.StringValue("kube-federation-system/berlin-host")}
	proceed, left := (&federationClusterResource{}).unjoinOnDelete(context.Background(), state, true, &diags)
	if !proceed || !left {
		t.Fatalf("proceed %t, left %t: want the registration removed and the join recorded as left: %v", proceed, left, diags)
	}
	if len(diags) != 1 || diags.WarningsCount() != 1 || !strings.Contains(diags[0].Detail(), "Remove by hand, on cluster \"berlin\"") {
		t.Errorf("diagnostics %v, want one warning saying what to remove on berlin", diags)
	}
}
