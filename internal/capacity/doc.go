// Package capacity estimates how many replicas of a workload a member
// cluster can hold, from the member's own Nodes and Pods, so that a replica
// split can be told what fits before it is applied.
//
// The estimate follows the general estimator of Karmada: a node counts when
// it is Ready, not cordoned, carries no NoSchedule or NoExecute taint the
// replica does not tolerate, and matches the replica's node selector and
// required node affinity. On such a node the free amount of each resource is
// its allocatable minus the requests of the non-terminated pods bound to it,
// and the replicas that fit are the smallest floor(free / request) over the
// resources the replica requests and the node's free pod slots. The sum over
// nodes, plus the replicas the workload already runs (they hold their
// resources already), is the cluster's capacity.
//
// KubeFed's feedback complements it: when pods of the workload have been
// Pending as Unschedulable for longer than a threshold, the member's own
// scheduler has spoken, and the capacity is capped at the pods it did place.
//
// A typical caller, per member cluster:
//
//	replica := capacity.ReplicaFromPodSpec(template)          // or capacity.Replica{Requests: parsed}
//	est := capacity.Estimate(replica, capacity.Member{
//		Nodes:   nodes,                                        // the member's Nodes
//		Pods:    pods,                                         // all of its Pods, every namespace
//		Running: capacity.BoundReplicas(workloadPods),         // the workload's own pods on nodes
//	})
//	est = est.WithFeedback(capacity.Unschedulable(workloadPods, now, capacity.DefaultUnschedulableAfter))
//	// est.Replicas is the capacity to plan with; est.Reason() says why, for a plan warning.
//
// The estimate is a snapshot, not a reservation: other workloads may take
// the room between plan and apply. It ignores what the estimator cannot see
// from Nodes and Pods alone: pod affinity and anti-affinity, topology spread,
// host ports, volumes, resource quotas and node autoscaling.
package capacity
