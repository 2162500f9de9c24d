package propagation

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestProjectKeepsOnlyAppliedFields(t *testing.T) {
	applied := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{
			"ports": []any{map[string]any{"port": 80}},
			"type":  "ClusterIP",
		},
	}
	live := map[string]any{
		"metadata": map[string]any{"name": "web", "uid": "u", "labels": map[string]any{"app": "web", "theirs": "x"}},
		"spec": map[string]any{
			"ports":     []any{map[string]any{"port": int64(80), "protocol": "TCP"}},
			"type":      "ClusterIP",
			"clusterIP": "10.0.0.1",
		},
		"status": map[string]any{},
	}
	want := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"ports": []any{map[string]any{"port": int64(80)}}, "type": "ClusterIP"},
	}
	if got := Project(live, applied); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

func TestProjectShowsChangesToAppliedFields(t *testing.T) {
	applied := map[string]any{"data": map[string]any{"a": "1"}, "list": []any{"x"}}
	live := map[string]any{"data": map[string]any{"a": "2"}, "list": []any{"x", "y"}}
	got := Project(live, applied)
	// A changed value and a list someone grew are differences; a field
	// that is gone is missing.
	if !reflect.DeepEqual(got, live) {
		t.Errorf("got %#v, want the live values %#v", got, live)
	}
	if got := Project(map[string]any{}, applied); len(got) != 0 {
		t.Errorf("missing fields: got %#v, want none", got)
	}
}

func TestFanOutBoundsParallelismAndSortsResults(t *testing.T) {
	clusters := []string{"c", "a", "d", "b"}
	var running, peak atomic.Int32
	results := FanOut(context.Background(), clusters, Options{MaxParallel: 2, Timeout: time.Second}, func(ctx context.Context, cluster string) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if _, ok := ctx.Deadline(); !ok {
			t.Errorf("%s: no per-cluster deadline", cluster)
		}
		time.Sleep(20 * time.Millisecond)
		return "done on " + cluster, nil
	})
	if peak.Load() > 2 {
		t.Errorf("%d clusters at once, want at most 2", peak.Load())
	}
	var names []string
	for _, r := range results {
		names = append(names, r.Cluster)
		if r.Value != "done on "+r.Cluster || r.Err != nil {
			t.Errorf("%s: value %q, error %v; want its own value and no error", r.Cluster, r.Value, r.Err)
		}
	}
	if !reflect.DeepEqual(names, []string{"a", "b", "c", "d"}) {
		t.Errorf("results in order %v", names)
	}
}

// Unbounded (MaxParallel zero), every cluster runs at once: each waits
// until all have started, which any bound below their number would hang.
func TestFanOutUnboundedRunsEveryClusterAtOnce(t *testing.T) {
	clusters := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t"}
	var started sync.WaitGroup
	started.Add(len(clusters))
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	results := FanOut(context.Background(), clusters, Options{}, func(context.Context, string) (struct{}, error) {
		started.Done()
		select {
		case <-all:
			return struct{}{}, nil
		case <-time.After(time.Minute): // a guard against a hang, not a measure of speed
			return struct{}{}, errors.New("the clusters never ran together")
		}
	})
	for _, r := range results {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Cluster, r.Err)
		}
	}
}

func TestFanOutStartsClustersInTheOrderGiven(t *testing.T) {
	var started []string
	results := FanOut(context.Background(), []string{"c", "a", "b"}, Options{MaxParallel: 1}, func(_ context.Context, cluster string) (struct{}, error) {
		started = append(started, cluster)
		return struct{}{}, nil
	})
	if !reflect.DeepEqual(started, []string{"c", "a", "b"}) {
		t.Errorf("one at a time, started %v, want c, a, b", started)
	}
	if len(results) != 3 || results[0].Cluster != "a" || results[2].Cluster != "c" {
		t.Errorf("results %+v, want them sorted by cluster", results)
	}
}

func TestProjectReadsServerRewritesAsApplied(t *testing.T) {
	applied := map[string]any{
		"kind": "Deployment",
		"metadata": map[string]any{"name": "web", "annotations": map[string]any{
			"size": "1000m", // an opaque string: taken as it is
		}},
		"spec": map[string]any{
			"paused": false,
			"template": map[string]any{"spec": map[string]any{
				"hostNetwork": false,
				"volumes":     []any{},
				"containers": []any{map[string]any{
					"name": "web",
					"resources": map[string]any{
						"requests": map[string]any{"cpu": "1000m", "memory": "1024Mi"},
						"limits":   map[string]any{"cpu": 0.5, "memory": "2Gi", "ephemeral-storage": "1.5Gi", "nvidia.com/gpu": float64(2)},
					},
				}},
			}},
		},
	}
	live := map[string]any{
		"kind":     "Deployment",
		"metadata": map[string]any{"name": "web", "annotations": map[string]any{"size": "1"}},
		"spec": map[string]any{
			"template": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{
					"name":                   "web",
					"terminationMessagePath": "/dev/termination-log",
					"resources": map[string]any{
						"requests": map[string]any{"cpu": "1", "memory": "1Gi"},
						"limits":   map[string]any{"cpu": "500m", "memory": "2Gi", "ephemeral-storage": "1536Mi", "nvidia.com/gpu": "2"},
					},
				}},
			}},
		},
	}
	got := Project(live, applied)
	spec := got["spec"].(map[string]any)
	if spec["paused"] != false {
		t.Errorf("an omitted false reads as %#v, want false", spec["paused"])
	}
	pod := spec["template"].(map[string]any)["spec"].(map[string]any)
	if pod["hostNetwork"] != false || !reflect.DeepEqual(pod["volumes"], []any{}) {
		t.Errorf("omitted zero values read as %#v and %#v", pod["hostNetwork"], pod["volumes"])
	}
	res := pod["containers"].([]any)[0].(map[string]any)["resources"]
	wantRes := applied["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["resources"]
	if !reflect.DeepEqual(res, wantRes) {
		t.Errorf("quantities read back as %#v, want as applied %#v", res, wantRes)
	}
	if a := got["metadata"].(map[string]any)["annotations"].(map[string]any)["size"]; a != "1" {
		t.Errorf("an annotation changed to %q reads as %#v: metadata is never a quantity", "1", a)
	}
}

func TestProjectShowsQuantitiesChangedByHand(t *testing.T) {
	applied := map[string]any{"spec": map[string]any{"cpu": "1000m", "memory": "1Gi", "n": float64(2)}}
	for name, live := range map[string]map[string]any{
		"another value":               {"spec": map[string]any{"cpu": "2", "memory": "1Gi", "n": float64(2)}},
		"same amount, other spelling": {"spec": map[string]any{"cpu": "1000m", "memory": "1024Mi", "n": float64(2)}},
		"a number turned string":      {"spec": map[string]any{"cpu": "1", "memory": "1Gi", "n": "3"}},
	} {
		got := Project(live, applied)
		if reflect.DeepEqual(got, applied) {
			t.Errorf("%s: %#v reads as applied; the change is hidden", name, live)
		}
	}
	// A value set and then removed, that is not a zero value, is missing.
	got := Project(map[string]any{"spec": map[string]any{}}, applied)
	if len(got["spec"].(map[string]any)) != 0 {
		t.Errorf("removed fields read as %#v", got)
	}
}

func TestProjectFoldsSecretStringDataFromData(t *testing.T) {
	applied := map[string]any{
		"kind":       "Secret",
		"data":       map[string]any{"token": "dG9rZW4="},
		"stringData": map[string]any{"password": "s3cret", "gone": "x"},
	}
	live := map[string]any{
		"kind": "Secret",
		"data": map[string]any{"token": "dG9rZW4=", "password": "czNjcmV0", "other": "eA=="},
	}
	want := map[string]any{
		"kind":       "Secret",
		"data":       map[string]any{"token": "dG9rZW4="},
		"stringData": map[string]any{"password": "s3cret"},
	}
	if got := Project(live, applied); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	live["data"].(map[string]any)["password"] = "Y2hhbmdlZA=="
	if got := Project(live, applied); got["stringData"].(map[string]any)["password"] != "changed" {
		t.Errorf("a password changed on the cluster reads as %#v", got["stringData"])
	}
}

func TestFanOutMarksWorkNeverStartedAfterCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	results := FanOut(ctx, []string{"a", "b", "c"}, Options{MaxParallel: 1}, func(ctx context.Context, cluster string) (int, error) {
		cancel()
		<-ctx.Done()
		return 0, ctx.Err()
	})
	started := 0
	for _, r := range results {
		if !r.NotRun {
			started++
			if !errors.Is(r.Err, context.Canceled) {
				t.Errorf("%s: %v", r.Cluster, r.Err)
			}
		}
	}
	if started != 1 {
		t.Errorf("%d clusters started after the cancellation, want only the one running then: %+v", started, results)
	}
}

func TestUncertain(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"the member refused the object", apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "x", nil), false},
		{"forbidden", apierrors.NewForbidden(gr, "x", errors.New("no")), false},
		{"a server timeout may have been applied", apierrors.NewServerTimeout(gr, "patch", 1), true},
		{"cancelled in flight", fmt.Errorf("patch: %w", &url.Error{Op: "Patch", URL: "https://m", Err: context.Canceled}), true},
		{"deadline in flight", &url.Error{Op: "Patch", URL: "https://m", Err: context.DeadlineExceeded}, true},
		{"connection lost before the answer", &url.Error{Op: "Patch", URL: "https://m", Err: io.EOF}, true},
		{"connection refused: never sent", &url.Error{Op: "Patch", URL: "https://m", Err: &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}, false},
		{"unknown host: never sent", &url.Error{Op: "Patch", URL: "https://m", Err: &net.DNSError{Err: "no such host", Name: "m"}}, false},
		{"bad certificate: never sent", &url.Error{Op: "Patch", URL: "https://m", Err: x509.UnknownAuthorityError{}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Uncertain(tt.err); got != tt.want {
				t.Errorf("Uncertain(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestRejects(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	gk := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	internal := func(msg string) error {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: msg}}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"invalid object", apierrors.NewInvalid(gk, "web", nil), true},
		{"bad request", apierrors.NewBadRequest("the API version in the data (apps/v2) does not match the expected API version (apps/v1)"), true},
		{"conflict with another manager", apierrors.NewConflict(gr, "web", errors.New("conflict")), true},
		{"a value of the wrong type", internal(`failed to create typed patch object (shop/web; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string`), true},
		{"a body that does not decode", internal("unable to decode the request body"), true},
		{"forbidden: cannot check", apierrors.NewForbidden(gr, "web", errors.New("no")), false},
		{"unauthorized: cannot check", apierrors.NewUnauthorized("who?"), false},
		{"namespace missing: created later in the run", apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "shop"), false},
		{"overloaded", apierrors.NewTooManyRequests("slow down", 1), false},
		{"server trouble", internal("etcdserver: request timed out"), false},
		{"unreachable", &url.Error{Op: "Patch", URL: "https://m", Err: io.EOF}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Rejects(tt.err); got != tt.want {
				t.Errorf("Rejects(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestExplainNamesTheClusterAndTheField(t *testing.T) {
	m := Member{Name: "berlin"}
	o := Object{Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespace: "shop", Name: "web"}
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", field.ErrorList{
		field.Invalid(field.NewPath("spec", "replicas"), -1, "must be greater than or equal to 0"),
	})
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{invalid, []string{`cluster "berlin" rejects the object`, "spec.replicas"}},
		{apierrors.NewBadRequest("the API version in the data (apps/v2) does not match the expected API version (apps/v1)"),
			[]string{`cluster "berlin" rejects the object`, "/apiVersion:"}},
		{apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web"),
			[]string{"/apiVersion", `cluster "berlin" does not serve`}},
		{apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("rbac")),
			[]string{"403 Forbidden", `cluster "berlin"`}},
	} {
		got := explain(m, o, tc.err, Options{}).Error()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q lacks %q", got, w)
			}
		}
		if strings.Contains(got, "see the error above") || strings.Contains(got, "cluster_ca_certificate") {
			t.Errorf("%q blames the provider's own settings", got)
		}
	}
}
