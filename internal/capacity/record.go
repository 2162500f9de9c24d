package capacity

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A refresh records the capacity it estimated for each candidate member,
// and both plans of the run split by that record: the members' Nodes and
// Pods change all the time, and an apply whose split differs from the
// plan's is refused as inconsistent. The record says which inputs it was
// made for, so a plan whose inputs differ reads the members again.

// Inputs is what the estimate of each member depends on besides the member
// itself. Its fingerprint tells whether an estimate recorded at refresh
// still answers the plan's question.
type Inputs struct {
	Replica Replica       `json:"replica"`
	After   time.Duration `json:"after"`
	// Target is the workload: its federated kind, namespace and name.
	Target string `json:"target"`
}

// Fingerprint is a digest of the inputs; empty when they do not encode,
// which matches no record.
func (in Inputs) Fingerprint() string {
	raw, err := json.Marshal(in)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Note is the record: the inputs' fingerprint and each candidate's estimate.
type Note struct {
	Inputs   string                     `json:"inputs"`
	Clusters map[string]ClusterEstimate `json:"clusters"`
}

// ClusterEstimate is one member's estimate, or why it could not be read.
type ClusterEstimate struct {
	Replicas int64  `json:"replicas"`
	Reason   string `json:"reason,omitempty"`
	// Unread says why the member was not read: its capacity is unbounded.
	Unread string `json:"unread,omitempty"`
}

// RecordedFor splits the clusters into those the note answers for the
// inputs of fingerprint, with their estimates, and those to read now.
func RecordedFor(note *Note, fingerprint string, clusters []string) (map[string]ClusterEstimate, []string) {
	known := map[string]ClusterEstimate{}
	var toRead []string
	for _, name := range clusters {
		if e, ok := note.lookup(fingerprint, name); ok {
			known[name] = e
			continue
		}
		toRead = append(toRead, name)
	}
	return known, toRead
}

func (n *Note) lookup(fingerprint, cluster string) (ClusterEstimate, bool) {
	if n == nil || fingerprint == "" || n.Inputs != fingerprint {
		return ClusterEstimate{}, false
	}
	e, ok := n.Clusters[cluster]
	return e, ok
}

// EstimateOf is the capacity of one member from what was read of it (its
// nodes, its pods that have not finished, the workload's pods among them,
// or why it could not be read): room on its schedulable nodes plus the
// replicas the workload runs there, capped by KubeFed's Unschedulable
// feedback as judged at now.
func EstimateOf(in Inputs, nodes []corev1.Node, pods, workloadPods []corev1.Pod, readErr error, now time.Time) ClusterEstimate {
	if readErr != nil {
		return ClusterEstimate{Unread: readErr.Error()}
	}
	est := Estimate(in.Replica, Member{Nodes: nodes, Pods: pods, Running: BoundReplicas(workloadPods)})
	est = est.WithFeedback(Unschedulable(workloadPods, now, in.After))
	return ClusterEstimate{Replicas: est.Replicas, Reason: est.Reason()}
}
