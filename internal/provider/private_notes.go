package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/capacity"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/fastpath"
)

// The provider hands itself a few facts from one Terraform call to a later
// one through a resource's private state. Each fact is a note: one key, one
// JSON value, written, read and forgotten only through privateNote.
//
// | key                | value (JSON)                     | written by                                  | read by                                | forgotten by                 | hand-over               |
// |--------------------|----------------------------------|---------------------------------------------|----------------------------------------|------------------------------|-------------------------|
// | registered_at_read | array of the registered clusters | Read of object, preference                  | ModifyPlan                             | Create, Update               | read→plan               |
// | capacity_at_read   | capacity.Note                    | Read of preference (auto)                   | ModifyPlan                             | Create, Update; other Reads  | read→plan               |
// | planned_from_state | string: the resource's run key   | ModifyPlan from a prior state               | ModifyPlan of a create                 | Create, Update               | plan→plan               |
// | replacement        | replacement                      | ModifyPlan of a create                      | Delete                                 | Create, Update               | plan→apply              |
// | token_wo           | boolean                          | Create without join, Update                 | Read                                   | none: each apply rewrites it | apply→read              |
// | client_key_wo      | boolean                          | Create without join, Update                 | Read                                   | none: each apply rewrites it | apply→read              |
// | join_wo            | boolean                          | Create with join, Update                    | Delete                                 | none: each apply rewrites it | apply→read              |
// | member_endpoints   | object: cluster → API endpoint   | Read, Create, Update of object, application | ModifyPlan of a change, Update, Delete | none: each rewrites it       | read→apply, apply→apply |
//
// The resources: object is kubefed_federated_object, preference
// kubefed_replica_scheduling_preference; planned_from_state is noted by those
// two, kubefed_federated_type and kubefed_federation_cluster; token_wo,
// client_key_wo and join_wo by kubefed_federation_cluster alone;
// member_endpoints by kubefed_federated_object and
// kubefed_federated_application, for the apply that connects to those
// members while it reads the host (dial_ahead.go). Each reads and forgets
// its own notes.
// capacity_at_read is recorded by a Read with capacity = "auto" that can
// estimate; any other Read of the preference forgets it.
//
// The hand-overs, as Terraform makes them:
//   - read→plan: refresh's private data goes into the refreshed state, which
//     both plans of a run start from (the plan shown, and the one Terraform
//     makes again at apply and holds to the first).
//   - plan→plan: a replacement is planned twice, from the prior state and
//     then as a create; the create's plan gets the first plan's private data.
//   - plan→apply: both halves of a replacement are applied with the private
//     data of the create's plan, the destroy half included.
//   - apply→read: what apply leaves goes into the state, and later refreshes
//     start from it.
//   - read→apply: the refreshed state's private data reaches the apply's own
//     plan of a change (through the plan's private data), Update and Delete.
//   - apply→apply: without a refresh, the next apply starts from what the
//     last one left.
//
// Create and Update start from the plan's private data, so a note meant for
// the plans alone is forgotten there: it must not reach the state and
// mislead a later run.

// privateData is a resource's private state, as the framework passes it or
// as the provider's protocol server (fastpath) does.
type privateData = fastpath.Private

var (
	registeredAtReadNote = privateNote[[]string]{key: "registered_at_read",
		holds: "the clusters registered at the last refresh", writtenBy: "refresh"}
	capacityAtReadNote = privateNote[capacity.Note]{key: "capacity_at_read",
		holds: "the capacity estimated at the last refresh", writtenBy: "refresh"}
	plannedFromStateNote = privateNote[string]{key: "planned_from_state",
		holds: "what the plan from the prior state planned", writtenBy: "plan of a change"}
	replacementNote = privateNote[replacement]{key: "replacement",
		holds: "what a replacement creates", writtenBy: "plan of a create"}
	tokenWriteOnlyNote = privateNote[bool]{key: "token_wo",
		holds: "whether the token is given as token_wo", writtenBy: "apply"}
	clientKeyWriteOnlyNote = privateNote[bool]{key: "client_key_wo",
		holds: "whether the client key is given as client_key_wo", writtenBy: "apply"}
	joinWriteOnlyNote = privateNote[bool]{key: "join_wo",
		holds: "whether the join's credentials are given write-only", writtenBy: "apply"}
	memberEndpointsNote = privateNote[map[string]string]{key: "member_endpoints",
		holds: "the endpoints of the clusters the object is on", writtenBy: "refresh or apply"}
)

// privateNote is one note of the table above, its value a T encoded as
// JSON. holds and writtenBy say, in a diagnostic, what the note is and
// what writes it again.
type privateNote[T any] struct {
	key       string
	holds     string
	writtenBy string
}

// Save records value, replacing any earlier note.
func (n privateNote[T]) Save(ctx context.Context, private privateData, value T) diag.Diagnostics {
	raw, err := json.Marshal(value)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError(fmt.Sprintf("Cannot record %s", n.holds),
			fmt.Sprintf("Encoding the private-state note %q failed: %v. This is a bug in the provider; please report it.", n.key, err))
		return diags
	}
	return private.SetKey(ctx, n.key, raw)
}

// Load returns the noted value, or nil when there is no note. A note that
// does not decode is treated as absent, with a warning: the run goes on as
// it would without the note, and the next one writes it again.
func (n privateNote[T]) Load(ctx context.Context, private privateData) (*T, diag.Diagnostics) {
	raw, diags := private.GetKey(ctx, n.key)
	if diags.HasError() || len(raw) == 0 {
		return nil, diags
	}
	var value T
	if err := json.Unmarshal(raw, &value); err != nil {
		diags.AddWarning(fmt.Sprintf("Ignoring an unreadable note of %s", n.holds),
			fmt.Sprintf("The resource's private state holds a %q note this provider cannot read: %v. The provider goes on "+
				"as if there were none; the next %s writes it again. A state written by another version of the provider "+
				"can cause this; if it stays after a refresh and an apply, please report it.", n.key, err, n.writtenBy))
		return nil, diags
	}
	return &value, diags
}

// Forget drops the note.
func (n privateNote[T]) Forget(ctx context.Context, private privateData) diag.Diagnostics {
	return private.SetKey(ctx, n.key, nil)
}

// noteForgetter is any note, for forgetNotes.
type noteForgetter interface {
	Forget(ctx context.Context, private privateData) diag.Diagnostics
}

// forgetNotes drops every note given.
func forgetNotes(ctx context.Context, private privateData, notes ...noteForgetter) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, n := range notes {
		diags.Append(n.Forget(ctx, private)...)
	}
	return diags
}

// noteHolds reports whether private holds the note with exactly the value
// want, adding any warning Load gives to diags.
func noteHolds[T comparable](ctx context.Context, private privateData, note privateNote[T], want T, diags *diag.Diagnostics) bool {
	got, loadDiags := note.Load(ctx, private)
	diags.Append(loadDiags...)
	return got != nil && *got == want
}
