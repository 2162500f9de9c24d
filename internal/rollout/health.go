package rollout

import "fmt"

// Health is what a cluster's live object says of how it runs there.
type Health struct {
	// Ready says the object has rolled out (for the kinds with a
	// rollout), has the replicas it asks for ready (for other kinds with
	// spec.replicas), and has no Ready condition that is not True.
	Ready bool
	// The replica counts: what spec.replicas asks for (for DaemonSets, the
	// nodes that should run the pod), and how many are ready, updated and
	// available. Zero for kinds without them.
	Replicas, ReadyReplicas, UpdatedReplicas, AvailableReplicas int64
	// Message is one line, such as "2/3 ready, 3/3 updated, 2/3 available"
	// or "no replica count".
	Message string
}

// Reports says whether an object has a rollout or a replica count to
// report, read from the object as it is applied: the kinds with a rollout
// and any other with spec.replicas. The others' health would only ever say
// "no replica count", so a resource keeps no health entry for them.
func Reports(obj map[string]any) bool {
	if workload(obj) != "" {
		return true
	}
	_, ok := integer(obj, "spec", "replicas")
	return ok
}

// HealthOf reads the Health of any live object.
func HealthOf(obj map[string]any) Health {
	if workload(obj) != "" {
		st := RolloutStatus(obj)
		return Health{Ready: st.Done, Replicas: st.Desired, ReadyReplicas: st.Ready,
			UpdatedReplicas: st.Updated, AvailableReplicas: st.Available, Message: st.Message}
	}
	h := Health{Ready: true, Message: "no replica count"}
	if n, ok := integer(obj, "spec", "replicas"); ok {
		h.Replicas = n
		h.ReadyReplicas = count(obj, "status", "readyReplicas")
		h.UpdatedReplicas = count(obj, "status", "updatedReplicas")
		h.AvailableReplicas = count(obj, "status", "availableReplicas")
		h.Ready = h.ReadyReplicas == n
		h.Message = fmt.Sprintf("%d/%d ready", h.ReadyReplicas, n)
	}
	if c := condition(obj, "Ready"); c != nil {
		status := text(c, "status")
		h.Ready = h.Ready && status == "True"
		h.Message += "; Ready=" + status
		if reason := text(c, "reason"); reason != "" && status != "True" {
			h.Message += ": " + reason
		}
	}
	return h
}
