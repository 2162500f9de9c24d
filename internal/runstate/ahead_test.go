package runstate

import (
	"maps"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

func TestAheadEndpoints(t *testing.T) {
	token := func(endpoint string) member.Connection { return member.Connection{APIEndpoint: endpoint, Token: "t"} }
	snapshot := NewSnapshot([]registry.Cluster{
		{Name: "sf", Connection: token("https://sf:6443")},
		{Name: "ny", Connection: token("https://ny:6443")},
		{Name: "cert", Connection: member.Connection{APIEndpoint: "https://cert:6443", ClientCertificate: []byte("c"), ClientKey: []byte("k")}},
		{Name: "proxied", Connection: member.Connection{APIEndpoint: "https://proxied:6443", Token: "t", ProxyURL: "http://proxy:3128"}},
	})
	snapshot.PlanCluster("new", nil, true)
	for _, tc := range []struct {
		name     string
		clusters []string
		want     map[string]string
	}{
		{"token members", []string{"ny", "sf"}, map[string]string{"ny": "https://ny:6443", "sf": "https://sf:6443"}},
		{"a client certificate is sent in the handshake", []string{"cert", "sf"}, map[string]string{"sf": "https://sf:6443"}},
		{"a proxy stands between", []string{"proxied"}, map[string]string{}},
		{"not registered yet", []string{"new"}, map[string]string{}},
		{"not registered at all", []string{"gone"}, map[string]string{}},
		{"none", nil, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := snapshot.AheadEndpoints(tc.clusters); !maps.Equal(got, tc.want) {
				t.Errorf("AheadEndpoints(%v) = %v, want %v", tc.clusters, got, tc.want)
			}
		})
	}
}
