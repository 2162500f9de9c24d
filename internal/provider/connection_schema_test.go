package provider

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// The join reads its connection through the model it shares with the
// provider block: every shared attribute must reach the member's config.
func TestJoinConnectionReadsTheSharedAttributes(t *testing.T) {
	ctx := context.Background()
	given := joinModel{
		connectionModel: connectionModel{
			ConfigPath: types.StringValue("/kubeconfig"), ConfigContext: types.StringValue("admin"),
			Host: types.StringValue("https://member:6443"), Token: types.StringValue("t"),
			ClusterCACertificate: types.StringValue("ca"), ClientCertificate: types.StringValue("cert"),
			ClientKey: types.StringValue("key"), Insecure: types.BoolValue(true),
			TLSServerName: types.StringValue("member.local"), ProxyURL: types.StringValue("http://proxy:3128"),
			Exec: &execModel{APIVersion: types.StringNull(), Command: types.StringValue("get-token"),
				Args: types.ListValueMust(types.StringType, []attr.Value{types.StringValue("--cluster")}),
				Env:  types.MapValueMust(types.StringType, map[string]attr.Value{"REGION": types.StringValue("eu")})},
		},
		HostClusterName: types.StringNull(),
		FederatedTypes:  types.SetNull(types.StringType),
	}
	object, diags := types.ObjectValueFrom(ctx, joinSchema().GetType().(types.ObjectType).AttrTypes, given)
	if diags.HasError() {
		t.Fatal(diags)
	}
	var readDiags diag.Diagnostics
	j := joinOf(ctx, object, &readDiags)
	if j == nil || readDiags.HasError() {
		t.Fatalf("joinOf: %v", readDiags)
	}
	got, diags := j.connection(ctx, settings{RequestTimeout: 7})
	if diags.HasError() {
		t.Fatal(diags)
	}
	want := kube.Config{ConfigPath: "/kubeconfig", ConfigContext: "admin", Host: "https://member:6443", Token: "t",
		ClusterCACertificate: "ca", ClientCertificate: "cert", ClientKey: "key", Insecure: true,
		TLSServerName: "member.local", ProxyURL: "http://proxy:3128", Timeout: 7,
		Exec: &kube.ExecConfig{APIVersion: defaultExecAPIVersion, Command: "get-token", Args: []string{"--cluster"},
			Env: map[string]string{"REGION": "eu"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("connection\n got %+v\nwant %+v", got, want)
	}
}

// Both uses have every shared attribute, with the same type and
// sensitivity: a credential hidden in one is hidden in the other.
func TestConnectionAttributesAgreeBetweenProviderBlockAndJoin(t *testing.T) {
	var providerSchema provider.SchemaResponse
	New("test")().Schema(context.Background(), provider.SchemaRequest{}, &providerSchema)
	host, member := providerSchema.Schema.Attributes, joinSchema().Attributes
	for _, s := range connectionSettings() {
		h, m := host[s.name], member[s.name]
		if h == nil || m == nil {
			t.Errorf("%s: in the provider block %v, in join %v", s.name, h != nil, m != nil)
			continue
		}
		if !h.GetType().Equal(m.GetType()) || h.IsSensitive() != m.IsSensitive() {
			t.Errorf("%s: provider block %s (sensitive %v), join %s (sensitive %v)",
				s.name, h.GetType(), h.IsSensitive(), m.GetType(), m.IsSensitive())
		}
		if h.GetDescription() == m.GetDescription() {
			t.Errorf("%s: the same description for the host and a member: %q", s.name, h.GetDescription())
		}
	}
}
