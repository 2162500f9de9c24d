// Package scheduling splits a total number of replicas across member
// clusters, the way a ReplicaSchedulingPreference asks for.
//
// The planner is a pure function: [Plan] takes the total, the candidate
// clusters, per-cluster preferences (minimum, maximum, weight) and optional
// observations (current replicas, estimated capacity, cluster labels) and
// returns the same split for the same input on every run, which is what lets
// a Terraform plan show the exact counts that apply will use.
//
// Two strategies are offered. [KubeFed], the default, reproduces the planner
// of KubeFed's ReplicaSchedulingPreference controller count for count, so an
// existing KubeFed installation sees no change when Terraform takes it over.
// [Balanced] divides the replicas left after minimums with the Webster
// (Sainte-Laguë) highest-averages method, which keeps every cluster within one
// replica of its proportional share: 10 replicas over three equal clusters
// give 4/3/3 rather than KubeFed's 4/4/2.
//
// # Capacity
//
// Input.Capacity bounds what a cluster is planned, as KubeFed's estimated
// capacity does: a cluster's share above its capacity goes to the other
// clusters in weight order, and what fits nowhere is Result.Unplaced. With
// KubeFed and rebalance, the cut part is also reported as Result.Overflow, in
// case the estimate was pessimistic. A cluster absent from the map is
// unbounded.
//
// # Weights from capacity
//
// With Input.WeightBy = [AvailableCapacity] every positive weight is replaced
// by the cluster's capacity, so that the replicas left after minimums are
// divided in proportion to the room each cluster has; minimums, maximums and
// the capacity bound apply as before. A weight of 0 stays 0. A cluster
// without an estimate weighs TotalReplicas, as if it could hold them all.
//
// # Choosing clusters
//
// Input.MaxClusters and Input.Spread choose which candidates take part; the
// others are planned 0 and listed in Result.Excluded with the reason. The
// chosen clusters are then split exactly as if they were the only candidates.
// Clusters are chosen in this order:
//
//  1. those that can take replicas: room (the lower of maximum and capacity)
//     above 0, and a weight or a minimum;
//  2. with KubeFed and rebalance off, those that run replicas now (Current),
//     so that choosing does not move running replicas when the ranking
//     shifts a little;
//  3. higher weight (the capacity-derived weight under AvailableCapacity);
//  4. more room, a cluster without an estimate or maximum counting as
//     unbounded;
//  5. the FNV-1 hash of name and Key, as the strategies break ties, then the
//     name.
//
// MaxClusters = N keeps the first N.
//
// # Spread
//
// Spread{ByLabel, MinGroups, MaxGroups} groups the candidates by the value of
// the cluster label ByLabel (from Input.ClusterLabels) and places on as many
// groups as it may: all of them, or the first MaxGroups (and at most
// MaxClusters). Groups are ranked like clusters, adding up their weights and
// room, the hash taken of the label value. Candidates without the label are
// excluded: a cluster whose region is unknown cannot count towards a spread
// across regions, which is also how Karmada's spread constraints treat it.
// When no candidate has the label at all, Plan returns an *InputError on
// FieldSpread: a split that places nothing would scale the workload to zero.
//
// Within the chosen groups, MaxClusters keeps the best cluster of every
// group first, then the others in the order above. When the strategy's split
// leaves one of the first MinGroups groups without replicas (a small total,
// skewed weights), the best cluster of each of those groups is given a
// minimum of one replica and the split is made again. The preferences' own
// minimums come first: a group is seeded only with replicas the total has
// to spare after them.
//
// A spread that cannot be met is not an error: when the candidates offer
// fewer than MinGroups groups that can take replicas (a region is down, or
// has no capacity), or the total, minimums or capacities leave a group empty,
// the split places on what there is and says so in Result.Warnings. Failing
// the plan instead would keep the replicas of an unhealthy region where they
// cannot run. A contradiction within the input itself, such as MinGroups
// above MaxGroups or MaxClusters, is an *InputError.
//
// This differs from Karmada in one respect: Karmada places on the fewest
// groups that satisfy its constraints, while this planner places on as many
// as MaxGroups allows, which is what "spread" asks for in a federation that
// wants availability.
package scheduling
