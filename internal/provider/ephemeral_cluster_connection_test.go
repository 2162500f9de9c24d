package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

const connectionNamespace = "kube-federation-system"

func TestRegisteredConnection(t *testing.T) {
	const ca, cert, key = "-----BEGIN CERTIFICATE-----\nca\n", "-----BEGIN CERTIFICATE-----\nclient\n", "-----BEGIN EC PRIVATE KEY-----\nkey\n"
	registered := func(edit func(*registry.Cluster)) registry.Cluster {
		c := registry.Cluster{Name: "berlin", SecretName: "berlin-credentials", Connection: member.Connection{
			APIEndpoint: "https://berlin.example:6443", CABundle: []byte(ca), Token: "berlin-token"}}
		if edit != nil {
			edit(&c)
		}
		return c
	}
	base := clusterConnectionModel{
		Name: types.StringValue("berlin"), Host: types.StringValue("https://berlin.example:6443"),
		ClusterCACertificate: types.StringValue(ca), Token: types.StringValue("berlin-token"),
		ClientCertificate: types.StringNull(), ClientKey: types.StringNull(),
		Insecure: types.BoolValue(false), ProxyURL: types.StringNull(),
	}
	withModel := func(edit func(*clusterConnectionModel)) clusterConnectionModel {
		m := base
		edit(&m)
		return m
	}
	for _, tc := range []struct {
		name        string
		cluster     registry.Cluster
		want        clusterConnectionModel
		wantWarning string
		wantErr     string
	}{
		{name: "a token", cluster: registered(nil), want: base},
		{name: "a client certificate instead of a token",
			cluster: registered(func(c *registry.Cluster) {
				c.Connection.Token, c.Connection.ClientCertificate, c.Connection.ClientKey = "", []byte(cert), []byte(key)
			}),
			want: withModel(func(m *clusterConnectionModel) {
				m.Token, m.ClientCertificate, m.ClientKey = types.StringNull(), types.StringValue(cert), types.StringValue(key)
			})},
		{name: "a token and a client certificate",
			cluster: registered(func(c *registry.Cluster) {
				c.Connection.ClientCertificate, c.Connection.ClientKey = []byte(cert), []byte(key)
			}),
			want: withModel(func(m *clusterConnectionModel) {
				m.ClientCertificate, m.ClientKey = types.StringValue(cert), types.StringValue(key)
			})},
		{name: "a token beside a certificate without its key leaves the certificate out",
			cluster: registered(func(c *registry.Cluster) { c.Connection.ClientCertificate = []byte(cert) }),
			want:    base},
		{name: "a certificate without its key",
			cluster: registered(func(c *registry.Cluster) { c.Connection.Token, c.Connection.ClientCertificate = "", []byte(cert) }),
			wantErr: `Secret kube-federation-system/berlin-credentials of cluster "berlin" holds tls.crt without tls.key`},
		{name: "a key without its certificate",
			cluster: registered(func(c *registry.Cluster) { c.Connection.Token, c.Connection.ClientKey = "", []byte(key) }),
			wantErr: "holds tls.key without tls.crt"},
		{name: "a missing or empty Secret",
			cluster: registered(func(c *registry.Cluster) { c.Connection.Token = "" }),
			wantErr: "is missing or holds neither token nor tls.crt and tls.key"},
		{name: "no Secret named",
			cluster: registered(func(c *registry.Cluster) { c.SecretName, c.Connection.Token = "", "" }),
			wantErr: "names no credential Secret (spec.secretRef.name)"},
		{name: "every TLS validation disabled",
			cluster: registered(func(c *registry.Cluster) { c.Connection.DisabledTLSValidations = []string{member.TLSAll} }),
			want:    withModel(func(m *clusterConnectionModel) { m.Insecure = types.BoolValue(true) })},
		{name: "some TLS validations disabled",
			cluster:     registered(func(c *registry.Cluster) { c.Connection.DisabledTLSValidations = []string{member.TLSSubjectName} }),
			want:        base,
			wantWarning: "skips the TLS validations SubjectName"},
		{name: "a proxy and no CA",
			cluster: registered(func(c *registry.Cluster) {
				c.Connection.ProxyURL, c.Connection.CABundle = "http://proxy.example:3128", nil
			}),
			want: withModel(func(m *clusterConnectionModel) {
				m.ProxyURL, m.ClusterCACertificate = types.StringValue("http://proxy.example:3128"), types.StringNull()
			})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warning, err := registeredConnection(tc.cluster, connectionNamespace)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("connection\n got %+v\nwant %+v", got, tc.want)
			}
			if (tc.wantWarning == "") != (warning == "") || !strings.Contains(warning, tc.wantWarning) {
				t.Errorf("warning %q, want %q", warning, tc.wantWarning)
			}
		})
	}
}

func TestUnregisteredClusterDetail(t *testing.T) {
	for _, tc := range []struct {
		name       string
		registered []string
		listErr    error
		want       string
	}{
		{name: "others registered", registered: []string{"berlin", "new-york"},
			want: `No KubeFedCluster called "paris" is registered in namespace "kube-federation-system" of the host. Registered clusters: berlin, new-york.`},
		{name: "none registered", want: "No cluster is registered there yet: register it with kubefed_federation_cluster first."},
		{name: "the list fails too", listErr: errors.New("forbidden"), want: "Listing the registered clusters failed too: forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := registry.UnregisteredClusterDetail("paris", connectionNamespace, tc.registered, tc.listErr); !strings.Contains(got, tc.want) {
				t.Fatalf("%q lacks %q", got, tc.want)
			}
		})
	}
}

// fakeRegistry is a registry of clusters in a pretend host, without
// credential Secrets, whose dynamic client runs react first.
func fakeRegistry(react clienttesting.ReactionFunc, clusters ...string) *registry.Registry {
	objects := make([]runtime.Object, 0, len(clusters))
	for _, name := range clusters {
		objects = append(objects, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "core.kubefed.io/v1beta1", "kind": "KubeFedCluster",
			"metadata": map[string]any{"name": name, "namespace": connectionNamespace},
			"spec":     map[string]any{"apiEndpoint": "https://" + name + ".example", "secretRef": map[string]any{"name": name + "-credentials"}},
		}})
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{registry.KubeFedClusterResource: "KubeFedClusterList"}, objects...)
	if react != nil {
		dyn.PrependReactor("*", "kubefedclusters", react)
	}
	return registry.New(kubefake.NewClientset(), dyn, nil, connectionNamespace, DefaultFieldManager)
}

func TestReadClusterConnection_errors(t *testing.T) {
	refuseList := func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() != "list" {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(registry.KubeFedClusterResource.GroupResource(), "", errors.New("no list"))
	}
	refuseGet := func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(registry.KubeFedClusterResource.GroupResource(), "paris", errors.New("no get"))
	}
	for _, tc := range []struct {
		name      string
		reg       *registry.Registry
		wantPath  path.Path
		wantParts []string
	}{
		{name: "a name that is not registered lists the registered clusters", reg: fakeRegistry(nil, "new-york", "berlin"),
			wantPath: path.Root("name"), wantParts: []string{`"paris"`, "Registered clusters: berlin, new-york."}},
		{name: "a name that is not registered in a host whose list fails says both", reg: fakeRegistry(refuseList, "berlin"),
			wantPath: path.Root("name"), wantParts: []string{`"paris"`, "Listing the registered clusters failed too", "no list"}},
		{name: "a registration the host does not let the provider read", reg: fakeRegistry(refuseGet, "paris"),
			wantPath: path.Empty(), wantParts: []string{"reading KubeFedCluster kube-federation-system/paris", "no get"}},
		{name: "a registration whose Secret is gone", reg: fakeRegistry(nil, "paris"),
			wantPath: path.Root("name"), wantParts: []string{"kube-federation-system/paris-credentials", "is missing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := readClusterConnection(context.Background(), tc.reg, "paris")
			if !diags.HasError() {
				t.Fatal("no error")
			}
			d := diags.Errors()[0]
			at := path.Empty()
			if withPath, ok := d.(interface{ Path() path.Path }); ok {
				at = withPath.Path()
			}
			if !at.Equal(tc.wantPath) {
				t.Errorf("error at %q, want %q", at, tc.wantPath)
			}
			for _, part := range tc.wantParts {
				if !strings.Contains(d.Detail(), part) {
					t.Errorf("%q lacks %q", d.Detail(), part)
				}
			}
		})
	}
}
