package provider

import (
	"context"
	"errors"
	"strings"
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

func TestProviderData_hostConnectsOncePerInstance(t *testing.T) {
	factory := &refusingFactory{}
	data := newProviderData(settings{}, factory)
	data.hostConfig = &rest.Config{Host: "https://host.example"}
	for range 3 {
		if _, err := data.host(context.Background()); err == nil || !strings.Contains(err.Error(), "no clients in this test") {
			t.Fatalf("the factory's error should come back, got %v", err)
		}
	}
	if factory.calls != 1 {
		t.Fatalf("clients built %d times, want once per provider instance", factory.calls)
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
