package provider_test

import (
	"context"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// checkAtPlan runs a check of the clusters or the host when the plan is
// checked: a plan-only step runs no Check, so what it should find there
// is checked with its plan.
type checkAtPlan resource.TestCheckFunc

func (c checkAtPlan) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = c(nil)
}

// checksAtPlan are a plan-only step's plan checks that run these checks,
// all of them, with its plan.
func checksAtPlan(checks ...resource.TestCheckFunc) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{checkAtPlan(resource.ComposeAggregateTestCheckFunc(checks...))}}
}
