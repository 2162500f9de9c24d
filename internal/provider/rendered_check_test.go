package provider_test

import (
	"context"
	"fmt"
	"maps"
	"slices"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/renderdiff"
)

// renderedTexts reads a `rendered` value as the plan's or the state's JSON
// gives it (manifest, clusters, differences) back into each cluster's
// text, as the provider does.
func renderedTexts(v any) (map[string]string, error) {
	if v == nil {
		return map[string]string{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("rendered is %T, not an object", v)
	}
	var view renderdiff.View
	view.Manifest, _ = m["manifest"].(string)
	clusters, _ := m["clusters"].([]any)
	for _, c := range clusters {
		s, _ := c.(string)
		view.Clusters = append(view.Clusters, s)
	}
	if differences, ok := m["differences"].(map[string]any); ok {
		view.Differences = map[string]string{}
		for c, d := range differences {
			view.Differences[c], _ = d.(string)
		}
	}
	return view.Join()
}

// plannedRendered is each cluster's planned text of the resource at
// address; with key, of that object of an application.
func plannedRendered(plan *tfjson.Plan, address, key string) (map[string]string, error) {
	for _, rc := range plan.ResourceChanges {
		if rc.Address != address || rc.Change == nil {
			continue
		}
		after, _ := rc.Change.After.(map[string]any)
		if unknown, _ := rc.Change.AfterUnknown.(map[string]any); unknown["rendered"] == true {
			return nil, fmt.Errorf("%s: rendered is unknown in the plan", address)
		}
		rendered := after["rendered"]
		if key != "" {
			byKey, _ := rendered.(map[string]any)
			rendered = byKey[key]
		}
		return renderedTexts(rendered)
	}
	return nil, fmt.Errorf("the plan has no change of %s", address)
}

// expectRendered checks the planned text of each named cluster of the
// resource at address; with exactly, that no other cluster has one.
func expectRendered(address string, exactly bool, checks map[string]knownvalue.Check) plancheck.PlanCheck {
	return renderedPlanCheck{address: address, exactly: exactly, checks: checks}
}

type renderedPlanCheck struct {
	address string
	exactly bool
	checks  map[string]knownvalue.Check
}

func (c renderedPlanCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	texts, err := plannedRendered(req.Plan, c.address, "")
	if err != nil {
		resp.Error = err
		return
	}
	if c.exactly && !slices.Equal(slices.Sorted(maps.Keys(texts)), slices.Sorted(maps.Keys(c.checks))) {
		resp.Error = fmt.Errorf("%s: rendered plans clusters %v, want %v", c.address, slices.Sorted(maps.Keys(texts)),
			slices.Sorted(maps.Keys(c.checks)))
		return
	}
	for cluster, check := range c.checks {
		text, ok := texts[cluster]
		if !ok {
			resp.Error = fmt.Errorf("%s: rendered plans nothing for %s (it has %v)", c.address, cluster, slices.Sorted(maps.Keys(texts)))
			return
		}
		if err := check.CheckValue(text); err != nil {
			resp.Error = fmt.Errorf("%s: rendered for %s: %w", c.address, cluster, err)
			return
		}
	}
}

// renderedSameAs checks that the state's text of cluster in the resource
// at address is the string attribute of another resource.
func renderedSameAs(address, cluster, other, attribute string) statecheck.StateCheck {
	return renderedStateCheck{address: address, cluster: cluster, other: other, attribute: attribute}
}

type renderedStateCheck struct{ address, cluster, other, attribute string }

func (c renderedStateCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	values := map[string]map[string]any{}
	if req.State != nil && req.State.Values != nil && req.State.Values.RootModule != nil {
		for _, r := range req.State.Values.RootModule.Resources {
			values[r.Address] = r.AttributeValues
		}
	}
	texts, err := renderedTexts(values[c.address]["rendered"])
	if err != nil {
		resp.Error = fmt.Errorf("%s: %w", c.address, err)
		return
	}
	if want, _ := values[c.other][c.attribute].(string); texts[c.cluster] != want {
		resp.Error = fmt.Errorf("%s: rendered for %s is\n%s\nbut %s.%s is\n%s", c.address, c.cluster, texts[c.cluster], c.other, c.attribute, want)
	}
}
