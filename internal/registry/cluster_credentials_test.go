package registry

import (
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

func TestClusterMissingCredentials(t *testing.T) {
	tests := []struct {
		name string
		c    Cluster
		want string
	}{
		{name: "token", c: Cluster{Name: "a", SecretName: "a-credentials", Connection: member.Connection{Token: "t"}}},
		{name: "certificate and key", c: Cluster{Name: "a", SecretName: "a-credentials",
			Connection: member.Connection{ClientCertificate: []byte("c"), ClientKey: []byte("k")}}},
		{name: "no Secret named", c: Cluster{Name: "a"}, want: "names no credential Secret"},
		{name: "certificate without key", c: Cluster{Name: "a", SecretName: "a-credentials",
			Connection: member.Connection{ClientCertificate: []byte("c")}}, want: "holds tls.crt without tls.key"},
		{name: "key without certificate", c: Cluster{Name: "a", SecretName: "a-credentials",
			Connection: member.Connection{ClientKey: []byte("k")}}, want: "holds tls.key without tls.crt"},
		{name: "nothing", c: Cluster{Name: "a", SecretName: "a-credentials"}, want: "kube-federation-system/a-credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.MissingCredentials("kube-federation-system")
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
