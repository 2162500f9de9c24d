// Package objectset is the pipeline of a set of federated objects, from
// configuration in plain Go to what each member holds: the inputs of each
// object (its type, renderer and rollout waits), the plan (placement,
// rendering per cluster, checks against the host and the members), the
// apply (reconcile.Diff per object, one staged rollout of the set,
// reconcile.Fold, rollback, host records), the refresh (members and host
// records, one drift model) and the removal. A kubefed_federated_object is a
// set of one; a kubefed_federated_application is a set of many.
//
// It knows nothing of Terraform: it returns results and Problems, each at
// a Path in the resource's own terms, and the provider maps them onto
// diagnostics in one place.
package objectset
