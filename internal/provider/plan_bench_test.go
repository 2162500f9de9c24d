package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

// benchClusters are the members the plan benchmarks place each object on,
// as benchObjectState names them.
var benchClusters = []string{"a", "b", "c"}

// cannedAPI answers GETs of the paths it holds, whatever their query, with
// the JSON it holds for them, and 404 otherwise: the host or a member as a
// no-change plan reads them, without any work of its own worth measuring.
// A server-side apply (a PATCH) gets its object back, as written.
type cannedAPI map[string][]byte

func (c cannedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/selfsubjectaccessreviews") {
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","status":{"allowed":true}}`))
		return
	}
	if r.Method == http.MethodPatch {
		// Read whole before the answer starts: a server may stop reading
		// the request then.
		body, _ := io.ReadAll(r.Body)
		_, _ = w.Write(body)
		return
	}
	body, ok := c[r.URL.Path]
	if !ok || r.Method != http.MethodGet {
		w.WriteHeader(http.StatusNotFound)
		_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":%q}`, r.URL.Path)
		return
	}
	_, _ = w.Write(body)
}

// benchFederation is a host and members holding the ConfigMaps of a
// benchSet as an apply of them leaves them: each recorded in the host as a
// FederatedConfigMap placed on every member, and held by every member.
type benchFederation struct {
	host    *httptest.Server
	members []*httptest.Server
}

// benchSet is what a bench federation holds: ConfigMaps bench-0, bench-1,
// ... on every one of clusters, recorded in the host for application, or
// each as an object of its own when application is "".
type benchSet struct {
	objects     int
	clusters    []string
	application string
}

// newBenchFederation holds objects of their own on benchClusters.
func newBenchFederation(tb testing.TB, objects int) *benchFederation {
	tb.Helper()
	return newSetFederation(tb, benchSet{objects: objects, clusters: benchClusters})
}

func newSetFederation(tb testing.TB, set benchSet) *benchFederation {
	tb.Helper()
	f := &benchFederation{}
	var items, secrets []string
	for _, name := range set.clusters {
		m := httptest.NewServer(memberAPI(tb, set.objects))
		tb.Cleanup(m.Close)
		f.members = append(f.members, m)
		items = append(items, fmt.Sprintf(`{"apiVersion":"core.kubefed.io/v1beta1","kind":"KubeFedCluster",`+
			`"metadata":{"name":%q,"namespace":"kube-federation-system","uid":"u-%s","resourceVersion":"7"},`+
			`"spec":{"apiEndpoint":%q,"secretRef":{"name":"%s-token"}},"status":{"kubernetesVersion":"v1.37.2",`+
			`"conditions":[{"type":"Ready","status":"True","lastProbeTime":"2026-01-01T00:00:00Z",`+
			`"lastTransitionTime":"2026-01-01T00:00:00Z","reason":"ClusterReady","message":"/healthz responded with ok"}]}}`,
			name, name, m.URL, name))
		secrets = append(secrets, fmt.Sprintf(`{"metadata":{"name":"%s-token","namespace":"kube-federation-system"},`+
			`"data":{"token":%q},"type":"Opaque"}`, name, base64.StdEncoding.EncodeToString([]byte("token-"+name))))
	}
	api := cannedAPI{
		"/api":  []byte(`{"kind":"APIVersions","versions":["v1"]}`),
		"/apis": []byte(`{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`),
		"/api/v1/namespaces/kube-federation-system": []byte(
			`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kube-federation-system"}}`),
		"/apis/core.kubefed.io/v1beta1/namespaces/kube-federation-system/kubefedclusters": []byte(
			`{"apiVersion":"core.kubefed.io/v1beta1","kind":"KubeFedClusterList","metadata":{},"items":[` + strings.Join(items, ",") + `]}`),
		"/api/v1/namespaces/kube-federation-system/secrets": []byte(
			`{"apiVersion":"v1","kind":"SecretList","metadata":{},"items":[` + strings.Join(secrets, ",") + `]}`),
		"/apis/core.kubefed.io/v1beta1/namespaces/kube-federation-system/federatedtypeconfigs/configmaps": []byte(configMapType),
		"/apis/core.kubefed.io/v1beta1/namespaces/kube-federation-system/federatedtypeconfigs": []byte(
			`{"apiVersion":"core.kubefed.io/v1beta1","kind":"FederatedTypeConfigList","metadata":{},"items":[` + configMapType + `]}`),
		"/apis/types.kubefed.io/v1beta1/namespaces/default/federatedconfigmaps": hostObjects(tb, set),
	}
	for _, crd := range []string{"kubefedclusters.core.kubefed.io", "federatedtypeconfigs.core.kubefed.io",
		"replicaschedulingpreferences.scheduling.kubefed.io", "federatedconfigmaps.types.kubefed.io"} {
		api["/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+crd] = []byte(fmt.Sprintf(
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":%q},`+
				`"status":{"conditions":[{"type":"Established","status":"True"}]}}`, crd))
	}
	f.host = httptest.NewServer(api)
	tb.Cleanup(f.host.Close)
	return f
}

// configMapType is the FederatedTypeConfig that enables ConfigMaps.
const configMapType = `{"apiVersion":"core.kubefed.io/v1beta1","kind":"FederatedTypeConfig","metadata":{"name":"configmaps",` +
	`"namespace":"kube-federation-system"},"spec":{"targetType":{"version":"v1","kind":"ConfigMap","pluralName":"configmaps",` +
	`"scope":"Namespaced"},"federatedType":{"group":"types.kubefed.io","version":"v1beta1","kind":"FederatedConfigMap",` +
	`"pluralName":"federatedconfigmaps","scope":"Namespaced"},"propagation":"Enabled"}}`

// benchTemplate is object i's template, as benchObjectState has object 0's.
func benchTemplate(i int) string {
	return fmt.Sprintf("\"apiVersion\": \"v1\"\n\"data\":\n  \"index\": \"%d\"\n\"kind\": \"ConfigMap\"\n\"metadata\":\n"+
		"  \"name\": \"bench-%d\"\n  \"namespace\": \"default\"\n", i, i)
}

// hostObjects is the list of the set's FederatedConfigMaps, with the
// template the engine derives for the host.
func hostObjects(tb testing.TB, set benchSet) []byte {
	tb.Helper()
	items := make([]any, 0, set.objects)
	for i := range set.objects {
		renderer, err := federation.NewRenderer(federation.RenderSpec{Template: benchTemplate(i), Namespaced: true})
		if err != nil {
			tb.Fatal(err)
		}
		var placed []any
		for _, c := range set.clusters {
			placed = append(placed, map[string]any{"name": c})
		}
		metadata := map[string]any{"name": fmt.Sprintf("bench-%d", i), "namespace": "default",
			"uid": fmt.Sprintf("fcm-%d", i), "resourceVersion": strconv.Itoa(100 + i), "generation": 1}
		if set.application != "" {
			metadata["labels"] = map[string]any{registry.ApplicationLabel: set.application}
		}
		items = append(items, map[string]any{
			"apiVersion": "types.kubefed.io/v1beta1", "kind": "FederatedConfigMap", "metadata": metadata,
			"spec": map[string]any{"template": renderer.HostTemplate(), "placement": map[string]any{"clusters": placed}},
		})
	}
	return listOf(tb, "types.kubefed.io/v1beta1", "FederatedConfigMapList", items)
}

// memberAPI is a member holding the objects as the provider applied them,
// with what the API server adds.
func memberAPI(tb testing.TB, objects int) cannedAPI {
	tb.Helper()
	items := make([]any, 0, objects)
	for i := range objects {
		items = append(items, map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"index": strconv.Itoa(i)},
			"metadata": map[string]any{"name": fmt.Sprintf("bench-%d", i), "namespace": "default",
				"labels": map[string]any{"kubefed.io/managed": "true"}, "uid": fmt.Sprintf("cm-%d", i),
				"resourceVersion": strconv.Itoa(200 + i), "creationTimestamp": "2026-01-01T00:00:00Z",
				"managedFields": []any{map[string]any{"manager": "kubefed", "operation": "Apply", "apiVersion": "v1",
					"time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{
						"f:data":     map[string]any{"f:index": map[string]any{}},
						"f:metadata": map[string]any{"f:labels": map[string]any{"f:kubefed.io/managed": map[string]any{}}}}}}},
		})
	}
	return cannedAPI{
		"/healthz":                              []byte("ok"),
		"/version":                              []byte(`{"gitVersion":"v1.37.2"}`),
		"/api/v1/namespaces/default/configmaps": listOf(tb, "v1", "ConfigMapList", items),
	}
}

func listOf(tb testing.TB, apiVersion, kind string, items []any) []byte {
	tb.Helper()
	raw, err := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{}, "items": items})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// configured is the provider's protocol server, as Terraform starts it for
// a plan, configured with the federation's host.
func (f *benchFederation) configured(ctx context.Context, tb testing.TB) tfprotov6.ProviderServer {
	tb.Helper()
	server, err := Server("bench")()
	if err != nil {
		tb.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	providerType := schemas.Provider.ValueType().(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, typ := range providerType.AttributeTypes {
		attrs[name] = tftypes.NewValue(typ, nil)
	}
	attrs["host"] = tftypes.NewValue(tftypes.String, f.host.URL)
	attrs["token"] = tftypes.NewValue(tftypes.String, "bench")
	config, err := tfprotov6.NewDynamicValue(providerType, tftypes.NewValue(providerType, attrs))
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &config})
	if err != nil || len(resp.Diagnostics) > 0 {
		tb.Fatalf("configure: %v %+v", err, resp.Diagnostics)
	}
	return server
}

// benchObject is object i's state, as an apply leaves it, and its
// configuration, as Terraform sends them.
type benchObject struct {
	rawState []byte
	config   *tfprotov6.DynamicValue
	typ      tftypes.Type
}

func benchObjects(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer, objects int) []benchObject {
	tb.Helper()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	typ := schemas.ResourceSchemas["kubefed_federated_object"].ValueType()
	out := make([]benchObject, 0, objects)
	for i := range objects {
		var attrs map[string]any
		if err := json.Unmarshal([]byte(benchObjectState), &attrs); err != nil {
			tb.Fatal(err)
		}
		attrs["id"] = fmt.Sprintf("configmaps/default/bench-%d", i)
		attrs["template"] = benchTemplate(i)
		rendered := fmt.Sprintf(`{"apiVersion":"v1","data":{"index":"%d"},"kind":"ConfigMap","metadata":{"labels":`+
			`{"kubefed.io/managed":"true"},"name":"bench-%d","namespace":"default"}}`, i, i)
		attrs["rendered"] = tfvalue.RenderedJSON(map[string]string{"a": rendered, "b": rendered, "c": rendered})
		state, err := json.Marshal(attrs)
		if err != nil {
			tb.Fatal(err)
		}
		for _, computed := range []string{"cluster_health", "cluster_status", "id", "placed_clusters", "rendered", "rollout_plan"} {
			attrs[computed] = nil
		}
		config, err := json.Marshal(attrs)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, benchObject{rawState: state, config: upgradedObject(ctx, tb, server, config), typ: typ})
	}
	return out
}

// planNoChange makes the calls of a no-change plan of one object that
// Terraform makes after configuring the provider, and fails tb unless the
// plan keeps the state as it is.
func planNoChange(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer, o benchObject) {
	tb.Helper()
	const typeName = "kubefed_federated_object"
	validated, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: o.config})
	if err != nil || len(validated.Diagnostics) > 0 {
		tb.Fatalf("validate: %v %+v", err, validated.Diagnostics)
	}
	state := upgradedObject(ctx, tb, server, o.rawState)
	read, err := server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: typeName, CurrentState: state})
	if err != nil || len(read.Diagnostics) > 0 || read.NewState == nil {
		tb.Fatalf("read: %v %+v", err, read.Diagnostics)
	}
	planned, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: typeName,
		PriorState: read.NewState, ProposedNewState: read.NewState, Config: o.config, PriorPrivate: read.Private})
	if err != nil || len(planned.Diagnostics) > 0 || len(planned.RequiresReplace) > 0 {
		tb.Fatalf("plan: %v %+v", err, planned)
	}
	if !sameValue(tb, o.typ, read.NewState, planned.PlannedState) {
		tb.Fatal("the plan changes the object: the federation does not hold what the state says")
	}
}

// sameValue reports whether two values of kubefed_federated_object are
// equal; their encodings follow Go's map order.
func sameValue(tb testing.TB, typ tftypes.Type, a, b *tfprotov6.DynamicValue) bool {
	tb.Helper()
	av, err := a.Unmarshal(typ)
	if err != nil {
		tb.Fatal(err)
	}
	bv, err := b.Unmarshal(typ)
	if err != nil {
		tb.Fatal(err)
	}
	if !av.Equal(bv) {
		tb.Logf("state %v\nplan %v", av, bv)
		return false
	}
	return true
}

// The benchmarks' federation holds what the objects' state says, so their
// plans are no-change plans that refresh and plan every object in full:
// a change of what the provider reads that the canned clusters do not
// follow fails here rather than measuring a different plan.
func TestNoChangePlan_benchFederationPlansNoChange(t *testing.T) {
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBERNETES_SERVICE_HOST"} {
		t.Setenv(env, "")
	}
	ctx := context.Background()
	f := newBenchFederation(t, 3)
	server := f.configured(ctx, t)
	for _, o := range benchObjects(ctx, t, server, 3) {
		planNoChange(ctx, t, server, o)
	}
}

// BenchmarkNoChangePlan measures the CPU of the provider in a no-change
// plan of kubefed_federated_object on three members, the calls Terraform
// makes for each object (validate, state upgrade, refresh, plan) answered
// against a host and members that hold what an apply left. One operation
// is one provider process's plan of all the objects: configured anew, so
// the run's reads (one list per cluster and type) are part of it. The
// clusters answer from memory, so what is measured is the provider's own
// work; instruction counts of it (valgrind --tool=callgrind) compare two
// builds whatever else the machine does.
func BenchmarkNoChangePlan(b *testing.B) {
	for _, objects := range []int{1, 20, 200} {
		b.Run(fmt.Sprintf("objects=%d", objects), func(b *testing.B) {
			for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBERNETES_SERVICE_HOST"} {
				b.Setenv(env, "")
			}
			ctx := context.Background()
			f := newBenchFederation(b, objects)
			list := benchObjects(ctx, b, f.configured(ctx, b), objects)
			b.ReportAllocs()
			for b.Loop() {
				server := f.configured(ctx, b)
				for _, o := range list {
					planNoChange(ctx, b, server, o)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*objects), "ns/object")
		})
	}
}

// BenchmarkNoChangePlanCalls measures each call of a no-change plan of one
// kubefed_federated_object on three members apart, on a provider that has
// read the clusters' lists already, so that a change in one shows.
func BenchmarkNoChangePlanCalls(b *testing.B) {
	const objects, typeName = 20, "kubefed_federated_object"
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBERNETES_SERVICE_HOST"} {
		b.Setenv(env, "")
	}
	ctx := context.Background()
	f := newBenchFederation(b, objects)
	server := f.configured(ctx, b)
	list := benchObjects(ctx, b, server, objects)
	states := make([]*tfprotov6.DynamicValue, objects)
	reads := make([]*tfprotov6.ReadResourceResponse, objects)
	for i, o := range list {
		planNoChange(ctx, b, server, o)
		states[i] = upgradedObject(ctx, b, server, o.rawState)
		read, err := server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: typeName, CurrentState: states[i]})
		if err != nil || len(read.Diagnostics) > 0 {
			b.Fatalf("read: %v %+v", err, read.Diagnostics)
		}
		reads[i] = read
	}
	version := schemaVersion(ctx, b, server, typeName)
	calls := []struct {
		name string
		call func(i int) (diagnostics int, err error)
	}{
		{"ValidateResourceConfig", func(i int) (int, error) {
			resp, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: list[i].config})
			return len(resp.Diagnostics), err
		}},
		{"UpgradeResourceState", func(i int) (int, error) {
			resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
				TypeName: typeName, Version: version, RawState: &tfprotov6.RawState{JSON: list[i].rawState}})
			return len(resp.Diagnostics), err
		}},
		{"ReadResource", func(i int) (int, error) {
			resp, err := server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: typeName, CurrentState: states[i]})
			return len(resp.Diagnostics), err
		}},
		{"PlanResourceChange", func(i int) (int, error) {
			resp, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: typeName,
				PriorState: reads[i].NewState, ProposedNewState: reads[i].NewState, Config: list[i].config, PriorPrivate: reads[i].Private})
			return len(resp.Diagnostics), err
		}},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if n, err := c.call(i % objects); err != nil || n > 0 {
					b.Fatalf("%s: %v, %d diagnostics", c.name, err, n)
				}
				i++
			}
		})
	}
}
