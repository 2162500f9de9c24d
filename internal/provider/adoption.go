package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// A create never takes over a host object that exists already: another
// resource, another workspace or KubeFed itself manages it, and a second
// resource writing it would rewrite it under the first one's feet and, on
// destroy, delete it. The plan refuses when the host can be read; the apply
// checks again before writing. The create half of an in-place replacement
// is the one exception: the object it finds is its own.

// hostLookup says whether the host holds the object; it returns
// registry.ErrNotFound when it does not.
type hostLookup func(ctx context.Context) error

// refuseExisting reports an error at attribute when the host holds the
// object a create would write. what names the object ("KubeFedCluster
// kube-federation-system/berlin"), importID is the id to import it by.
func refuseExisting(ctx context.Context, lookup hostLookup, what, importID string, at path.Path, diags *diag.Diagnostics) {
	err := lookup(ctx)
	switch {
	case errors.Is(err, registry.ErrNotFound):
	case err != nil:
		diags.AddAttributeError(at, "Cannot check the host", fmt.Sprintf("Before creating %s: %v", what, err))
	default:
		diags.AddAttributeError(at, "Already exists in the host", existsMessage(what+" exists already", importID))
	}
}

// existsMessage says, after found (what the host holds), why a create does
// not take it over and how to manage it instead.
func existsMessage(found, importID string) string {
	return fmt.Sprintf("%s: another resource, another workspace or KubeFed manages it, and creating it "+
		"here would take it over. To manage it with this resource, import it (terraform import <this resource's address> %s, "+
		"or an import block with id = %q) instead of creating it; otherwise give this one another name.",
		found, importID, importID)
}

// checkedAtPlan reports whether a create's plan can ask the host: its
// identity is known and the host can be contacted.
func (d *providerData) checkedAtPlan(identityKnown bool) bool {
	return identityKnown && d.hostKnown() && d.configErr == nil
}

// Terraform plans a replacement (a change that requires it, or -replace)
// twice: with the prior state, then as a create, handing the second plan
// the private data the first one produced. So every plan from a prior state
// notes what it planned (plannedFromStateNote), and a create that finds the
// note for its own object is the create half of a replacement: what it
// finds in the host is its own. (A tainted object is planned as a plain create, without the
// note; its host object carries the incomplete-create mark instead, and the
// refresh of this run read it.)

// claimCreate fails the create of an object another resource of this run
// creates too.
func (d *providerData) claimCreate(key, what string, at path.Path, diags *diag.Diagnostics) {
	if !d.run.ClaimCreate(key) {
		diags.AddAttributeError(at, "Created twice in one configuration",
			fmt.Sprintf("Another resource of this configuration creates %s too. Keep one of them.", what))
	}
}

// deletionPolicyValidators accept the deletion policies.
func deletionPolicyValidators() []validator.String {
	return []validator.String{stringvalidator.OneOf(deletionDelete, deletionOrphan, objectset.DeletionPolicyDeleteAdopted)}
}

// adoptAttribute is the consent to take over what clusters hold already;
// what names what is taken over.
func adoptAttribute(what string) schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true,
		Description: fmt.Sprintf("Take over %s where a cluster holds it already and this provider did not create it. Without it "+
			"the plan refuses, naming the cluster. An adopted object is marked `%s`, and a destroy or a placement that leaves "+
			"the cluster gives it back (label, mark and this provider's fields taken off) instead of deleting it, unless "+
			"`deletion_policy = \"DeleteAdopted\"`.", what, federation.AdoptedAnnotation),
	}
}
