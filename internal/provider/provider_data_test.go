package provider

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
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

func TestProviderData_hostCheckedOncePerInstanceOnceItAnswers(t *testing.T) {
	var versions atomic.Int32
	fail := atomic.Bool{}
	fail.Store(true)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/version" {
			http.NotFound(w, r)
			return
		}
		versions.Add(1)
		if fail.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"gitVersion":"v1.37.2"}`))
	}))
	defer server.Close()
	data := newProviderData(settings{}, kube.NewClientFactory())
	data.hostConfig = &rest.Config{Host: server.URL}
	if _, err := data.host(context.Background()); err == nil {
		t.Fatal("a host that does not answer is an error")
	}
	fail.Store(false)
	for range 3 {
		if _, err := data.host(context.Background()); err != nil {
			t.Fatalf("the host answers now: %v", err)
		}
	}
	if n := versions.Load(); n != 2 {
		t.Fatalf("/version asked %d times, want twice: the failure, then once for the run", n)
	}
}
