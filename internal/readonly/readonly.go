// Package readonly refuses, at the protocol, every apply and destroy of a
// provider configured to plan only: the refusal comes before any resource's
// code runs, so none of them sends a request, whatever it would write.
package readonly

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// Wrap is server with its applies (creates, updates and destroys) refused
// while refusal answers why; an empty answer lets them through. Everything
// else, the plans and refreshes in particular, goes to server.
func Wrap(server tfprotov6.ProviderServer, refusal func() string) tfprotov6.ProviderServer {
	return guarded{ProviderServer: server, refusal: refusal}
}

type guarded struct {
	tfprotov6.ProviderServer
	refusal func() string
}

// ApplyResourceChange answers a refused apply with an error and the
// resource as it was: a create leaves nothing, an update and a destroy
// leave the state as they found it.
func (g guarded) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	why := g.refusal()
	if why == "" {
		return g.ProviderServer.ApplyResourceChange(ctx, req)
	}
	return &tfprotov6.ApplyResourceChangeResponse{
		NewState:    req.PriorState,
		Private:     req.PlannedPrivate,
		NewIdentity: req.PlannedIdentity,
		Diagnostics: []*tfprotov6.Diagnostic{{
			Severity: tfprotov6.DiagnosticSeverityError,
			Summary:  fmt.Sprintf("Cannot change %s: the provider is read-only", req.TypeName),
			Detail:   why,
		}},
	}, nil
}
