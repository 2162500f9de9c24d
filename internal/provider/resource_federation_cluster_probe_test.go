package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

func clusterWithToken(token string) *federationClusterModel {
	return &federationClusterModel{
		APIEndpoint: types.StringValue("https://berlin"), CABundle: types.StringValue("ca"), Token: types.StringValue(token),
		TokenWO: types.StringNull(), TokenWOVersion: types.Int64Null(), ClientCertificate: types.StringNull(),
		ClientKey: types.StringNull(), DisabledTLSValidations: types.ListNull(types.StringType),
		ProxyURL: types.StringNull(), RequireReady: types.BoolValue(true),
	}
}

// The plan probes a registration only when the way it reaches its member
// changes, and only when all of it is known.
func TestProbeAtPlanWhen(t *testing.T) {
	prior := clusterWithToken("t1")
	for _, c := range []struct {
		name        string
		edit        func(m *federationClusterModel)
		known, diff bool
	}{
		{"nothing changes", func(*federationClusterModel) {}, true, false},
		{"only the labels change", func(m *federationClusterModel) { m.Labels = types.MapNull(types.StringType) }, true, false},
		{"a new endpoint", func(m *federationClusterModel) { m.APIEndpoint = types.StringValue("https://paris") }, true, true},
		{"a new token", func(m *federationClusterModel) { m.Token = types.StringValue("t2") }, true, true},
		{"a new write-only token version", func(m *federationClusterModel) { m.TokenWOVersion = types.Int64Value(2) }, true, true},
		{"require_ready turned on", func(m *federationClusterModel) { m.RequireReady = types.BoolValue(false) }, true, true},
		{"a token known at apply only", func(m *federationClusterModel) { m.Token = types.StringUnknown() }, false, true},
		{"a CA known at apply only", func(m *federationClusterModel) { m.CABundle = types.StringUnknown() }, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := clusterWithToken("t1")
			c.edit(plan)
			if got := connectionKnown(plan); got != c.known {
				t.Errorf("connectionKnown = %v, want %v", got, c.known)
			}
			if got := connectionChanged(plan, prior); got != c.diff {
				t.Errorf("connectionChanged = %v, want %v", got, c.diff)
			}
		})
	}
}

// A failed probe points at the credential the member refused, else at the
// endpoint.
func TestProbeFailureAttribute(t *testing.T) {
	withCert := clusterWithToken("")
	withCert.Token = types.StringNull()
	withCert.ClientCertificate = types.StringValue("cert")
	for _, c := range []struct {
		name      string
		reason    string
		m         *federationClusterModel
		writeOnly bool
		want      path.Path
	}{
		{"refused connection", member.ReasonNotReachable, clusterWithToken("t"), false, path.Root("api_endpoint")},
		{"unhealthy", member.ReasonNotReady, clusterWithToken("t"), false, path.Root("api_endpoint")},
		{"a token rejected", member.ReasonAuthenticationFailed, clusterWithToken("t"), false, path.Root("token")},
		{"a token without rights", member.ReasonAuthorizationFailed, clusterWithToken("t"), false, path.Root("token")},
		{"a write-only token rejected", member.ReasonAuthenticationFailed, withCert, true, path.Root("token_wo")},
		{"a certificate rejected", member.ReasonAuthenticationFailed, withCert, false, path.Root("client_certificate")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := probeFailureAttribute(c.reason, c.m, c.writeOnly); !got.Equal(c.want) {
				t.Errorf("attribute = %s, want %s", got, c.want)
			}
		})
	}
}
