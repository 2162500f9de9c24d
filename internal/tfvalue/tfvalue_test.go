package tfvalue

import (
	"context"
	"encoding/json"
	"maps"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestDynamicIsTypedAsALiteralAndReadsBack(t *testing.T) {
	form := map[string]any{
		"cluster": "berlin",
		"patches": []any{map[string]any{"path": "/spec/replicas", "value": "5"}},
		"weight":  int64(3),
		"on":      true,
	}
	v, err := Dynamic(form)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wantType := types.ObjectType{AttrTypes: map[string]attr.Type{
		"cluster": types.StringType,
		"patches": types.TupleType{ElemTypes: []attr.Type{types.ObjectType{AttrTypes: map[string]attr.Type{
			"path": types.StringType, "value": types.StringType,
		}}}},
		"weight": types.NumberType,
		"on":     types.BoolType,
	}}
	if got := v.UnderlyingValue().Type(ctx); !got.Equal(wantType) {
		t.Errorf("type %s, want %s", got, wantType)
	}
	back, err := Plain(v)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"cluster": "berlin",
		"patches": []any{map[string]any{"path": "/spec/replicas", "value": "5"}},
		"weight":  new(big.Float).SetInt64(3),
		"on":      true,
	}
	if back.(map[string]any)["weight"].(*big.Float).Cmp(want["weight"].(*big.Float)) != 0 {
		t.Errorf("weight read back as %v", back.(map[string]any)["weight"])
	}
	delete(back.(map[string]any), "weight")
	delete(want, "weight")
	if !reflect.DeepEqual(back, want) {
		t.Errorf("read back %#v, want %#v", back, want)
	}
}

func TestDynamicOfNothingIsNullAndANilInsideIsAnError(t *testing.T) {
	v, err := Dynamic(nil)
	if err != nil || !v.IsNull() {
		t.Errorf("Dynamic(nil) = %v, %v; want a null value", v, err)
	}
	var noRules []any
	var noSelector map[string]any
	for _, form := range []any{noRules, noSelector} {
		if v, err := Dynamic(form); err != nil || !v.IsNull() {
			t.Errorf("Dynamic(%#v) = %v, %v; want a null value", form, v, err)
		}
	}
	if v, err := Dynamic([]any{}); err != nil || v.IsNull() {
		t.Errorf("Dynamic of an empty list = %v, %v; want an empty tuple", v, err)
	}
	if _, err := Dynamic(map[string]any{"a": []any{nil}}); err == nil || !strings.Contains(err.Error(), `"a": [0]`) {
		t.Errorf("a nil inside: %v, want an error naming where", err)
	}
}

func TestPlainRefusesAnUnknownValue(t *testing.T) {
	v := types.DynamicValue(types.ObjectValueMust(map[string]attr.Type{"a": types.StringType},
		map[string]attr.Value{"a": types.StringUnknown()}))
	if _, err := Plain(v); err == nil || !strings.Contains(err.Error(), "not known yet") {
		t.Errorf("Plain of an unknown part: %v", err)
	}
}

func TestUpgradeToDynamic(t *testing.T) {
	selector := []string{"placement", "cluster_selector"}
	overrides := []string{"overrides"}
	for _, tc := range []struct {
		name, state, want string
	}{
		{"empty selector", `{"placement":{"clusters":null,"cluster_selector":{"match_labels":null,"match_expressions":null}},"overrides":null}`,
			`{"overrides":null,"placement":{"cluster_selector":{"type":["object",{}],"value":{}},"clusters":null}}`},
		{"labels", `{"placement":{"clusters":null,"cluster_selector":{"match_labels":{"region":"eu"},"match_expressions":null}},"overrides":null}`,
			`{"overrides":null,"placement":{"cluster_selector":{"type":["object",{"match_labels":["object",{"region":"string"}]}],"value":{"match_labels":{"region":"eu"}}},"clusters":null}}`},
		{"no placement", `{"placement":null,"overrides":null}`, `{"overrides":null,"placement":null}`},
		{"listed clusters", `{"placement":{"clusters":["a"],"cluster_selector":null},"overrides":null}`,
			`{"overrides":null,"placement":{"cluster_selector":null,"clusters":["a"]}}`},
		{"overrides", `{"placement":null,"overrides":[{"cluster":"a","cluster_selector":null,"patches":[{"op":null,"path":"/x","value":"1"}]}]}`,
			`{"overrides":{"type":["tuple",[["object",{"cluster":"string","patches":["tuple",[["object",{"path":"string","value":"string"}]]]}]]],` +
				`"value":[{"cluster":"a","patches":[{"path":"/x","value":"1"}]}]},"placement":null}`},
		{"numbers keep their spelling", `{"placement":null,"overrides":null,"total":12345678901234567890}`,
			`{"overrides":null,"placement":null,"total":12345678901234567890}`},
	} {
		got, err := UpgradeToDynamic([]byte(tc.state), overrides, selector)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !sameJSON(t, got, []byte(tc.want)) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		// The framework reads it with the new types.
		newType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
			"overrides": tftypes.DynamicPseudoType,
			"placement": tftypes.Object{AttributeTypes: map[string]tftypes.Type{
				"clusters": tftypes.List{ElementType: tftypes.String}, "cluster_selector": tftypes.DynamicPseudoType,
			}},
			"total": tftypes.Number,
		}}
		if _, err := (&tftypesRaw{got}).value(newType); err != nil {
			t.Errorf("%s: the upgraded state does not read as the new type: %v", tc.name, err)
		}
	}
	if _, err := UpgradeToDynamic([]byte(`[1]`), overrides); err == nil {
		t.Error("a state that is not an object was upgraded")
	}
}

// tftypesRaw reads upgraded JSON as the protocol's raw state is read.
type tftypesRaw struct{ json []byte }

func (r *tftypesRaw) value(typ tftypes.Object) (tftypes.Value, error) {
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(r.json, &attrs); err != nil {
		return tftypes.Value{}, err
	}
	present := tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}
	for name := range attrs {
		present.AttributeTypes[name] = typ.AttributeTypes[name]
	}
	return tftypes.ValueFromJSONWithOpts(r.json, present, tftypes.ValueFromJSONOpts{})
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestRenderedReadsBackEachClustersText(t *testing.T) {
	web := `{"kind":"Deployment","spec":{"replicas":3}}`
	byCluster := map[string]string{"berlin": web, "new-york": web, "sf": `{"kind":"Deployment","spec":{"replicas":2}}`, "tokyo": ""}
	v := Rendered(byCluster)
	attrs := v.Attributes()
	if got := attrs["manifest"].(types.String).ValueString(); got != web {
		t.Errorf("manifest = %s, want the text most clusters have", got)
	}
	if got := len(attrs["differences"].(types.Map).Elements()); got != 2 {
		t.Errorf("differences has %d entries, want sf's and tokyo's", got)
	}
	if back := RenderedByCluster(v); !maps.Equal(back, byCluster) {
		t.Errorf("read back %v, want %v", back, byCluster)
	}
	if v := Rendered(nil); !v.IsNull() {
		t.Errorf("no cluster: %v, want null", v)
	}
	set := map[string]map[string]string{"apps/v1/Deployment/shop/web": byCluster, "/v1/Namespace/shop": {"sf": `{"kind":"Namespace"}`}}
	if back := RenderedSetByObject(RenderedSet(set)); !reflect.DeepEqual(back, set) {
		t.Errorf("the set read back %v, want %v", back, set)
	}
}

// A state edited by hand so that a difference no longer applies does not
// fail the read: its clusters count as not known, which the refresh reads
// back from them.
func TestRenderedThatDoesNotJoinIsNotKnown(t *testing.T) {
	v := types.ObjectValueMust(RenderedType.AttrTypes, map[string]attr.Value{
		"manifest": types.StringValue(`{"a":1}`),
		"clusters": types.ListValueMust(types.StringType, []attr.Value{types.StringValue("berlin"), types.StringValue("sf")}),
		"differences": types.MapValueMust(types.StringType, map[string]attr.Value{
			"sf": types.StringValue(`[{"op":"remove","path":"/b"}]`)}),
	})
	if got := RenderedByCluster(v); !maps.Equal(got, map[string]string{"berlin": "", "sf": ""}) {
		t.Errorf("read %v, want both clusters not known", got)
	}
}

func TestDecodedJSONNumbersMakeNumbersAndComeBackAsWritten(t *testing.T) {
	form := map[string]any{"port": json.Number("8080"), "ratio": json.Number("0.25"), "big": json.Number("12345678901234567890")}
	v, err := Dynamic(form)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Plain(v)
	if err != nil {
		t.Fatal(err)
	}
	text, err := PlainJSON(back)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"big":12345678901234567890,"port":8080,"ratio":0.25}`; string(text) != want {
		t.Errorf("PlainJSON = %s, want %s", text, want)
	}
}
