package provider

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

func TestIDParts_split(t *testing.T) {
	cases := []struct {
		name    string
		parts   idParts
		id      string
		want    map[string]string
		wantErr string
	}{
		{name: "a cluster", parts: clusterIdentity, id: "berlin", want: map[string]string{"name": "berlin"}},
		{name: "a namespaced object", parts: objectIdentity, id: "deployments.apps/web/api",
			want: map[string]string{"type": "deployments.apps", "namespace": "web", "name": "api"}},
		{name: "a cluster-scoped object leaves the namespace out", parts: objectIdentity, id: "namespaces/web",
			want: map[string]string{"type": "namespaces", "name": "web"}},
		{name: "an object id with too many parts", parts: objectIdentity, id: "a/b/c/d", wantErr: "<type>/<namespace>/<name> or <type>/<name>"},
		{name: "an object id with only a type", parts: objectIdentity, id: "configmaps", wantErr: "such as deployments.apps/web/web"},
		{name: "a preference without a namespace", parts: preferenceIdentity, id: "web", wantErr: "<namespace>/<name>, such as shop/web"},
		{name: "an empty part", parts: preferenceIdentity, id: "/web", wantErr: "has an empty namespace"},
		{name: "an empty id", parts: clusterIdentity, id: "", wantErr: "is not an id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.parts.Split(tc.id)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, %v; want an error saying %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !maps.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
			back, err := tc.parts.Join(got)
			if err != nil || back != tc.id {
				t.Errorf("joined back into %q, %v; want %q", back, err, tc.id)
			}
		})
	}
}

func TestIDParts_join(t *testing.T) {
	cases := []struct {
		name    string
		parts   idParts
		values  map[string]string
		want    string
		wantErr string
	}{
		{name: "a preference", parts: preferenceIdentity, values: map[string]string{"namespace": "shop", "name": "web"}, want: "shop/web"},
		{name: "a cluster-scoped object", parts: objectIdentity, values: map[string]string{"type": "namespaces", "name": "web"}, want: "namespaces/web"},
		{name: "a missing name", parts: objectIdentity, values: map[string]string{"type": "configmaps", "namespace": "web"},
			wantErr: "the identity has no name: set type, name"},
		{name: "a namespace set for a preference is required", parts: preferenceIdentity, values: map[string]string{"name": "web"},
			wantErr: "has no namespace"},
		{name: "a slash in a value", parts: clusterIdentity, values: map[string]string{"name": "a/b"}, wantErr: `holds a "/"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.parts.Join(tc.values)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("got %q, %v; want an error saying %q", got, err, tc.wantErr)
			case tc.wantErr == "" && (err != nil || got != tc.want):
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// identityServer is the provider's protocol server, configured without a
// host, and the identity types of its resources by name.
func identityServer(ctx context.Context, t *testing.T) (tfprotov6.ProviderServer, map[string]tftypes.Type) {
	t.Helper()
	server := withFastPath(&kubefedProvider{version: "test", clients: kube.NewClientFactory()},
		providerserver.NewProtocol6(&kubefedProvider{version: "test", clients: kube.NewClientFactory()})())
	configuredWithoutHost(ctx, t, server)
	schemas, err := server.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		t.Fatalf("identity schemas: %v %+v", err, schemas)
	}
	types := map[string]tftypes.Type{}
	for name, s := range schemas.IdentitySchemas {
		types[name] = s.ValueType()
	}
	return server, types
}

// identityValue is an identity of typ: values by attribute, null where
// absent.
func identityValue(t *testing.T, typ tftypes.Type, values map[string]string) *tfprotov6.ResourceIdentityData {
	t.Helper()
	attrs := map[string]tftypes.Value{}
	for name := range typ.(tftypes.Object).AttributeTypes {
		attrs[name] = tftypes.NewValue(tftypes.String, nil)
		if v, ok := values[name]; ok {
			attrs[name] = tftypes.NewValue(tftypes.String, v)
		}
	}
	data, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		t.Fatal(err)
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &data}
}

// valuesOf is an identity's or a state's string attributes, by name.
func valuesOf(t *testing.T, typ tftypes.Type, v *tfprotov6.DynamicValue) map[string]string {
	t.Helper()
	if v == nil {
		return nil
	}
	value, err := v.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := value.As(&attrs); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, a := range attrs {
		var s string
		if a.Type().Is(tftypes.String) && !a.IsNull() && a.As(&s) == nil {
			out[name] = s
		}
	}
	return out
}

// identityCases are each resource's identity and the id it is made of.
var identityCases = []struct {
	name, typeName, id string
	identity           map[string]string
}{
	{name: "a cluster", typeName: "kubefed_federation_cluster", id: "berlin", identity: map[string]string{"name": "berlin"}},
	{name: "a type", typeName: "kubefed_federated_type", id: "deployments.apps", identity: map[string]string{"name": "deployments.apps"}},
	{name: "an object", typeName: "kubefed_federated_object", id: "deployments.apps/web/api",
		identity: map[string]string{"type": "deployments.apps", "namespace": "web", "name": "api"}},
	{name: "an object of a cluster-scoped type", typeName: "kubefed_federated_object", id: "namespaces/web",
		identity: map[string]string{"type": "namespaces", "name": "web"}},
	{name: "a preference", typeName: "kubefed_replica_scheduling_preference", id: "shop/web",
		identity: map[string]string{"namespace": "shop", "name": "web"}},
}

// Every resource imports alike by its ID and by its identity, as an import
// block gives either, and answers with the identity.
func TestImportResourceState_byIDOrIdentity(t *testing.T) {
	ctx := context.Background()
	server, identityTypes := identityServer(ctx, t)
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range identityCases {
		typ := identityTypes[tc.typeName]
		stateType := schemas.ResourceSchemas[tc.typeName].ValueType()
		for _, by := range []string{"ID", "identity"} {
			t.Run(tc.name+" by "+by, func(t *testing.T) {
				req := &tfprotov6.ImportResourceStateRequest{TypeName: tc.typeName, ID: tc.id}
				if by == "identity" {
					req.ID, req.Identity = "", identityValue(t, typ, tc.identity)
				}
				resp, err := server.ImportResourceState(ctx, req)
				if err != nil || len(resp.Diagnostics) > 0 || len(resp.ImportedResources) != 1 {
					t.Fatalf("import: %v %s", err, described(t, resp))
				}
				imported := resp.ImportedResources[0]
				if id := valuesOf(t, stateType, imported.State)["id"]; id != tc.id {
					t.Errorf("imported id %q, want %q", id, tc.id)
				}
				if imported.Identity == nil {
					t.Fatal("imported without an identity")
				}
				if got := valuesOf(t, typ, imported.Identity.IdentityData); !maps.Equal(got, tc.identity) {
					t.Errorf("imported identity %v, want %v", got, tc.identity)
				}
			})
		}
	}
}

// An identity that names no object is refused with what to set.
func TestImportResourceState_refusesAnIncompleteIdentity(t *testing.T) {
	ctx := context.Background()
	server, identityTypes := identityServer(ctx, t)
	resp, err := server.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: "kubefed_federated_object",
		Identity: identityValue(t, identityTypes["kubefed_federated_object"], map[string]string{"namespace": "web", "name": "api"})})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Summary != "Invalid import identity" ||
		!strings.Contains(resp.Diagnostics[0].Detail, "the identity has no type: set type, name") {
		t.Errorf("diagnostics %s, want one saying the type is missing", described(t, resp.Diagnostics))
	}
}

// Every resource's refresh sets its identity from its state, even when the
// host cannot be read (here, there is none) and when the state was written
// before the resource had an identity.
func TestReadResource_setsTheIdentity(t *testing.T) {
	ctx := context.Background()
	server, identityTypes := identityServer(ctx, t)
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range identityCases {
		t.Run(tc.name, func(t *testing.T) {
			stateType := schemas.ResourceSchemas[tc.typeName].ValueType().(tftypes.Object)
			attrs := map[string]tftypes.Value{}
			for name, typ := range stateType.AttributeTypes {
				attrs[name] = tftypes.NewValue(typ, nil)
			}
			attrs["id"] = tftypes.NewValue(tftypes.String, tc.id)
			for name, v := range tc.identity {
				if _, ok := stateType.AttributeTypes[name]; ok {
					attrs[name] = tftypes.NewValue(tftypes.String, v)
				}
			}
			if tc.typeName == "kubefed_federated_object" {
				attrs["template"] = tftypes.NewValue(tftypes.String, "{}")
			}
			state, err := tfprotov6.NewDynamicValue(stateType, tftypes.NewValue(stateType, attrs))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: tc.typeName, CurrentState: &state})
			if err != nil {
				t.Fatal(err)
			}
			if resp.NewIdentity == nil {
				t.Fatalf("no identity read: %s", described(t, resp.Diagnostics))
			}
			if got := valuesOf(t, identityTypes[tc.typeName], resp.NewIdentity.IdentityData); !maps.Equal(got, tc.identity) {
				t.Errorf("read identity %v, want %v", got, tc.identity)
			}
		})
	}
}
