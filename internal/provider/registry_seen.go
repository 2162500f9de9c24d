package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/fastpath"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// privateData is a resource's private state, as the framework passes it or
// as the provider's protocol server (fastpath) does.
type privateData = fastpath.Private

// Terraform plans each resource twice: once for the plan the user sees, and
// once more at apply, where the second plan must come out the same. A
// cluster that someone else registers in between would change which
// clusters a selector picks (where an object goes, how replicas split), and
// Terraform would reject the apply as inconsistent.
//
// So refresh notes, in the resource's private data, the clusters registered
// when it read the resource; Terraform hands that note to both plans. A plan
// leaves out of its label selectors any cluster registered after that
// read, this run's own included, and says so in a warning: the apply does
// what the plan showed, and the next plan takes the cluster in.
// Create and update drop the note, so that a plan made without refresh
// places on every registered cluster.

// seenKey is the private-data key of the note.
const seenKey = "registered_at_read"

// noteSeen records the clusters registered when the resource was read.
func noteSeen(ctx context.Context, private privateData, names []string) diag.Diagnostics {
	if names == nil {
		names = []string{}
	}
	note, err := json.Marshal(names)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Cannot record the registered clusters", err.Error())
		return diags
	}
	return private.SetKey(ctx, seenKey, note)
}

// forgetSeen drops the note.
func forgetSeen(ctx context.Context, private privateData) diag.Diagnostics {
	return private.SetKey(ctx, seenKey, nil)
}

// seenAtRead returns the clusters registered when the resource was read, or
// nil when there is no note.
func seenAtRead(ctx context.Context, private privateData) map[string]bool {
	raw, diags := private.GetKey(ctx, seenKey)
	if diags.HasError() || len(raw) == 0 {
		return nil
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		seen[n] = true
	}
	return seen
}

// registeredLater reports whether the plan leaves cluster c out of label
// selectors: it was registered after the resource was read, by someone else
// or by this run. Terraform may apply the resource before or after this run
// registers it, and only a placement that ignores it comes out the same in
// the plan made again at apply either way.
func registeredLater(seen map[string]bool, c runstate.Cluster) bool {
	return seen != nil && !seen[c.Name]
}
