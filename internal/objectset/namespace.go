package objectset

import (
	"context"
	"fmt"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// hostNamespaceCheck is the look into a host namespace that a deletion
// leaves, started beside the deletion's other requests so that a far host
// costs it no round trip of its own when the provider did not create the
// namespace (nothing more to do), and one when nothing but the deleted
// record holds it (the namespace's deletion). A created namespace that
// held more costs one request once the record is gone, to see whether
// what held it is still there: the other objects of one destroy go
// meanwhile, and the last of them must find the namespace empty.
type hostNamespaceCheck struct {
	namespace string
	wait      func()
	found     registry.CreatedNamespaceContent
	err       error
}

func startNamespaceCheck(ctx context.Context, reg *registry.Registry, namespace string, leaving ...registry.HostObject) *hostNamespaceCheck {
	c := &hostNamespaceCheck{namespace: namespace}
	c.wait = overlap.Start(func() { c.found, c.err = reg.CreatedNamespace(ctx, namespace, leaving...) })
	return c
}

// removeIfEmpty waits for the check, and deletes the namespace when it is
// one the provider created that nothing holds any more. A created
// namespace held by an object that is still there stays; one whose holder
// went meanwhile is looked into again.
func (c *hostNamespaceCheck) removeIfEmpty(ctx context.Context, e *Env, reg *registry.Registry, problems *Problems) {
	if c == nil || reg == nil {
		return
	}
	c.wait()
	switch {
	case c.err == nil && c.found.Empty:
		removed, err := reg.DeleteCreatedNamespace(ctx, c.namespace, c.found.UID)
		e.reportCreatedNamespace(ctx, c.namespace, removed, err, problems)
	case c.err == nil && c.found.Created:
		if held, err := reg.StillHeld(ctx, c.namespace, c.found); held && err == nil {
			return
		}
		problems.Append(e.RemoveCreatedNamespace(ctx, reg, c.namespace)...)
	case c.err != nil:
		problems.Append(e.RemoveCreatedNamespace(ctx, reg, c.namespace)...)
	}
}

// reportCreatedNamespace logs the removal of a host namespace the provider
// created, or warns that it stays when it could not be looked into.
func (e *Env) reportCreatedNamespace(ctx context.Context, namespace string, removed bool, err error, problems *Problems) {
	if err != nil {
		problems.AddWarning(fmt.Sprintf("Namespace %q stays in the host", namespace),
			fmt.Sprintf("The provider created namespace %q in the host for federated objects, and removes it with the last "+
				"of them, but could not tell whether it holds anything else: %v. Delete it by hand once it is empty "+
				"(kubectl delete namespace %s on the host); with the kubefed-provider-namespaces role of the permissions "+
				"guide, the provider does it itself.", namespace, err, namespace))
		return
	}
	if removed {
		e.log(ctx, "removed the host namespace the provider created, with the last object in it", map[string]any{"namespace": namespace})
	}
}

// RemoveCreatedNamespace deletes the host namespace that the provider
// created for what it stores there, once the last of it is gone. One that
// cannot be looked into whole is kept, with a warning.
func (e *Env) RemoveCreatedNamespace(ctx context.Context, reg *registry.Registry, namespace string) Problems {
	var problems Problems
	removed, err := reg.RemoveCreatedNamespace(ctx, namespace)
	e.reportCreatedNamespace(ctx, namespace, removed, err, &problems)
	return problems
}
