package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// Version 1 of the federated object, the application and the replica
// scheduling preference made the selectors and the overrides dynamic, so
// that a misspelt attribute in them is an error rather than dropped by the
// CLI. A version 0 state holds them typed, with every absent attribute
// null; the upgrade keeps what is set, as the configuration wrote it.
const dynamicSelectorsVersion = 1

// dynamicAttributesUpgrade upgrades a version 0 state whose attributes at
// paths are now dynamic.
func dynamicAttributesUpgrade(paths ...[]string) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: {StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest,
		resp *resource.UpgradeStateResponse) {
		if req.RawState == nil || req.RawState.JSON == nil {
			resp.Diagnostics.AddError("Cannot upgrade the stored state", "The state holds no JSON to upgrade.")
			return
		}
		upgraded, err := tfvalue.UpgradeToDynamic(req.RawState.JSON, paths...)
		if err != nil {
			resp.Diagnostics.AddError("Cannot upgrade the stored state", err.Error())
			return
		}
		resp.DynamicValue = &tfprotov6.DynamicValue{JSON: upgraded}
	}}}
}

var (
	_ resource.ResourceWithUpgradeState = &federatedObjectResource{}
	_ resource.ResourceWithUpgradeState = &federatedApplicationResource{}
	_ resource.ResourceWithUpgradeState = &replicaSchedulingPreferenceResource{}
)

func (r *federatedObjectResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return dynamicAttributesUpgrade([]string{"overrides"}, []string{"placement", "cluster_selector"})
}

func (r *federatedApplicationResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return dynamicAttributesUpgrade([]string{"overrides"}, []string{"placement", "cluster_selector"})
}

func (r *replicaSchedulingPreferenceResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return dynamicAttributesUpgrade([]string{"cluster_selector"})
}
