package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Replacing a federated object re-applies it over what the members hold
// instead of deleting it everywhere first. Terraform replaces an object
// whose create failed on some clusters (it marks it tainted), and on
// -replace: deleting the object from every member and then creating it again
// would take down, for a moment, a workload that is running fine everywhere
// the first apply succeeded.
//
// Terraform hands the destroy half of a replacement the private data that
// the plan of its create half produced, and hands a plain destroy the
// state's own. So the plan of every create leaves a note naming the object
// and the clusters it will be placed on, the create itself never stores the
// note, and a delete that finds a note for its own object is the first half
// of a replacement: it removes the object only from the clusters that leave
// the placement and keeps the host's record for the create to take over.

// replacementKey is the private-data key of the note.
const replacementKey = "replacement"

// replacement is the note a create's plan leaves for the destroy half of a
// replacement.
type replacement struct {
	ID     string   `json:"id"`
	Placed []string `json:"placed"`
}

// noteReplacement records, in the plan of a create, what the created object
// will be.
func noteReplacement(ctx context.Context, private privateData, id string, placed []string) diag.Diagnostics {
	note, err := json.Marshal(replacement{ID: id, Placed: placed})
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Cannot plan the federated object", err.Error())
		return diags
	}
	return private.SetKey(ctx, replacementKey, note)
}

// forgetReplacement keeps the note out of the state.
func forgetReplacement(ctx context.Context, private privateData) diag.Diagnostics {
	return private.SetKey(ctx, replacementKey, nil)
}

// replacedBy returns the clusters the object stays on when this delete is
// the first half of its own replacement, and false for a plain delete.
func replacedBy(ctx context.Context, private privateData, id string) ([]string, bool) {
	raw, diags := private.GetKey(ctx, replacementKey)
	if diags.HasError() || len(raw) == 0 {
		return nil, false
	}
	var note replacement
	if err := json.Unmarshal(raw, &note); err != nil || note.ID != id {
		return nil, false
	}
	return note.Placed, true
}
