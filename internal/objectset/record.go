package objectset

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"

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

// RefuseExisting fails a create of an object whose Federated<Kind> the host
// holds, unless judgeRecord says the record is the create's own: then the
// plan says that the apply completes it.
func (e *Env) RefuseExisting(ctx context.Context, o *Object) Problems {
	var problems Problems
	namespace, name := o.HostLocation()
	what := o.Type.Federated.Kind + " " + objectLocation(namespace, name)
	record, digest, err := e.findRecord(ctx, o, namespace, name)
	if err != nil {
		problems.AddAttributeError(o.TemplateAt, "Cannot check the host", fmt.Sprintf("Before creating %s: %v", what, err))
		return problems
	}
	switch judgeRecord(record, digest, e.Run.Held(o.RunKey())) {
	case recordResumed:
		problems.AddAttributeWarning(o.TemplateAt, "Completes an interrupted create",
			fmt.Sprintf("The host holds %s as written by an earlier create of %s from this same template, placement and overrides "+
				"that did not finish (it never reached the state). The apply completes it: it writes the object to each placed "+
				"cluster, adopting what is there already, and clears the host's unfinished mark.", what, o.Target))
	case recordForeign:
		problems.AddAttributeError(o.TemplateAt, "Already exists in the host", ExistsMessage(foundRecord(what, record), o.ID))
	}
	return problems
}

// ClaimCreate fails the create of an object another resource of this run
// creates too.
func (e *Env) ClaimCreate(o *Object) Problems {
	var problems Problems
	if !e.Run.ClaimCreate(o.RunKey()) {
		problems.AddAttributeError(o.TemplateAt, "Created twice in one configuration",
			fmt.Sprintf("Another resource of this configuration creates %s too. Keep one of them.", o.Target))
	}
	return problems
}

// findRecord reads the object's record in the host, nil when there is
// none, and the digest of what this create writes.
func (e *Env) findRecord(ctx context.Context, o *Object, namespace, name string) (*registry.FederatedObject, string, error) {
	digest, err := registry.ContentDigest(o.HostObject(nil))
	if err != nil {
		return nil, "", err
	}
	reg, err := e.Registry(ctx)
	if err != nil {
		return nil, "", err
	}
	record, err := reg.FindFederatedObject(ctx, o.Type, namespace, name)
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

// ExistsMessage says, after found (what the host holds), why a create does
// not take it over and how to manage it instead.
func ExistsMessage(found, importID string) string {
	return fmt.Sprintf("%s: another resource, another workspace or KubeFed manages it, and creating it "+
		"here would take it over. To manage it with this resource, import it (terraform import <this resource's address> %s, "+
		"or an import block with id = %q) instead of creating it; otherwise give this one another name.",
		found, importID, importID)
}

// StartRefuseExisting starts RefuseExisting, for a create's plan that asks
// the members meanwhile whether they accept the object: neither waits for
// the other, and the plan fails if either says no.
func (e *Env) StartRefuseExisting(ctx context.Context, o *Object) func() Problems {
	var problems Problems
	wait := overlap.Start(func() { problems = e.RefuseExisting(ctx, o) })
	return func() Problems {
		wait()
		return problems
	}
}
