package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

const applicationTypeName = "kubefed_federated_application"

// benchMembers names n members, in the order a placement lists them.
func benchMembers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("member-%02d", i)
	}
	return out
}

// benchApplication is an application of a benchSet's ConfigMaps, placed on
// every cluster of the set, as Terraform holds it: its state as an apply
// leaves it, and its configuration.
type benchApplication struct {
	rawState []byte
	config   *tfprotov6.DynamicValue
	typ      tftypes.Type
}

// benchManifests are the set's ConfigMaps as one manifest, documents
// separated by "---", as helm template writes them.
func benchManifests(set benchSet) string {
	docs := make([]string, set.objects)
	for i := range docs {
		docs[i] = "---\n" + benchTemplate(i)
	}
	return strings.Join(docs, "")
}

// benchKey is object i's key in the application.
func benchKey(i int) string { return fmt.Sprintf("/v1/ConfigMap/default/bench-%d", i) }

// benchRendered is object i as every cluster receives it.
func benchRendered(i int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","data":{"index":"%d"},"kind":"ConfigMap","metadata":{"labels":`+
		`{"kubefed.io/managed":"true"},"name":"bench-%d","namespace":"default"}}`, i, i)
}

// applicationState is the state of an application of the set as an apply
// leaves it (toState): by cluster, each object as rendered and its status
// OK; no health, as a ConfigMap reports none; every host record current.
func applicationState(set benchSet) map[string]any {
	keys := make([]string, set.objects)
	records := map[string]any{}
	for i := range keys {
		keys[i] = benchKey(i)
		records[keys[i]] = "current"
	}
	rendered, status := map[string]any{}, map[string]any{}
	for i, key := range keys {
		byCluster := map[string]string{}
		for _, c := range set.clusters {
			byCluster[c] = benchRendered(i)
		}
		rendered[key] = tfvalue.RenderedJSON(byCluster)
	}
	for _, c := range set.clusters {
		statuses := map[string]any{}
		for _, key := range keys {
			statuses[key] = map[string]any{"message": "", "status": "OK"}
		}
		status[c] = statuses
	}
	placed := slices.Sorted(slices.Values(set.clusters))
	return map[string]any{
		"id": set.application, "name": set.application,
		"manifests":       []string{benchManifests(set)},
		"placement":       map[string]any{"clusters": set.clusters, "cluster_selector": nil},
		"deletion_policy": "Delete", "force_conflicts": false, "retain_replicas": false,
		"objects": keys, "placed_clusters": placed, "rollout_plan": [][]string{placed},
		"rendered": rendered, "cluster_status": status, "cluster_health": map[string]any{}, "host_records": records,
	}
}

func newBenchApplication(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer, set benchSet) benchApplication {
	tb.Helper()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	typ := schemas.ResourceSchemas[applicationTypeName].ValueType()
	attrs := map[string]any{}
	for name := range typ.(tftypes.Object).AttributeTypes {
		attrs[name] = nil
	}
	for name, v := range applicationState(set) {
		attrs[name] = v
	}
	state, err := json.Marshal(attrs)
	if err != nil {
		tb.Fatal(err)
	}
	config := applicationConfigOf(tb, attrs)
	return benchApplication{rawState: state, config: upgraded(ctx, tb, server, applicationTypeName, config), typ: typ}
}

// planApplicationNoChange makes the calls Terraform makes for the
// application in a no-change plan after configuring the provider
// (validate, state upgrade, refresh, plan), and fails tb unless the
// refresh and the plan keep the state as it is.
func planApplicationNoChange(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer, app benchApplication) {
	tb.Helper()
	validated, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{
		TypeName: applicationTypeName, Config: app.config})
	if err != nil || len(validated.Diagnostics) > 0 {
		tb.Fatalf("validate: %v %s", err, diagnostics(validated.Diagnostics))
	}
	state := upgraded(ctx, tb, server, applicationTypeName, app.rawState)
	read, err := server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: applicationTypeName, CurrentState: state})
	if err != nil || len(read.Diagnostics) > 0 || read.NewState == nil {
		tb.Fatalf("read: %v %s", err, diagnostics(read.Diagnostics))
	}
	if !sameValue(tb, app.typ, state, read.NewState) {
		tb.Fatal("the refresh changes the application: the federation does not hold what the state says")
	}
	planned, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: applicationTypeName,
		PriorState: read.NewState, ProposedNewState: read.NewState, Config: app.config, PriorPrivate: read.Private})
	if err != nil || len(planned.Diagnostics) > 0 || len(planned.RequiresReplace) > 0 {
		tb.Fatalf("plan: %v %s %v", err, diagnostics(planned.Diagnostics), planned.RequiresReplace)
	}
	if !sameValue(tb, app.typ, read.NewState, planned.PlannedState) {
		tb.Fatal("the plan changes the application")
	}
}

// diagnostics are the protocol's diagnostics in words, one a line.
func diagnostics(d []*tfprotov6.Diagnostic) string {
	var out []string
	for _, x := range d {
		out = append(out, fmt.Sprintf("%s: %s", x.Summary, x.Detail))
	}
	return strings.Join(out, "\n")
}

// The application benchmark's federation holds what the state says, so
// its plan refreshes and plans every object on every cluster in full.
func TestApplicationBench_plansNoChange(t *testing.T) {
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBERNETES_SERVICE_HOST"} {
		t.Setenv(env, "")
	}
	ctx := context.Background()
	for _, set := range []benchSet{
		{objects: 1, clusters: benchMembers(1), application: "bench"},
		{objects: 5, clusters: benchMembers(3), application: "bench"},
	} {
		f := newSetFederation(t, set)
		server := f.configured(ctx, t)
		planApplicationNoChange(ctx, t, server, newBenchApplication(ctx, t, server, set))
	}
}

// BenchmarkApplicationNoChangePlan measures the provider's CPU and
// allocations in a no-change plan of one kubefed_federated_application of
// objects ConfigMaps placed on every one of clusters members, answered by
// a host and members that hold what an apply left. One operation is one
// provider process's plan: configured anew, then validate, state upgrade,
// refresh and plan. Its cost should grow with objects × clusters and no
// faster, which the metrics per object and cluster show; cpu-ns counts the
// process's CPU, the canned clusters' small share included. heap-MB is the
// largest heap in use seen during the operations (live objects and garbage
// not yet swept), above what the benchmark holds before them.
func BenchmarkApplicationNoChangePlan(b *testing.B) {
	for _, objects := range []int{20, 200, 2000} {
		for _, clusters := range []int{3, 20} {
			b.Run(fmt.Sprintf("objects=%d/clusters=%d", objects, clusters), func(b *testing.B) {
				benchApplicationPlan(b, benchSet{objects: objects, clusters: benchMembers(clusters), application: "bench"})
			})
		}
	}
}

func benchApplicationPlan(b *testing.B, set benchSet) {
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBERNETES_SERVICE_HOST"} {
		b.Setenv(env, "")
	}
	ctx := context.Background()
	f := newSetFederation(b, set)
	app := newBenchApplication(ctx, b, f.configured(ctx, b), set)
	measurePerPair(b, set, func() { planApplicationNoChange(ctx, b, f.configured(ctx, b), app) })
}

// measurePerPair runs op as the benchmark's operation and reports, besides
// its time and allocations, each per object and cluster of the set, the CPU
// time per object and cluster, and the largest heap it saw in use.
func measurePerPair(b *testing.B, set benchSet, op func()) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.GC()
	base := liveHeap()
	peak := watchPeakHeap()
	runtime.ReadMemStats(&before)
	cpuBefore := processCPU(b)
	for b.Loop() {
		op()
	}
	cpu := processCPU(b) - cpuBefore
	runtime.ReadMemStats(&after)
	pairs := float64(b.N * set.objects * len(set.clusters))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pairs, "ns/object-cluster")
	b.ReportMetric(float64(cpu.Nanoseconds())/pairs, "cpu-ns/object-cluster")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/pairs, "allocs/object-cluster")
	b.ReportMetric(float64(peak()-base)/(1<<20), "heap-MB")
}

// processCPU is the CPU time the process has used, user and system, on
// every thread: on a machine other work keeps busy, it grows with the
// provider's work where the wall clock grows with the others' too.
func processCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// liveHeap is the bytes of the heap's objects, live or not yet swept.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// watchPeakHeap samples liveHeap every millisecond until the returned
// function is called, which returns the largest sample.
func watchPeakHeap() func() uint64 {
	var peak atomic.Uint64
	peak.Store(liveHeap())
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if h := liveHeap(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// benchUpdate is a change of every object of an application on every
// cluster, as Terraform hands it to the provider: the prior state, the
// configuration that changes each ConfigMap's data, and its proposed state.
type benchUpdate struct {
	prior, config, proposed *tfprotov6.DynamicValue
}

func newBenchUpdate(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer, app benchApplication, set benchSet) benchUpdate {
	tb.Helper()
	var attrs map[string]any
	if err := json.Unmarshal(app.rawState, &attrs); err != nil {
		tb.Fatal(err)
	}
	attrs["manifests"] = []string{strings.ReplaceAll(benchManifests(set), `"index": "`, `"index": "next-`)}
	// Thousands of writes on a busy machine may take longer than the
	// default five minutes.
	attrs["timeouts"] = map[string]any{"create": nil, "update": "1h", "delete": nil}
	proposed, err := json.Marshal(attrs)
	if err != nil {
		tb.Fatal(err)
	}
	config := applicationConfigOf(tb, attrs)
	return benchUpdate{prior: upgraded(ctx, tb, server, applicationTypeName, app.rawState),
		config:   upgraded(ctx, tb, server, applicationTypeName, config),
		proposed: upgraded(ctx, tb, server, applicationTypeName, proposed)}
}

// applyUpdate makes the calls of an apply's walk of the application after
// configuring the provider (the plan made again, then the apply), and
// fails tb unless the apply writes every object everywhere as planned.
func applyUpdate(ctx context.Context, tb testing.TB, server tfprotov6.ProviderServer, typ tftypes.Type, u benchUpdate) {
	tb.Helper()
	planned, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: applicationTypeName,
		PriorState: u.prior, ProposedNewState: u.proposed, Config: u.config})
	if err != nil || len(planned.Diagnostics) > 0 {
		tb.Fatalf("plan: %v %s", err, diagnostics(planned.Diagnostics))
	}
	applied, err := server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: applicationTypeName,
		PriorState: u.prior, PlannedState: planned.PlannedState, Config: u.config, PlannedPrivate: planned.PlannedPrivate})
	if err != nil || len(applied.Diagnostics) > 0 {
		tb.Fatalf("apply: %v %s", err, diagnostics(applied.Diagnostics))
	}
	want, got := attributeOf(tb, typ, planned.PlannedState, "rendered"), attributeOf(tb, typ, applied.NewState, "rendered")
	if !want.Equal(got) || !strings.Contains(got.String(), "next-") {
		tb.Fatalf("the apply does not hold what the plan rendered:\nplanned %v\napplied %v", want, got)
	}
}

// attributeOf is one attribute of a value of the application.
func attributeOf(tb testing.TB, typ tftypes.Type, v *tfprotov6.DynamicValue, name string) tftypes.Value {
	tb.Helper()
	value, err := v.Unmarshal(typ)
	if err != nil {
		tb.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := value.As(&attrs); err != nil {
		tb.Fatal(err)
	}
	return attrs[name]
}

// The apply benchmark's update writes every object to every cluster.
func TestApplicationBench_appliesUpdate(t *testing.T) {
	for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBERNETES_SERVICE_HOST"} {
		t.Setenv(env, "")
	}
	ctx := context.Background()
	set := benchSet{objects: 5, clusters: benchMembers(3), application: "bench"}
	f := newSetFederation(t, set)
	server := f.configured(ctx, t)
	app := newBenchApplication(ctx, t, server, set)
	applyUpdate(ctx, t, server, app.typ, newBenchUpdate(ctx, t, server, app, set))
}

// BenchmarkApplicationApply measures, as BenchmarkApplicationNoChangePlan
// does a plan, an apply's walk of an update of one application that changes
// every object on every cluster: configured anew, the plan made again, and
// the apply, whose server-side applies the canned host and members answer
// with the object they were sent.
func BenchmarkApplicationApply(b *testing.B) {
	for _, objects := range []int{20, 200, 2000} {
		for _, clusters := range []int{3, 20} {
			b.Run(fmt.Sprintf("objects=%d/clusters=%d", objects, clusters), func(b *testing.B) {
				for _, env := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBERNETES_SERVICE_HOST"} {
					b.Setenv(env, "")
				}
				ctx := context.Background()
				set := benchSet{objects: objects, clusters: benchMembers(clusters), application: "bench"}
				f := newSetFederation(b, set)
				server := f.configured(ctx, b)
				app := newBenchApplication(ctx, b, server, set)
				update := newBenchUpdate(ctx, b, server, app, set)
				measurePerPair(b, set, func() { applyUpdate(ctx, b, f.configured(ctx, b), app.typ, update) })
			})
		}
	}
}

// applicationConfigOf is the configuration of the application whose state
// attrs holds: the state without its computed attributes.
func applicationConfigOf(tb testing.TB, attrs map[string]any) []byte {
	tb.Helper()
	for _, computed := range []string{"id", "objects", "placed_clusters", "rollout_plan", "rendered", "cluster_status",
		"cluster_health", "host_records"} {
		attrs[computed] = nil
	}
	config, err := json.Marshal(attrs)
	if err != nil {
		tb.Fatal(err)
	}
	return config
}
