package readonly

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// applies counts the applies that reach it.
type applies struct {
	tfprotov6.ProviderServer
	n int
}

func (a *applies) ApplyResourceChange(context.Context, *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	a.n++
	return &tfprotov6.ApplyResourceChangeResponse{}, nil
}

func TestWrap(t *testing.T) {
	prior := &tfprotov6.DynamicValue{JSON: []byte(`{"id":"berlin"}`)}
	req := &tfprotov6.ApplyResourceChangeRequest{TypeName: "kubefed_federation_cluster", PriorState: prior}
	tests := []struct {
		name       string
		refusal    string
		wantServed int
		wantError  string
	}{
		{name: "a provider that may write applies", wantServed: 1},
		{name: "a read-only provider refuses before the resource runs", refusal: "read_only = true",
			wantError: "Cannot change kubefed_federation_cluster: the provider is read-only: read_only = true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &applies{}
			resp, err := Wrap(inner, func() string { return tt.refusal }).ApplyResourceChange(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if inner.n != tt.wantServed {
				t.Errorf("the resource ran %d times, want %d", inner.n, tt.wantServed)
			}
			if tt.wantError == "" {
				return
			}
			if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError ||
				resp.Diagnostics[0].Summary+": "+resp.Diagnostics[0].Detail != tt.wantError {
				t.Errorf("diagnostics %+v, want the error %q", resp.Diagnostics, tt.wantError)
			}
			if resp.NewState != prior || !strings.Contains(string(resp.NewState.JSON), "berlin") {
				t.Errorf("new state %v, want the prior state kept", resp.NewState)
			}
		})
	}
}
