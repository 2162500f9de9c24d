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
// plan.
//
// Nothing here talks to a cluster: the caller supplies the registered
// clusters and their labels.
package federation
