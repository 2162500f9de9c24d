package reconcile

import "maps"

// Outcome is what carrying out one Apply or Remove came to.
type Outcome struct {
	Cluster string
	// Err is empty when the cluster did what was asked.
	Err string
	// Uncertain says the request may or may not have taken effect: it was
	// cut off in flight (a timeout, a cancellation, a lost connection).
	Uncertain bool
	// Rollout is how waiting for the object to run ended, for an Apply or
	// a Wait that was waited for: RolloutDone, RolloutFailed or
	// RolloutTimedOut, with a message. Empty when nothing was waited for.
	Rollout        string
	RolloutMessage string
	// Stopped says why the operation was not carried out: an earlier stage
	// of a staged rollout failed.
	Stopped string
}

// How waiting for a rollout ended.
const (
	RolloutDone     = "done"
	RolloutFailed   = "failed"
	RolloutTimedOut = "timed out"
)

// Record is what the state says of every cluster after an apply.
type Record struct {
	// Held is, for each cluster, the object it holds, or Unknown.
	Held map[string]string
	// Status is, for each cluster the object concerns, its status word and
	// a message.
	Status map[string]Status
}

// Status is one cluster's entry of Record.Status.
type Status struct {
	Status  string
	Message string
}

// Failed reports whether the status is a failure to report: not OK, not a
// cluster waiting to be ready, not an orphaned object.
func (s Status) Failed() bool {
	switch s.Status {
	case StatusOK, StatusClusterNotReady, StatusOrphaned:
		return false
	}
	return true
}

// RolloutUnfinished reports whether the cluster holds the object but its
// rollout did not finish.
func (s Status) RolloutUnfinished() bool {
	return s.Status == StatusRolloutFailed || s.Status == StatusRolloutTimedOut
}

// Failed reports whether any cluster's status is a failure.
func (rec Record) Failed() bool {
	for _, s := range rec.Status {
		if s.Failed() {
			return true
		}
	}
	return false
}

// Fold is the record after the operations ran with the given outcomes: a
// cluster holds what it was sent only when its apply succeeded, loses its
// entry only when its removal succeeded, and is Unknown when its write was
// cut off in flight. Operations without an outcome never ran.
func Fold(in Input, ops []Operation, outcomes []Outcome) Record {
	rec := Record{Held: maps.Clone(in.Held), Status: map[string]Status{}}
	if rec.Held == nil {
		rec.Held = map[string]string{}
	}
	for cluster, want := range in.Want {
		if held, ok := in.Held[cluster]; ok && held == want && held != Unknown {
			rec.Status[cluster] = Status{Status: StatusOK}
		}
	}
	for _, cluster := range in.Placed {
		if _, ok := in.Want[cluster]; !ok {
			rec.Status[cluster] = Status{Status: StatusClusterNotReady,
				Message: "the cluster was not ready when the plan was made; the next plan after it recovers places the object"}
		}
	}
	byCluster := map[string]Outcome{}
	for _, o := range outcomes {
		byCluster[o.Cluster] = o
	}
	for _, op := range ops {
		o, ran := byCluster[op.Cluster]
		rec.fold(in, op, o, ran)
	}
	return rec
}

func (rec *Record) fold(in Input, op Operation, o Outcome, ran bool) {
	c := op.Cluster
	switch {
	case op.Action == Skip:
		rec.Status[c] = Status{Status: op.Status, Message: op.Reason}
	case op.Action == Forget:
		delete(rec.Held, c)
		delete(rec.Status, c)
	case ran && o.Stopped != "":
		rec.Status[c] = Status{Status: StatusNotUpdated, Message: o.Stopped}
	case op.Action == Wait && !ran:
		rec.Status[c] = Status{Status: StatusRolloutTimedOut, Message: "the apply ended before the rollout was waited for; the next apply waits again"}
	case !ran:
		rec.Status[c] = Status{Status: failed(op), Message: "the apply ended before this cluster was reached; the next apply does it"}
	case o.Uncertain:
		if op.Action == Apply {
			rec.Held[c] = Unknown
		}
		rec.Status[c] = Status{Status: StatusUnknown, Message: o.Err + "; the request may have taken effect: the next refresh reads back what the cluster holds"}
	case o.Err != "":
		rec.Status[c] = Status{Status: failed(op), Message: o.Err}
	case op.Action == Apply || op.Action == Wait:
		if op.Action == Apply {
			rec.Held[c] = in.Want[c]
		}
		rec.Status[c] = rolloutStatus(o)
	default:
		delete(rec.Held, c)
		delete(rec.Status, c)
	}
}

// rolloutStatus is the status of a cluster that holds the object, by how
// waiting for it ended.
func rolloutStatus(o Outcome) Status {
	switch o.Rollout {
	case RolloutFailed:
		return Status{Status: StatusRolloutFailed, Message: o.RolloutMessage + "; the object stays applied, and the next apply waits again"}
	case RolloutTimedOut:
		return Status{Status: StatusRolloutTimedOut, Message: o.RolloutMessage + "; the object stays applied, and the next apply waits again"}
	}
	return Status{Status: StatusOK}
}
