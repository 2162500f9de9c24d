package provider

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

func TestDNSSubdomainValidator(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{"a plain name", "web", ""},
		{"a dotted name", "web.v2", ""},
		{"253 characters", strings.Repeat("a", 253), ""},
		{"upper case", "Web", `must be a DNS-1123 subdomain: at most 253 lowercase letters, digits, '-' and '.', each part between dots starting and ending with a letter or digit (got "Web")`},
		{"an underscore", "web_api", `(got "web_api")`},
		{"ends with a dash", "web-", `(got "web-")`},
		{"254 characters", strings.Repeat("a", 254), `(got "` + strings.Repeat("a", 254) + `")`},
		{"empty", "", `(got "")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stringError(t, dnsSubdomainValidator{}, types.StringValue(tt.value))
			if (tt.want == "") != (got == "") || !strings.HasSuffix(got, tt.want) {
				t.Fatalf("got %q, want one ending in %q", got, tt.want)
			}
		})
	}
	if got := stringError(t, dnsSubdomainValidator{}, types.StringUnknown()); got != "" {
		t.Errorf("unknown value rejected: %q", got)
	}
}

func TestDNSSubdomainValidator_namesANestedAttribute(t *testing.T) {
	resp := &validator.StringResponse{}
	at := path.Root("spread").AtName("name")
	dnsSubdomainValidator{}.ValidateString(context.Background(), validator.StringRequest{Path: at, ConfigValue: types.StringValue("A")}, resp)
	if got := resp.Diagnostics.Errors()[0].Detail(); !strings.HasPrefix(got, "spread.name: must be") {
		t.Fatalf("detail %q does not start with the attribute's path", got)
	}
}

func TestDuplicateNames(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  []string
	}{
		{"none", nil, nil},
		{"all different", []string{"berlin", "new-york"}, nil},
		{"one twice", []string{"berlin", "new-york", "berlin"}, []string{"berlin"}},
		{"one three times is named once", []string{"berlin", "berlin", "berlin"}, []string{"berlin"}},
		{"two, in the order they repeat", []string{"berlin", "tokyo", "tokyo", "berlin"}, []string{"tokyo", "berlin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := federation.DuplicateNames(tt.names); !slices.Equal(got, tt.want) {
				t.Fatalf("duplicateNames(%q) = %q, want %q", tt.names, got, tt.want)
			}
		})
	}
}

// listErrors runs a list validator at placement.clusters and returns the
// error details.
func listErrors(t *testing.T, v validator.List, value types.List) []string {
	t.Helper()
	resp := &validator.ListResponse{}
	at := path.Root("placement").AtName("clusters")
	v.ValidateList(context.Background(), validator.ListRequest{Path: at, ConfigValue: value}, resp)
	return details(resp.Diagnostics)
}

func details(diags diag.Diagnostics) []string {
	var out []string
	for _, d := range diags.Errors() {
		out = append(out, d.Detail())
	}
	return out
}

func TestUniqueNamesValidator(t *testing.T) {
	list := func(values ...attr.Value) types.List { return types.ListValueMust(types.StringType, values) }
	s := types.StringValue
	tests := []struct {
		name  string
		value types.List
		want  []string
	}{
		{"different names", list(s("berlin"), s("new-york")), nil},
		{"a name twice", list(s("berlin"), s("new-york"), s("berlin")),
			[]string{`placement.clusters: "berlin" is listed more than once: list each cluster once`}},
		{"unknown elements are not compared", list(types.StringUnknown(), types.StringUnknown()), nil},
		{"null list", types.ListNull(types.StringType), nil},
		{"unknown list", types.ListUnknown(types.StringType), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := listErrors(t, uniqueNamesValidator{}, tt.value); !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClusterKeysValidator(t *testing.T) {
	m := func(keys ...string) types.Map {
		elements := map[string]attr.Value{}
		for _, k := range keys {
			elements[k] = types.Int64Value(1)
		}
		return types.MapValueMust(types.Int64Type, elements)
	}
	tests := []struct {
		name  string
		v     clusterKeysValidator
		value types.Map
		want  []string
	}{
		{"cluster names", clusterKeysValidator{}, m("berlin", "new-york"), nil},
		{"a name that is no label", clusterKeysValidator{}, m("Berlin"),
			[]string{`clusters: key "Berlin" must be a cluster's name, a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit`}},
		{"the wildcard where it is not allowed", clusterKeysValidator{}, m("*"),
			[]string{`clusters: key "*" must be a cluster's name, a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit`}},
		{"the wildcard where it is allowed", clusterKeysValidator{all: true}, m("*", "berlin"), nil},
		{"a bad name where the wildcard is allowed", clusterKeysValidator{all: true}, m("eu_central"),
			[]string{`clusters: key "eu_central" must be a cluster's name, a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit, or "*" for every other cluster`}},
		{"unknown map", clusterKeysValidator{}, types.MapUnknown(types.Int64Type), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &validator.MapResponse{}
			tt.v.ValidateMap(context.Background(), validator.MapRequest{Path: path.Root("clusters"), ConfigValue: tt.value}, resp)
			if got := details(resp.Diagnostics); !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWarnNoPlacement(t *testing.T) {
	placement := types.ObjectValueMust(map[string]attr.Type{"clusters": types.ListType{ElemType: types.StringType}},
		map[string]attr.Value{"clusters": types.ListValueMust(types.StringType, []attr.Value{types.StringValue("berlin")})})
	placementOfNothing := types.ObjectValueMust(map[string]attr.Type{"clusters": types.ListType{ElemType: types.StringType}},
		map[string]attr.Value{"clusters": types.ListNull(types.StringType)})
	noPlacement := types.ObjectNull(map[string]attr.Type{"clusters": types.ListType{ElemType: types.StringType}})
	replicas := types.MapValueMust(types.Int64Type, map[string]attr.Value{"berlin": types.Int64Value(2)})
	tests := []struct {
		name      string
		placement types.Object
		replicas  types.Map
		warns     bool
	}{
		{"neither placement nor cluster_replicas", noPlacement, types.MapNull(types.Int64Type), true},
		{"a placement", placement, types.MapNull(types.Int64Type), false},
		{"a placement of neither clusters nor a selector", placementOfNothing, types.MapNull(types.Int64Type), true},
		{"a placement known at apply only", types.ObjectUnknown(placement.AttributeTypes(context.Background())), types.MapNull(types.Int64Type), false},
		{"cluster_replicas alone", noPlacement, replicas, false},
		{"cluster_replicas known at apply only", noPlacement, types.MapUnknown(types.Int64Type), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var diags diag.Diagnostics
			warnNoPlacement(tt.placement, tt.replicas, &diags)
			if got := diags.WarningsCount() == 1; got != tt.warns {
				t.Fatalf("warned: %v, want %v (%v)", got, tt.warns, diags)
			}
			if tt.warns && tt.placement.IsNull() && diags[0].Detail() != "The object is placed on no cluster: it has neither placement nor cluster_replicas. "+
				"Set placement.clusters to name the clusters, or placement.cluster_selector = {} to place it on every registered cluster." {
				t.Errorf("detail %q", diags[0].Detail())
			}
			if tt.warns && !tt.placement.IsNull() && !strings.Contains(diags[0].Detail(), "placement sets neither clusters nor cluster_selector") {
				t.Errorf("detail %q", diags[0].Detail())
			}
		})
	}
}
