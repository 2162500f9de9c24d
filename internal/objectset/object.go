package objectset

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// The deletion policies: what a removal does with an object on a member.
const (
	// DeletionPolicyDelete deletes what the provider created and gives
	// back what it adopted.
	DeletionPolicyDelete = "Delete"
	// DeletionPolicyOrphan leaves every object in place.
	DeletionPolicyOrphan = "Orphan"
	// DeletionPolicyDeleteAdopted deletes adopted objects too.
	DeletionPolicyDeleteAdopted = "DeleteAdopted"
)

// Spec is one object's configuration in plain Go, as the resource gives it.
type Spec struct {
	// TypeName is the FederatedTypeConfig the object is of.
	TypeName string
	Template string
	// TemplateAt is the attribute that holds the template.
	TemplateAt   Path
	Placement    federation.Placement
	PlacementSet bool
	Overrides    []federation.OverrideRule
	Replicas     map[string]int64
	IgnoreFields []string
	Orphan       bool
	// Adopt consents to taking over an object that a cluster holds without
	// the provider having written it; without it, the plan refuses.
	Adopt bool
	// DeleteAdopted deletes adopted objects on removal too, instead of
	// giving them back.
	DeleteAdopted bool
	Force         bool
	// Retain leaves spec.replicas to the members that hold the object.
	Retain bool
	Wait   rollout.Config
	// Application is the name of the application the object belongs to.
	Application string
	// ReplicasPlaceOnly makes Replicas place the object without setting its
	// replica count: an application's objects other than its workload.
	ReplicasPlaceOnly bool
	// Key is the object's key in its set; zero for one derived from the template.
	Key federation.Key
}

// Object is one object of a set: its configuration checked against the
// type it names and turned into the engine's and propagation's terms.
type Object struct {
	Spec
	// ID is `<type>/<namespace>/<name>`, or `<type>/<name>`.
	ID       string
	Type     registry.FederatedType
	Identity federation.Identity
	Target   propagation.Object
	renderer *federation.Renderer
	// Secrets are the Secret's values, taken out of every message shown;
	// nil for other kinds.
	Secrets []string
	// Waiter says what apply waits for on each cluster it writes to.
	Waiter rollout.Waiter
	// Seen holds the clusters registered when refresh read the object; nil
	// when it did not.
	Seen map[string]bool
}

// NewObject checks spec against the type it names: enabled in the host, or
// planned in this run.
func (e *Env) NewObject(ctx context.Context, spec Spec) (*Object, Problems) {
	var problems Problems
	ft, err := e.Type(ctx, spec.TypeName)
	if errors.Is(err, registry.ErrNotFound) {
		problems.AddAttributeError(Root("type"), "Type not enabled", fmt.Sprintf("No FederatedTypeConfig %q in the host, "+
			"and no kubefed_federated_type planned before this object enables it: enable the type with a kubefed_federated_type "+
			"resource and set type to its name (type = kubefed_federated_type.x.name), so that this object is planned after it.",
			spec.TypeName))
		return nil, problems
	}
	if err != nil {
		problems.AddAttributeError(Root("type"), "Cannot read the federated type", err.Error())
		return nil, problems
	}
	renderer, err := federation.NewRenderer(federation.RenderSpec{
		Template:     spec.Template,
		Namespaced:   ft.Target.Namespaced,
		Overrides:    spec.Overrides,
		IgnoreFields: spec.IgnoreFields,
	})
	if err != nil {
		AddRenderError(&problems, spec.TemplateAt, err)
		return nil, problems
	}
	o := &Object{Spec: spec, Type: *ft, renderer: renderer, Identity: renderer.Identity(), Secrets: renderer.SecretValues()}
	if err := o.locate(); err != nil {
		problems.AddAttributeError(spec.TemplateAt, "Template does not match the type", err.Error())
		return nil, problems
	}
	waiter, errs := rollout.NewWaiter(o.Identity.APIVersion, o.Identity.Kind, spec.Wait)
	if len(errs) > 0 {
		problems.AddAttributeError(Root("wait"), "Invalid configuration", fmt.Sprintf("wait: %v", errs[0]))
		return nil, problems
	}
	o.Waiter = waiter
	return o, problems
}

// locate checks that the template is of the type and derives where the
// object lives, its id and its key.
func (o *Object) locate() error {
	gv, err := schema.ParseGroupVersion(o.Identity.APIVersion)
	if err != nil || gv.Group != o.Type.Target.Group || o.Identity.Kind != o.Type.Target.Kind {
		return fmt.Errorf("the template is a %s %s, but type %q federates %s %s", o.Identity.APIVersion, o.Identity.Kind,
			o.TypeName, o.Type.Target.APIVersion(), o.Type.Target.Kind)
	}
	o.Target = propagation.Object{
		Resource: schema.GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: o.Type.Target.Plural},
		Name:     o.Identity.Name,
	}
	o.ID = o.TypeName + "/" + o.Identity.Name
	if o.Type.Target.Namespaced {
		o.Target.Namespace = o.Identity.Namespace
		o.ID = o.TypeName + "/" + o.Identity.Namespace + "/" + o.Identity.Name
	}
	if o.Key == (federation.Key{}) {
		o.Key = federation.Key{Group: gv.Group, Version: gv.Version, Kind: o.Identity.Kind, Namespace: o.Target.Namespace, Name: o.Identity.Name}
	}
	return nil
}

// RunKey names the object among the run's creates and replacements.
func (o *Object) RunKey() string { return RunKey(o.ID) }

// RunKey names a federated object among the run's creates and replacements.
func RunKey(id string) string { return "FederatedObject/" + id }

// render renders the object for one cluster with its replica count; holds
// says the cluster holds the object already, whose replicas are then the
// member's with Retain.
func (o *Object) render(cluster federation.Cluster, holds, adopted bool) (federation.Rendered, error) {
	opts := federation.RenderOptions{RetainReplicas: o.Retain && holds}
	if n, ok := o.Replicas[cluster.Name]; ok && !o.ReplicasPlaceOnly {
		opts.Replicas = &n
	}
	rendered, err := o.renderer.RenderCluster(cluster, opts)
	if err != nil || !adopted {
		return rendered, err
	}
	return markAdopted(rendered)
}

// markAdopted marks both forms of a rendered object adopted.
func markAdopted(r federation.Rendered) (federation.Rendered, error) {
	display, err := federation.MarkAdopted([]byte(r.Display))
	if err != nil {
		return r, err
	}
	object, err := federation.MarkAdopted(r.Object)
	if err != nil {
		return r, err
	}
	r.Display, r.Object = string(display), object
	return r, nil
}

// heldAdopted reports whether what the state says a cluster holds is an
// object the provider adopted there.
func heldAdopted(held string) bool {
	return strings.Contains(held, federation.AdoptedAnnotation) && federation.IsAdopted(held)
}

// payload is the object to send to a cluster: the planned JSON itself, or,
// for a Secret, whose plan shows digests, the same rendering redone with
// the real values, which must show exactly as planned.
func (o *Object) payload(cluster federation.Cluster, display string, holds bool) ([]byte, error) {
	if o.Identity.Kind != "Secret" {
		return []byte(display), nil
	}
	rendered, err := o.render(cluster, holds, heldAdopted(display))
	if err == nil && rendered.Display == display {
		return rendered.Object, nil
	}
	return nil, errors.New("the Secret rendered at apply differs from the plan (the cluster's labels changed since); plan again")
}

// HostObject is the Federated<Kind> that records the object in the host.
func (o *Object) HostObject(status map[string]string) registry.FederatedObject {
	namespace, name := o.HostLocation()
	obj := registry.FederatedObject{
		Namespace:   namespace,
		Name:        name,
		Template:    o.renderer.HostTemplate(),
		Placement:   o.Placement,
		Overrides:   o.Overrides,
		Orphan:      o.Orphan,
		Status:      status,
		Application: o.Application,
	}
	if !o.PlacementSet && o.Replicas != nil {
		obj.Placement.Clusters = slices.Sorted(maps.Keys(o.Replicas))
	}
	if o.recordsText() {
		obj.TemplateText = o.Template
	}
	return obj
}

// recordsText says whether the host records the template's text, for an
// import to take back: an object of its own whose template is given in
// clear. A Secret's text, or a sensitive one, stays out of the host's
// annotations; an application's objects are imported from its manifests.
func (o *Object) recordsText() bool {
	return o.Application == "" && !IsSecretType(o.Type.Target) && o.TemplateAt.String() == "template"
}

// HostLocation is the namespace and name of the object's Federated<Kind>.
func (o *Object) HostLocation() (string, string) {
	return registry.FederatedObjectLocation(o.Type, o.Identity.Namespace, o.Identity.Name)
}

// hostRecord is where the object's record is in the host: its namespace
// ("" for a cluster-scoped record) and the record.
func (o *Object) hostRecord() (string, registry.HostObject) {
	namespace, name := o.HostLocation()
	return namespace, registry.HostObject{Resource: o.Type.Federated.Resource().GroupResource(), Name: name}
}

// AddRenderError reports an engine error at the attribute that caused it:
// an override, or else the template, at templateAt.
func AddRenderError(problems *Problems, templateAt Path, err error) {
	var override *federation.OverrideError
	if errors.As(err, &override) {
		at := Root("overrides").AtListIndex(override.Rule)
		if override.Patch >= 0 {
			at = at.AtName("patches").AtListIndex(override.Patch)
		}
		problems.AddAttributeError(at, "Invalid override", err.Error())
		return
	}
	problems.AddAttributeError(templateAt, "Invalid template", err.Error())
}
