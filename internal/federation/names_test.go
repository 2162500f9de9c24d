package federation

import (
	"strings"
	"testing"
)

func TestNameProblems(t *testing.T) {
	id := func(apiVersion, kind, namespace, name string) Identity {
		return Identity{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name}
	}
	tests := []struct {
		name string
		id   Identity
		want []string
	}{
		{"a good ConfigMap", id("v1", "ConfigMap", "shop", "web.config"), nil},
		{"a cluster-scoped object", id("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader"), nil},
		{"a name in upper case", id("apps/v1", "Deployment", "shop", "Web"), []string{`metadata.name "Web" is not a DNS-1123 subdomain`}},
		{"a name with a colon, which the host's Federated<Kind> cannot take", id("rbac.authorization.k8s.io/v1", "ClusterRole", "", "system:reader"),
			[]string{`metadata.name "system:reader" is not a DNS-1123 subdomain`}},
		{"a namespace with a dot", id("v1", "ConfigMap", "shop.eu", "web"), []string{`metadata.namespace "shop.eu" is not a DNS-1123 label`}},
		{"both", id("v1", "ConfigMap", "Shop", "web_1"), []string{`metadata.namespace "Shop" is not a DNS-1123 label`, `metadata.name "web_1" is not a DNS-1123 subdomain`}},
		{"a Namespace with a dot", id("v1", "Namespace", "", "shop.eu"), []string{`metadata.name "shop.eu" is not a DNS-1123 label, as a Namespace's name must be`}},
		{"a Service starting with a digit", id("v1", "Service", "shop", "1web"), []string{`metadata.name "1web" is not a DNS-1035 label, as a Service's name must be`}},
		{"a dotted name of another group's Service", id("example.com/v1", "Service", "shop", "web.v2"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.id.NameProblems()
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %d problems like %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d: got %q, want it to start with %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestTemplateHasNamespace(t *testing.T) {
	for template, want := range map[string]bool{
		"metadata:\n  name: a\n  namespace: shop\n": true,
		`{"metadata":{"name":"a"}}`:                 false,
		"metadata:\n  name: a\n  namespace: \"\"\n": false,
		"not: [yaml": false,
	} {
		if got := TemplateHasNamespace(template); got != want {
			t.Errorf("TemplateHasNamespace(%q) = %t, want %t", template, got, want)
		}
	}
}
