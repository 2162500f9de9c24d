// Package scheduling splits a total number of replicas across member
// clusters, the way a ReplicaSchedulingPreference asks for.
//
// The planner is a pure function: [Plan] takes the total, the candidate
// clusters, per-cluster preferences (minimum, maximum, weight) and optional
// observations (current replicas, estimated capacity) and returns the same
// split for the same input on every run, which is what lets a Terraform plan
// show the exact counts that apply will use.
//
// Two strategies are offered. [KubeFed], the default, reproduces the planner
// of KubeFed's ReplicaSchedulingPreference controller count for count, so an
// existing KubeFed installation sees no change when Terraform takes it over.
// [Balanced] divides the replicas left after minimums with the Webster
// (Sainte-Laguë) highest-averages method, which keeps every cluster within one
// replica of its proportional share: 10 replicas over three equal clusters
// give 4/3/3 rather than KubeFed's 4/4/2.
package scheduling
