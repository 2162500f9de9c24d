// Package federation decides where a federated object goes and what each
// member cluster receives, as pure functions over plain Go data.
//
// It follows KubeFed's model. A [Placement] selects member clusters, by name
// or by a label [Selector] evaluated with apimachinery's label selectors.
// [OverrideRule]s adjust the object per cluster with RFC 6902 JSON patches,
// applied with the leniencies of KubeFed's patch library so that overrides
// written for KubeFed give the same objects, and targeting a cluster by name
// or, unlike KubeFed, by labels. A [Renderer]
// turns a template into the exact object each cluster receives: template,
// then the cluster's replica count, then the overrides, then the removal of
// the fields something else owns, then the kubefed.io/managed label,
// serialised as canonical JSON so that the same inputs give the same bytes
// on every run. That stability is what lets a Terraform plan show the
// objects apply will write, with no diff on the next plan. Objects of kind
// Secret get a second rendering in which every data and stringData value is
// replaced by a hash, for display. The Renderer also owns the template's
// other forms: the copy KubeFed stores in the host cluster, and the
// canonical form of an object read back from a member, to compare with the
// plan. A field whose value is null in a template or a manifest is absent
// from all of them, as Terraform's `cond ? v : null` means.
//
// An application, a set of objects with one placement, goes through the
// same pipeline with a list in it. [ParseManifests] reads the set from
// elements of YAML or JSON documents, as `helm template` prints them, into
// [Manifest]s, each a template for the renderer, named by a [Key] of the
// form <group>/<version>/<Kind>/[<namespace>/]<name>; a [*ManifestError]
// says in which element, document and List item a problem is. As `helm
// install -n` does, [ManifestOptions] give a default namespace to the
// objects of namespaced kinds that name none ([BuiltinScope] knows the scope
// of Kubernetes' own kinds with no cluster); Helm's hooks and tests are read
// with their [Manifest.Hook], and [SplitHooks] leaves them out of the set.
// [SameObjects] tells whether two texts of manifests hold the same objects.
// [SelectObjects] gives each object the override rules whose [ObjectRef]
// names it, and [ReplicasTarget] finds the object that receives a
// cluster's replica count. On each cluster, [ApplyOrder] puts the objects
// in steps, as Helm installs a chart: namespaces and custom resource
// definitions, policies, service accounts, roles, bindings, configuration,
// storage, services, workloads, everything else, webhooks; [RemoveOrder]
// is the reverse.
//
// Nothing here talks to a cluster: the caller supplies the registered
// clusters and their labels.
package federation
