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

// stateUpgrade upgrades a stored state of each version below the current
// one: each step is a rewrite of the state's JSON, applied in order from
// the stored version's.
func stateUpgrade(steps ...func([]byte) ([]byte, error)) map[int64]resource.StateUpgrader {
	upgraders := map[int64]resource.StateUpgrader{}
	for version := range steps {
		upgraders[int64(version)] = resource.StateUpgrader{StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest,
			resp *resource.UpgradeStateResponse) {
			if req.RawState == nil || req.RawState.JSON == nil {
				resp.Diagnostics.AddError("Cannot upgrade the stored state", "The state holds no JSON to upgrade.")
				return
			}
			state := req.RawState.JSON
			for _, step := range steps[version:] {
				var err error
				if state, err = step(state); err != nil {
					resp.Diagnostics.AddError("Cannot upgrade the stored state", err.Error())
					return
				}
			}
			resp.DynamicValue = &tfprotov6.DynamicValue{JSON: state}
		}}
	}
	return upgraders
}

// toDynamic is the step to version 1 for attributes at paths now dynamic.
func toDynamic(paths ...[]string) func([]byte) ([]byte, error) {
	return func(state []byte) ([]byte, error) { return tfvalue.UpgradeToDynamic(state, paths...) }
}

// toRenderedByObject is the step to version 2: rendered by object.
func toRenderedByObject(nested bool) func([]byte) ([]byte, error) {
	return func(state []byte) ([]byte, error) { return tfvalue.UpgradeRendered(state, nested) }
}

var (
	_ resource.ResourceWithUpgradeState = &federatedObjectResource{}
	_ resource.ResourceWithUpgradeState = &federatedApplicationResource{}
	_ resource.ResourceWithUpgradeState = &replicaSchedulingPreferenceResource{}
)

func (r *federatedObjectResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return stateUpgrade(toDynamic([]string{"overrides"}, []string{"placement", "cluster_selector"}), toRenderedByObject(false))
}

func (r *federatedApplicationResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return stateUpgrade(toDynamic([]string{"overrides"}, []string{"placement", "cluster_selector"}), toRenderedByObject(true))
}

func (r *replicaSchedulingPreferenceResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return stateUpgrade(toDynamic([]string{"cluster_selector"}))
}
