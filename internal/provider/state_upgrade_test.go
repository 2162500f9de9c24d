package provider

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// A version 0 state held selectors and overrides typed, every absent
// attribute null. The upgrade gives them as a configuration writes them:
// what is set, as objects and tuples, which is what `{}` and literal rules
// are, so that such a configuration plans nothing after the upgrade.
func TestStateUpgrade_typedSelectorsAndOverridesBecomeWhatTheConfigurationWrote(t *testing.T) {
	ctx := context.Background()
	server := providerserver.NewProtocol6(&kubefedProvider{version: "test", clients: kube.NewClientFactory()})()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	emptySelector := `{"match_labels": null, "match_expressions": null}`
	rules := `[{"cluster": "berlin", "cluster_selector": null, "patches": [{"op": null, "path": "/data/a", "value": "\"b\""}]},
	  {"cluster": null, "cluster_selector": {"match_labels": {"region": "eu"}, "match_expressions": null},
	   "patches": [{"op": "remove", "path": "/data/c", "value": null}]}]`
	wantRules := dynamicValue(t, `{
	  "value": [{"cluster": "berlin", "patches": [{"path": "/data/a", "value": "\"b\""}]},
	            {"cluster_selector": {"match_labels": {"region": "eu"}}, "patches": [{"op": "remove", "path": "/data/c"}]}],
	  "type": ["tuple", [
	    ["object", {"cluster": "string", "patches": ["tuple", [["object", {"path": "string", "value": "string"}]]]}],
	    ["object", {"cluster_selector": ["object", {"match_labels": ["object", {"region": "string"}]}],
	                "patches": ["tuple", [["object", {"op": "string", "path": "string"}]]]}]]]}`)
	emptyObject := dynamicValue(t, `{"value": {}, "type": ["object", {}]}`)
	for _, tc := range []struct {
		resource string
		v0       map[string]string
		want     map[string]tftypes.Value // by attribute; placement's selector under "placement.cluster_selector"
	}{
		{"kubefed_federated_object", map[string]string{"placement": `{"clusters": null, "cluster_selector": ` + emptySelector + `}`, "overrides": rules},
			map[string]tftypes.Value{"placement.cluster_selector": emptyObject, "overrides": wantRules}},
		{"kubefed_federated_application", map[string]string{"placement": `{"clusters": ["a"], "cluster_selector": null}`, "overrides": rules},
			map[string]tftypes.Value{"placement.cluster_selector": tftypes.NewValue(tftypes.DynamicPseudoType, nil), "overrides": wantRules}},
		{"kubefed_replica_scheduling_preference", map[string]string{"cluster_selector": emptySelector},
			map[string]tftypes.Value{"cluster_selector": emptyObject}},
		{"kubefed_replica_scheduling_preference", map[string]string{"cluster_selector": "null"},
			map[string]tftypes.Value{"cluster_selector": tftypes.NewValue(tftypes.DynamicPseudoType, nil)}},
	} {
		typ := schemas.ResourceSchemas[tc.resource].ValueType().(tftypes.Object)
		state := map[string]json.RawMessage{}
		for name := range typ.AttributeTypes {
			state[name] = json.RawMessage("null")
		}
		for name, v := range tc.v0 {
			state[name] = json.RawMessage(v)
		}
		raw, err := json.Marshal(state)
		if err != nil {
			t.Fatal(err)
		}
		attrs := upgradeFrom(ctx, t, server, tc.resource, 0, typ, raw)
		for name, want := range tc.want {
			got := attrs[name]
			if name == "placement.cluster_selector" {
				var placement map[string]tftypes.Value
				if err := attrs["placement"].As(&placement); err != nil {
					t.Fatal(err)
				}
				got = placement["cluster_selector"]
			}
			if !got.Equal(want) {
				t.Errorf("%s: %s upgraded to\n%v\nwant\n%v", tc.resource, name, got, want)
			}
		}
	}
}

// dynamicValue is the value of a dynamic attribute written as the state
// holds it: {"value": ..., "type": ...}.
func dynamicValue(t *testing.T, text string) tftypes.Value {
	t.Helper()
	v, err := tftypes.ValueFromJSONWithOpts([]byte(text), tftypes.DynamicPseudoType, tftypes.ValueFromJSONOpts{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Versions 0 and 1 held one full text per cluster in `rendered`; the
// upgrade gives the view the plan now computes from the same texts, so the
// same configuration plans no change.
func TestStateUpgrade_renderedByClusterBecomesByObject(t *testing.T) {
	ctx := context.Background()
	server := providerserver.NewProtocol6(&kubefedProvider{version: "test", clients: kube.NewClientFactory()})()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	web := `{"kind":"Deployment","spec":{"replicas":3}}`
	byCluster := map[string]string{"berlin": web, "new-york": web, "sf": `{"kind":"Deployment","spec":{"replicas":2}}`}
	perObject := map[string]map[string]string{"apps/v1/Deployment/shop/web": byCluster, "/v1/Namespace/shop": {"sf": `{"kind":"Namespace"}`}}
	byClusterThenKey := map[string]map[string]string{}
	for key, texts := range perObject {
		for cluster, text := range texts {
			if byClusterThenKey[cluster] == nil {
				byClusterThenKey[cluster] = map[string]string{}
			}
			byClusterThenKey[cluster][key] = text
		}
	}
	objectWant, _ := tfvalue.Rendered(byCluster).ToTerraformValue(ctx)
	setWant, _ := tfvalue.RenderedSet(perObject).ToTerraformValue(ctx)
	for _, tc := range []struct {
		resource string
		old      any
		want     tftypes.Value
	}{
		{"kubefed_federated_object", byCluster, objectWant},
		{"kubefed_federated_object", map[string]string{}, tftypes.NewValue(objectWant.Type(), nil)},
		{"kubefed_federated_application", byClusterThenKey, setWant},
	} {
		for _, version := range []int64{0, 1} {
			typ := schemas.ResourceSchemas[tc.resource].ValueType().(tftypes.Object)
			state := map[string]any{}
			for name := range typ.AttributeTypes {
				state[name] = nil
			}
			state["rendered"] = tc.old
			raw, err := json.Marshal(state)
			if err != nil {
				t.Fatal(err)
			}
			attrs := upgradeFrom(ctx, t, server, tc.resource, version, typ, raw)
			if got := attrs["rendered"]; !got.Equal(tc.want) {
				t.Errorf("%s from version %d: rendered upgraded to\n%v\nwant\n%v", tc.resource, version, got, tc.want)
			}
		}
	}
}

// upgradeFrom upgrades raw, a state of resource at version, and gives its
// attributes.
func upgradeFrom(ctx context.Context, t *testing.T, server tfprotov6.ProviderServer, resource string, version int64,
	typ tftypes.Object, raw []byte) map[string]tftypes.Value {
	t.Helper()
	resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: resource, Version: version,
		RawState: &tfprotov6.RawState{JSON: raw}})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("%s: upgrade from %d: %v %+v", resource, version, err, resp.Diagnostics)
	}
	upgraded, err := resp.UpgradedState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := upgraded.As(&attrs); err != nil {
		t.Fatal(err)
	}
	return attrs
}
