package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// A create of a federated object writes its Federated<Kind> to the host
// marked as unfinished, with a digest of what it was created from
// (registry.IncompleteCreateAnnotation), and removes the mark once every
// cluster is written. A create cut off in between (the process killed, say)
// leaves a marked record that no state holds; the next create of the same
// object with the same content finds it and completes it, where any other
// record is refused. Terraform tells a provider neither the resource's
// address nor the workspace, so the content is what tells the record apart.

// recordVerdict is what a create does with the host record it finds.
type recordVerdict int

const (
	// recordAbsent: nothing there; the create writes it.
	recordAbsent recordVerdict = iota
	// recordResumed: an unfinished create of this same content; the create
	// completes it.
	recordResumed
	// recordReplaced: an unfinished create of an object this run's state
	// holds (a create that failed on some clusters or was interrupted,
	// tainted and now replaced, perhaps with a changed configuration); the
	// create takes it over, as a replacement.
	recordReplaced
	// recordForeign: a finished record, or an unfinished one of other
	// content that no state of this run holds; the create is refused.
	recordForeign
)

// judgeRecord decides what a create does with record, the host's record of
// the object (nil when there is none): digest is the ContentDigest of what
// the create writes, and held says that a refresh of this run read the
// object from its state.
func judgeRecord(record *registry.FederatedObject, digest string, held bool) recordVerdict {
	switch {
	case record == nil:
		return recordAbsent
	case !record.Incomplete:
		return recordForeign
	case held:
		return recordReplaced
	case record.CreatedFrom == digest:
		return recordResumed
	}
	return recordForeign
}

// refuseExisting fails a create of an object whose Federated<Kind> the host
// holds, unless judgeRecord says the record is the create's own: then the
// plan says that the apply completes it.
func (r *federatedObjectResource) refuseExisting(ctx context.Context, in *objectInputs, diags *diag.Diagnostics) {
	namespace, name := registry.FederatedObjectLocation(in.ft, in.identity.Namespace, in.identity.Name)
	what := in.ft.Federated.Kind + " " + name
	if namespace != "" {
		what = in.ft.Federated.Kind + " " + namespace + "/" + name
	}
	record, digest, err := r.hostRecord(ctx, in, namespace, name)
	if err != nil {
		diags.AddAttributeError(in.templateAt, "Cannot check the host", fmt.Sprintf("Before creating %s: %v", what, err))
		return
	}
	switch judgeRecord(record, digest, r.data.run.Held(objectKey(in.id))) {
	case recordResumed:
		diags.AddAttributeWarning(in.templateAt, "Completes an interrupted create",
			fmt.Sprintf("The host holds %s as written by an earlier create of %s from this same template, placement and overrides "+
				"that did not finish (it never reached the state). The apply completes it: it writes the object to each placed "+
				"cluster, adopting what is there already, and clears the host's unfinished mark.", what, in.object))
	case recordForeign:
		diags.AddAttributeError(in.templateAt, "Already exists in the host", existsMessage(foundRecord(what, record), in.id))
	}
}

// hostRecord reads the object's record in the host, nil when there is
// none, and the digest of what this create writes.
func (r *federatedObjectResource) hostRecord(ctx context.Context, in *objectInputs, namespace, name string) (*registry.FederatedObject, string, error) {
	digest, err := registry.ContentDigest(in.hostObject(nil))
	if err != nil {
		return nil, "", err
	}
	reg, err := r.data.registry(ctx)
	if err != nil {
		return nil, "", err
	}
	record, err := reg.FindFederatedObject(ctx, in.ft, namespace, name)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, digest, nil
	}
	return record, digest, err
}

// foundRecord says what the host holds and who wrote it.
func foundRecord(what string, record *registry.FederatedObject) string {
	found := what + " exists already"
	if record.Incomplete {
		found = what + " exists already, written by an unfinished create from another template, placement or overrides"
	}
	if len(record.Writers) > 0 {
		found += fmt.Sprintf(" (written by field manager %s)", strings.Join(record.Writers, ", "))
	}
	return found
}

// exitAfterHostWriteEnv names the id of a federated object whose create
// makes the provider exit right after it wrote the object's host record, as
// a process killed at that moment would: how the acceptance tests cut a
// create off between its host write and its end.
const exitAfterHostWriteEnv = "KUBEFED_TEST_EXIT_AFTER_HOST_WRITE"

// exitAfterHostWrite ends the process when exitAfterHostWriteEnv names id.
func exitAfterHostWrite(id string) {
	if v := os.Getenv(exitAfterHostWriteEnv); v != "" && v == id {
		os.Exit(3)
	}
}
