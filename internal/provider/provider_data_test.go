package provider

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// refusingFactory stands in for the real client factory, as tests of the
// error paths do, and counts how often it is asked.
type refusingFactory struct{ calls int }

func (f *refusingFactory) NewClients(*rest.Config) (*kube.Clients, error) {
	f.calls++
	return nil, errors.New("no clients in this test")
}

func TestProviderData_hostFailureIsNotKept(t *testing.T) {
	factory := &refusingFactory{}
	data := newProviderData(settings{}, factory)
	data.hostConfig = &rest.Config{Host: "https://host.example"}
	for range 3 {
		if _, err := data.host(context.Background()); err == nil || !strings.Contains(err.Error(), "no clients in this test") {
			t.Fatalf("the factory's error should come back, got %v", err)
		}
	}
	if factory.calls != 3 {
		t.Fatalf("clients built %d times, want each resource to try again after a failure", factory.calls)
	}
}

func TestProviderData_noHostConfigured(t *testing.T) {
	factory := &refusingFactory{}
	data := newProviderData(settings{}, factory)
	data.configErr = errNoHost
	_, err := data.host(context.Background())
	if !errors.Is(err, kube.ErrNoConfiguration) || factory.calls != 0 {
		t.Fatalf("want the missing-configuration error without building clients, got %v (%d calls)", err, factory.calls)
	}
}

func TestProviderData_hostUnknownUntilApply(t *testing.T) {
	data := newProviderData(settings{}, &refusingFactory{})
	data.hostUnknownReason = "the host is created in the same run"
	if data.hostKnown() {
		t.Fatal("no host config: the host is not known")
	}
	if _, err := data.host(context.Background()); err == nil || !strings.Contains(err.Error(), "created in the same run") {
		t.Fatalf("got %v", err)
	}
}

// fakeHost answers what the provider reads when it connects to a host
// with the federation installed and no cluster registered, and counts the
// requests by method and path.
type fakeHost struct {
	mu       sync.Mutex
	requests map[string]int
	refuse   bool
	// clusters, when set, are the items of the KubeFedClusterList.
	clusters string
}

func (h *fakeHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.requests[r.Method+" "+r.URL.Path]++
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if h.refuse {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401}`))
		return
	}
	const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
	switch {
	case r.URL.Path == "/apis/core.kubefed.io/v1beta1/namespaces/kube-federation-system/kubefedclusters":
		_, _ = fmt.Fprintf(w, `{"apiVersion":"core.kubefed.io/v1beta1","kind":"KubeFedClusterList","items":[%s]}`, h.clusters)
	case r.URL.Path == "/api/v1/namespaces/kube-federation-system/secrets":
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"SecretList","items":[]}`))
	case r.URL.Path == "/api/v1/namespaces/kube-federation-system":
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kube-federation-system"}}`))
	case strings.HasPrefix(r.URL.Path, crds):
		_, _ = fmt.Fprintf(w, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":%q},`+
			`"status":{"conditions":[{"type":"Established","status":"True"}]}}`, strings.TrimPrefix(r.URL.Path, crds))
	default:
		http.NotFound(w, r)
	}
}

func (h *fakeHost) counts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.requests)
}

func connectedData(t *testing.T, h *fakeHost) *providerData {
	t.Helper()
	server := httptest.NewServer(h)
	t.Cleanup(server.Close)
	data := newProviderData(settings{FederationNamespace: "kube-federation-system", FieldManager: "kubefed-test"}, kube.NewClientFactory())
	data.hostConfig = &rest.Config{Host: server.URL}
	if _, err := data.host(context.Background()); err != nil {
		t.Fatalf("the clients are built without a request: %v", err)
	}
	<-data.warmed
	return data
}

func TestProviderData_connectingReadsTheClustersAndTheBootstrapOnce(t *testing.T) {
	h := &fakeHost{requests: map[string]int{}}
	data := connectedData(t, h)
	warmed := h.counts()
	want := map[string]int{
		"GET /apis/core.kubefed.io/v1beta1/namespaces/kube-federation-system/kubefedclusters": 1,
		"GET /api/v1/namespaces/kube-federation-system/secrets":                               1,
		// The enabled types, listed once per run.
		"GET /apis/core.kubefed.io/v1beta1/namespaces/kube-federation-system/federatedtypeconfigs":                       1,
		"GET /api/v1/namespaces/kube-federation-system":                                                                  1,
		"GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/kubefedclusters.core.kubefed.io":                    1,
		"GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/federatedtypeconfigs.core.kubefed.io":               1,
		"GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/replicaschedulingpreferences.scheduling.kubefed.io": 1,
		// The API discovery a type's plan resolves its kind with.
		"GET /api":  1,
		"GET /apis": 1,
	}
	if !maps.Equal(warmed, want) {
		t.Fatalf("requests on connecting:\n got %v\nwant %v", warmed, want)
	}
	ctx := context.Background()
	if _, err := data.snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := data.bootstrappedRegistry(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := data.host(ctx); err != nil {
		t.Fatal(err)
	}
	if after := h.counts(); !maps.Equal(after, warmed) {
		t.Fatalf("the snapshot, the bootstrap and the clients are the run's: more requests after connecting: %v", after)
	}
}

func TestProviderData_aHostThatRefusesTheCredentialsSaysWhatToFix(t *testing.T) {
	h := &fakeHost{requests: map[string]int{}, refuse: true}
	data := connectedData(t, h)
	_, err := data.snapshot(context.Background())
	if err == nil || !strings.Contains(err.Error(), "rejected the credentials (401 Unauthorized)") || !strings.Contains(err.Error(), "check token") {
		t.Fatalf("want the explained 401, got %v", err)
	}
	if data.bootstrapped {
		t.Fatal("a host that refuses the reads is not known to be bootstrapped")
	}
}

func TestProviderData_membersAreProbedAtTheFirstClusterRefreshNotOnConnecting(t *testing.T) {
	var healthChecks atomic.Int32
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			healthChecks.Add(1)
			_, _ = w.Write([]byte("ok"))
		case "/version":
			_, _ = w.Write([]byte(`{"gitVersion":"v1.37.2"}`))
		default:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{}`))
		}
	}))
	t.Cleanup(server.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	h := &fakeHost{requests: map[string]int{}, clusters: fmt.Sprintf(`{"apiVersion":"core.kubefed.io/v1beta1","kind":"KubeFedCluster",`+
		`"metadata":{"name":"berlin","namespace":"kube-federation-system"},"spec":{"apiEndpoint":%q,"caBundle":%q,"secretRef":{"name":"berlin"}},`+
		`"status":{"conditions":[{"type":"Ready","status":"True","reason":"ClusterReady"}]}}`, server.URL, base64.StdEncoding.EncodeToString(ca))}
	data := connectedData(t, h)
	ctx := context.Background()
	if _, err := data.snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if n := healthChecks.Load(); n != 0 {
		t.Fatalf("%d health checks after connecting to the host, want none: a process that refreshes no cluster probes no member", n)
	}

	data.probeMembersOnce(ctx)
	deadline := time.Now().Add(30 * time.Second)
	for healthChecks.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	data.probeMembersOnce(ctx)
	got := data.members.SharedProbe(ctx, "berlin", member.Connection{APIEndpoint: server.URL, CABundle: ca})
	if !got.Ready {
		t.Fatalf("probe = %+v, want the ready member", got)
	}
	if n := healthChecks.Load(); n != 1 {
		t.Fatalf("%d health checks after two refreshes asked, want the one probe of the ready member they share", n)
	}
}

func TestProviderData_registryFor(t *testing.T) {
	for _, tc := range []struct {
		name        string
		earlier     diag.Diagnostics
		wantCalls   int
		wantSummary string
	}{
		{name: "an earlier error: the host is not asked", earlier: diag.Diagnostics{diag.NewErrorDiagnostic("Bad state", "")},
			wantSummary: "Bad state"},
		{name: "an unreachable host is reported under the operation's summary", wantCalls: 1,
			wantSummary: "Cannot read the cluster from the host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			factory := &refusingFactory{}
			data := newProviderData(settings{}, factory)
			data.hostConfig = &rest.Config{Host: "https://host.example"}
			diags := tc.earlier
			if reg := data.registryFor(context.Background(), "Cannot read the cluster from the host", &diags); reg != nil {
				t.Fatal("a registry without a host")
			}
			if factory.calls != tc.wantCalls || len(diags.Errors()) != 1 || diags.Errors()[0].Summary() != tc.wantSummary {
				t.Errorf("%d calls, %v; want %d calls and one error %q", factory.calls, diags, tc.wantCalls, tc.wantSummary)
			}
		})
	}
}
