package rollout

import (
	"fmt"
	"strings"
)

// Status is what one look at a live object says of its rollout.
type Status struct {
	// Done says the object has rolled out: nothing more to wait for.
	Done bool
	// Failed says the rollout cannot finish without a change: waiting
	// longer does not help. Reason says why.
	Failed bool
	Reason string
	// The replica counts, for kinds that have them: what is wanted, and how
	// many are ready, run the new revision, and are available.
	Desired, Ready, Updated, Available int64
	// Message is one line for the user, such as "2/3 ready, 3/3 updated,
	// 2/3 available".
	Message string
}

// ReasonProgressDeadline is the reason a Deployment's Progressing
// condition gives when the Deployment controller has given up.
const ReasonProgressDeadline = "ProgressDeadlineExceeded"

// RolloutStatus says whether a live Deployment, StatefulSet or DaemonSet
// has rolled out, with what kubectl rollout status decides: the controller
// has observed the latest generation, and the replicas the spec asks for
// run the new revision and are ready and available. Objects of other kinds
// have no rollout: they are Done.
func RolloutStatus(obj map[string]any) Status {
	switch workload(obj) {
	case "Deployment":
		return deploymentStatus(obj)
	case "StatefulSet":
		return statefulSetStatus(obj)
	case "DaemonSet":
		return daemonSetStatus(obj)
	}
	return Status{Done: true, Message: fmt.Sprintf("a %s has no rollout", text(obj, "kind"))}
}

// workload is the kind of obj when it is one RolloutStatus knows, else "".
// Only the built-in groups count: a custom resource may be called
// Deployment too.
func workload(obj map[string]any) string {
	gk := groupKind(obj)
	if gk.Group != "apps" && gk.Group != "extensions" {
		return ""
	}
	switch gk.Kind {
	case "Deployment", "StatefulSet", "DaemonSet":
		return gk.Kind
	}
	return ""
}

// deploymentStatus is done when every desired replica runs the new
// ReplicaSet and is ready and available, and no old replica remains.
func deploymentStatus(obj map[string]any) Status {
	st := Status{
		Desired:   desiredReplicas(obj),
		Ready:     count(obj, "status", "readyReplicas"),
		Updated:   count(obj, "status", "updatedReplicas"),
		Available: count(obj, "status", "availableReplicas"),
	}
	if msg, ok := observed(obj); !ok {
		st.Message = msg
		return st
	}
	if c := condition(obj, "Progressing"); c != nil && text(c, "reason") == ReasonProgressDeadline {
		return st.fail(ReasonProgressDeadline, text(c, "message"))
	}
	st.Message = st.counts()
	old := count(obj, "status", "replicas") - st.Updated
	if old > 0 {
		st.Message += fmt.Sprintf("; %s pending termination", plural(old, "old replica"))
	}
	st.Done = old == 0 && st.Updated == st.Desired && st.Ready == st.Desired && st.Available == st.Desired
	return st
}

// statefulSetStatus honours the update strategy: OnDelete is done once
// observed, since pods change only when someone deletes them; a partition
// leaves the pods below it on the old revision, so only those at or above
// it must be updated; otherwise the update revision must have become the
// current one.
func statefulSetStatus(obj map[string]any) Status {
	st := Status{
		Desired: desiredReplicas(obj),
		Ready:   count(obj, "status", "readyReplicas"),
		Updated: count(obj, "status", "updatedReplicas"),
	}
	// API servers before Kubernetes 1.22 report no available replicas: ready
	// ones are the nearest count.
	var reported bool
	if st.Available, reported = integer(obj, "status", "availableReplicas"); !reported {
		st.Available = st.Ready
	}
	if early, ok := unobservedOrOnDelete(obj, st); ok {
		return early
	}
	st.Message = st.counts()
	ready := st.Ready == st.Desired && st.Available == st.Desired
	if partition := count(obj, "spec", "updateStrategy", "rollingUpdate", "partition"); partition > 0 {
		toUpdate := max(st.Desired-partition, 0)
		st.Message += fmt.Sprintf("; partition %d: %d to update", partition, toUpdate)
		st.Done = ready && st.Updated >= toUpdate
		return st
	}
	current, update := text(obj, "status", "currentRevision"), text(obj, "status", "updateRevision")
	if current != update {
		st.Message += fmt.Sprintf("; revision %s is replacing %s", update, current)
	}
	st.Done = ready && current == update
	return st
}

// daemonSetStatus is done when every node that should run the pod runs
// the new one and it is available there. OnDelete is done once observed.
func daemonSetStatus(obj map[string]any) Status {
	st := Status{
		Desired:   count(obj, "status", "desiredNumberScheduled"),
		Ready:     count(obj, "status", "numberReady"),
		Updated:   count(obj, "status", "updatedNumberScheduled"),
		Available: count(obj, "status", "numberAvailable"),
	}
	if early, ok := unobservedOrOnDelete(obj, st); ok {
		return early
	}
	st.Message = st.counts()
	st.Done = st.Updated == st.Desired && st.Available == st.Desired
	return st
}

// unobservedOrOnDelete is st, and true, when the StatefulSet or DaemonSet
// controller has not observed the latest spec, or when the OnDelete
// strategy leaves nothing to roll out.
func unobservedOrOnDelete(obj map[string]any, st Status) (Status, bool) {
	if msg, ok := observed(obj); !ok {
		st.Message = msg
		return st, true
	}
	if text(obj, "spec", "updateStrategy", "type") == "OnDelete" {
		st.Done = true
		st.Message = "OnDelete update strategy: pods change when they are deleted; " + st.counts()
		return st, true
	}
	return st, false
}

// desiredReplicas is spec.replicas, which the API server defaults to 1.
func desiredReplicas(obj map[string]any) int64 {
	if n, ok := integer(obj, "spec", "replicas"); ok {
		return n
	}
	return 1
}

// observed says whether the controller has seen the latest spec: until it
// has, the status describes an older one.
func observed(obj map[string]any) (string, bool) {
	generation := count(obj, "metadata", "generation")
	seen, ok := integer(obj, "status", "observedGeneration")
	if ok && seen >= generation {
		return "", true
	}
	return fmt.Sprintf("waiting for the %s controller to observe generation %d (it has seen %d)",
		text(obj, "kind"), generation, seen), false
}

// condition is the entry of status.conditions of the given type, or nil.
func condition(obj map[string]any, typ string) map[string]any {
	for _, c := range conditions(obj) {
		if text(c, "type") == typ {
			return c
		}
	}
	return nil
}

// fail marks the status failed for reason, with detail and the counts.
func (s Status) fail(reason, detail string) Status {
	s.Done, s.Failed, s.Reason = false, true, reason
	s.Message = reason
	if detail = oneLine(detail); detail != "" {
		s.Message += ": " + detail
	}
	if s.Desired > 0 || s.Ready > 0 || s.Updated > 0 || s.Available > 0 {
		s.Message += "; " + s.counts()
	}
	return s
}

func (s Status) counts() string {
	return fmt.Sprintf("%d/%d ready, %d/%d updated, %d/%d available",
		s.Ready, s.Desired, s.Updated, s.Desired, s.Available, s.Desired)
}

// oneLine folds a message from the API onto one line, without the final
// full stop, so that more can follow it.
func oneLine(s string) string {
	return strings.TrimSuffix(strings.Join(strings.Fields(s), " "), ".")
}

func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
