package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

func TestSettings_defaults(t *testing.T) {
	s, diags := providerModel{connectionModel: connectionModel{Host: types.StringValue("https://h")}}.settings()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.FederationNamespace != "kube-federation-system" || s.FieldManager != "terraform-provider-kubefed" ||
		s.MaxParallelClusters != 0 || s.Connection.RequestsInFlight != kube.DefaultRequestsInFlight || s.RequestTimeout != 30*time.Second ||
		s.Connection.QPS != 0 || s.Connection.Burst != 0 || s.Connection.Timeout != 30*time.Second || !s.Connection.AllowInCluster {
		t.Fatalf("defaults not applied: %+v", s)
	}
}

func TestSettings_rateLimit(t *testing.T) {
	cases := []struct {
		name       string
		qps, burst types.Int64
		wantQPS    float32
		wantBurst  int
	}{
		{"none unless qps is set", types.Int64Null(), types.Int64Null(), 0, 0},
		{"a burst of twice qps", types.Int64Value(20), types.Int64Null(), 20, 40},
		{"the burst given", types.Int64Value(20), types.Int64Value(5), 20, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, diags := providerModel{connectionModel: connectionModel{Host: types.StringValue("https://h")}, QPS: tc.qps, Burst: tc.burst}.settings()
			if diags.HasError() {
				t.Fatal(diags)
			}
			if s.Connection.QPS != tc.wantQPS || s.Connection.Burst != tc.wantBurst {
				t.Errorf("qps %v, burst %d; want %v, %d", s.Connection.QPS, s.Connection.Burst, tc.wantQPS, tc.wantBurst)
			}
		})
	}
}

func TestSettings_requestsPerCluster(t *testing.T) {
	s, diags := providerModel{connectionModel: connectionModel{Host: types.StringValue("https://h")},
		RequestsPerCluster: types.Int64Value(200), MaxParallelClusters: types.Int64Value(4)}.settings()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Connection.RequestsInFlight != 200 || s.MaxParallelClusters != 4 {
		t.Errorf("requests in flight %d, clusters at once %d; want 200 and 4", s.Connection.RequestsInFlight, s.MaxParallelClusters)
	}
}

func TestValidate_burstNeedsQPS(t *testing.T) {
	ctx := context.Background()
	server := providerserver.NewProtocol6(New("test")())()
	schemaResp, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	configType := schemaResp.Provider.ValueType().(tftypes.Object)
	config := func(set map[string]tftypes.Value) *tfprotov6.DynamicValue {
		values := map[string]tftypes.Value{}
		for name, typ := range configType.AttributeTypes {
			values[name] = tftypes.NewValue(typ, nil)
		}
		maps.Copy(values, set)
		dv, err := tfprotov6.NewDynamicValue(configType, tftypes.NewValue(configType, values))
		if err != nil {
			t.Fatal(err)
		}
		return &dv
	}
	burst := tftypes.NewValue(tftypes.Number, big.NewFloat(200))
	resp, err := server.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: config(map[string]tftypes.Value{"burst": burst})})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError ||
		!resp.Diagnostics[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName("burst")) ||
		!strings.Contains(resp.Diagnostics[0].Detail, "qps") {
		t.Fatalf("burst without qps: want one error on burst that names qps, got %+v", resp.Diagnostics)
	}
	qps := tftypes.NewValue(tftypes.Number, big.NewFloat(100))
	resp, err = server.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: config(map[string]tftypes.Value{"burst": burst, "qps": qps})})
	if err != nil || len(resp.Diagnostics) != 0 {
		t.Fatalf("burst with qps: %v %+v", err, resp.Diagnostics)
	}
}

func TestSettings_environmentFallback(t *testing.T) {
	t.Setenv("KUBE_HOST", "https://from-env")
	t.Setenv("KUBE_TOKEN", "env-token")
	t.Setenv("KUBE_INSECURE", "true")
	s, diags := providerModel{connectionModel: connectionModel{Token: types.StringValue("attribute-token")}}.settings()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Connection.Host != "https://from-env" || s.Connection.Token != "attribute-token" || !s.Connection.Insecure {
		t.Fatalf("attributes win, environment fills the rest: %+v", s.Connection)
	}
}

func TestSettings_kubeconfigPaths(t *testing.T) {
	list := func(paths ...string) types.List {
		values := make([]attr.Value, len(paths))
		for i, p := range paths {
			values[i] = types.StringValue(p)
		}
		return types.ListValueMust(types.StringType, values)
	}
	for _, tc := range []struct {
		name      string
		model     providerModel
		env       map[string]string
		wantPath  string
		wantPaths []string
	}{
		{"config_path over both variables", providerModel{connectionModel: connectionModel{ConfigPath: types.StringValue("/attr")}},
			map[string]string{"KUBE_CONFIG_PATH": "/env", "KUBE_CONFIG_PATHS": "/a:/b"}, "/attr", nil},
		{"config_paths over both variables", providerModel{ConfigPaths: list("/x", "/y")},
			map[string]string{"KUBE_CONFIG_PATH": "/env", "KUBE_CONFIG_PATHS": "/a:/b"}, "", []string{"/x", "/y"}},
		{"KUBE_CONFIG_PATH over KUBE_CONFIG_PATHS", providerModel{},
			map[string]string{"KUBE_CONFIG_PATH": "/env", "KUBE_CONFIG_PATHS": "/a:/b"}, "/env", nil},
		{"KUBE_CONFIG_PATHS split like KUBECONFIG, empty entries skipped", providerModel{},
			map[string]string{"KUBE_CONFIG_PATHS": "/a::/b:"}, "", []string{"/a", "/b"}},
		{"an empty config_paths leaves the variables in charge", providerModel{ConfigPaths: list()},
			map[string]string{"KUBE_CONFIG_PATHS": "/a"}, "", []string{"/a"}},
		{"nothing", providerModel{}, nil, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBE_CONFIG_PATH", tc.env["KUBE_CONFIG_PATH"])
			t.Setenv("KUBE_CONFIG_PATHS", tc.env["KUBE_CONFIG_PATHS"])
			s, diags := tc.model.settings()
			if diags.HasError() {
				t.Fatal(diags)
			}
			if s.Connection.ConfigPath != tc.wantPath || !slices.Equal(s.Connection.ConfigPaths, tc.wantPaths) {
				t.Errorf("config_path %q config_paths %q, want %q %q", s.Connection.ConfigPath, s.Connection.ConfigPaths, tc.wantPath, tc.wantPaths)
			}
		})
	}
}

func TestSettings_contextOverridesFromTheEnvironment(t *testing.T) {
	t.Setenv("KUBE_CTX", "env-context")
	t.Setenv("KUBE_CTX_AUTH_INFO", "env-user")
	t.Setenv("KUBE_CTX_CLUSTER", "env-cluster")
	s, diags := providerModel{ConfigContextCluster: types.StringValue("attr-cluster")}.settings()
	if diags.HasError() {
		t.Fatal(diags)
	}
	c := s.Connection
	if c.ConfigContext != "env-context" || c.ConfigContextAuthInfo != "env-user" || c.ConfigContextCluster != "attr-cluster" {
		t.Fatalf("attributes win, environment fills the rest: %+v", c)
	}
}

func TestSettings_errors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model providerModel
		env   map[string]string
		want  string
	}{
		{"bad insecure env", providerModel{connectionModel: connectionModel{Host: types.StringValue("h")}}, map[string]string{"KUBE_INSECURE": "maybe"},
			`KUBE_INSECURE: "maybe" is not a boolean`},
		{"exec without command", providerModel{connectionModel: connectionModel{Host: types.StringValue("h"), Exec: &execModel{
			Args: types.ListNull(types.StringType), Env: types.MapNull(types.StringType)}}}, nil,
			"The exec block needs a command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, diags := tc.model.settings()
			if !diags.HasError() {
				t.Fatal("want an error")
			}
			var text string
			for _, d := range diags.Errors() {
				text += d.Summary() + ": " + d.Detail()
			}
			if !strings.Contains(text, tc.want) {
				t.Fatalf("%q lacks %q", text, tc.want)
			}
		})
	}
}

func TestSettings_unknownConnectionIsNotAnError(t *testing.T) {
	for name, model := range map[string]providerModel{
		"host":                     {connectionModel: connectionModel{Host: types.StringUnknown()}},
		"config_paths":             {ConfigPaths: types.ListUnknown(types.StringType)},
		"config_context_auth_info": {ConfigContextAuthInfo: types.StringUnknown()},
		"config_context_cluster":   {ConfigContextCluster: types.StringUnknown()},
	} {
		if !model.hasUnknownConnection() {
			t.Errorf("an unknown %s is an unknown connection", name)
		}
		if _, diags := model.settings(); diags.HasError() {
			t.Errorf("an unknown %s must not fail configuration: %v", name, diags)
		}
	}
}

func TestSettings_nothingSetIsNotAnErrorYet(t *testing.T) {
	s, diags := providerModel{}.settings()
	if diags.HasError() || !s.Connection.IsEmpty() {
		t.Fatalf("functions work without a host: %v", diags)
	}
}

func TestRequestTimeoutIsCheckedAtValidate(t *testing.T) {
	ctx := context.Background()
	resp := &xattr.ValidateAttributeResponse{}
	timetypes.NewGoDurationValueFromStringMust("1m").ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: path.Root("request_timeout")}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("1m is a duration: %v", resp.Diagnostics)
	}
	bad := timetypes.GoDuration{StringValue: types.StringValue("soon")}
	bad.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: path.Root("request_timeout")}, resp)
	if !resp.Diagnostics.HasError() {
		t.Error(`"soon" must be refused at validate`)
	}
	if got := stringError(t, positiveDuration, types.StringValue("-1s")); !strings.Contains(got, `"-1s" is not a positive duration`) {
		t.Errorf("negative timeout: %q", got)
	}
	if got := stringError(t, positiveDuration, types.StringValue("30s")); got != "" {
		t.Errorf("30s refused: %q", got)
	}
}

var configTestFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"kubefed": providerserver.NewProtocol6WithError(New("test")()),
}

const readHostClusters = `
data "kubefed_clusters" "all" {}
`

// clearConnectionEnvironment unsets every variable the provider block
// falls back to, so that only what a test sets reaches the provider.
func clearConnectionEnvironment(t *testing.T) {
	t.Helper()
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBE_CTX", "KUBE_CTX_AUTH_INFO", "KUBE_CTX_CLUSTER",
		"KUBE_HOST", "KUBE_TOKEN", "KUBE_CLUSTER_CA_CERT_DATA", "KUBE_CLIENT_CERT_DATA", "KUBE_CLIENT_KEY_DATA",
		"KUBE_INSECURE", "KUBE_TLS_SERVER_NAME", "KUBE_PROXY_URL"} {
		t.Setenv(env, "")
	}
}

// The provider in a pod of the host cluster, with nothing set: the pod's
// environment and service account reach the lab's host. rest.InClusterConfig
// reads fixed paths, so the service account's files go to a temporary
// directory that kube.ServiceAccountDir points at.
func TestAccProviderConfig_inCluster(t *testing.T) {
	federationHost(t)
	host := acctest.Lab(t).Host()
	clearConnectionEnvironment(t)
	u, err := url.Parse(host.URL)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "token"), host.Token)
	writeTestFile(t, filepath.Join(dir, "ca.crt"), string(host.CAPEM))
	previous := kube.ServiceAccountDir
	kube.ServiceAccountDir = dir
	t.Cleanup(func() { kube.ServiceAccountDir = previous })
	t.Setenv("KUBERNETES_SERVICE_HOST", u.Hostname())
	t.Setenv("KUBERNETES_SERVICE_PORT", u.Port())
	// A kubeconfig where kubectl would look, which the provider must ignore.
	t.Setenv("KUBECONFIG", writeTestFile(t, filepath.Join(t.TempDir(), "kubeconfig"), "not: [a kubeconfig"))

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: configTestFactories,
		Steps: []resource.TestStep{
			{
				Config: `provider "kubefed" {}` + readHostClusters,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kubefed_clusters.all", tfjsonpath.New("names"), knownvalue.NotNull()),
				},
			},
			{
				// The pod's token is what authenticates: a wrong one is refused.
				PreConfig:   func() { writeTestFile(t, filepath.Join(dir, "token"), "not-the-token") },
				Config:      `provider "kubefed" {}` + readHostClusters,
				ExpectError: acctest.ErrorMatching("rejected the credentials (401 Unauthorized)"),
			},
			{
				// Any connection setting turns the pod's configuration off.
				Config:      `provider "kubefed" { config_context = "host" }` + readHostClusters,
				ExpectError: acctest.ErrorMatching("does not know which host cluster to use"),
			},
			{
				// Out of the pod, nothing is guessed.
				PreConfig:   func() { _ = os.Setenv("KUBERNETES_SERVICE_HOST", "") },
				Config:      `provider "kubefed" {}` + readHostClusters,
				ExpectError: acctest.ErrorMatching("does not know which host cluster to use", "never falls back to ~/.kube/config"),
			},
		},
	})
}

// Two kubeconfigs merged: the first names a context whose cluster nothing
// answers; the second holds the lab's host and its admin, which
// config_context_cluster and config_context_auth_info pick (the last step).
func TestAccProviderConfig_mergedKubeconfigs(t *testing.T) {
	federationHost(t)
	host := acctest.Lab(t).Host()
	clearConnectionEnvironment(t)
	dir := t.TempDir()
	decoy := writeTestFile(t, filepath.Join(dir, "decoy"), `apiVersion: v1
kind: Config
current-context: decoy
clusters:
- name: decoy
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: decoy
  user: {token: decoy-token}
contexts:
- name: decoy
  context: {cluster: decoy, user: decoy}
`)
	real := writeTestFile(t, filepath.Join(dir, "real"), fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: lab-host
  cluster: {server: %q, certificate-authority-data: %q}
users:
- name: lab-admin
  user: {token: %q}
`, host.URL, base64.StdEncoding.EncodeToString(host.CAPEM), host.Token))
	providerBlock := func(attributes string) string {
		return "provider \"kubefed\" {\n" + attributes + "\n}\n" + readHostClusters
	}
	paths := fmt.Sprintf("config_paths = [%s, %s]\n", acctest.Quote(decoy), acctest.Quote(real))

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: configTestFactories,
		Steps: []resource.TestStep{
			{
				// The first file's user, on the second file's cluster.
				Config:      providerBlock(paths + `config_context_cluster = "lab-host"`),
				ExpectError: acctest.ErrorMatching("rejected the credentials (401 Unauthorized)"),
			},
			{
				Config:      providerBlock(paths + `config_context_auth_info = "admin"`),
				ExpectError: acctest.ErrorMatching(`config_context_auth_info: user "admin" is not in the kubeconfig`, "decoy, lab-admin"),
			},
			{
				Config:      providerBlock(fmt.Sprintf("config_paths = [%s, %s]", acctest.Quote(real), acctest.Quote(filepath.Join(dir, "absent")))),
				ExpectError: acctest.ErrorMatching("config_paths[1]: reading kubeconfig"),
			},
			{
				Config:      providerBlock(paths + "config_path = " + acctest.Quote(real)),
				PlanOnly:    true,
				ExpectError: acctest.ErrorMatching("Invalid Attribute Combination", "config_paths"),
			},
			{
				// Last, so that the test's closing destroy has a valid configuration.
				Config: providerBlock(paths + `config_context_cluster = "lab-host"` + "\n" + `config_context_auth_info = "lab-admin"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kubefed_clusters.all", tfjsonpath.New("names"), knownvalue.NotNull()),
				},
			},
		},
	})
}

func writeTestFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
