package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Condition is a status condition the live object must have.
type Condition struct {
	Type string
	// Status is True, False or Unknown; empty means True.
	Status string
}

// Config is what to wait for once an object is applied.
type Config struct {
	// Rollout waits for the rollout; nil means the default for the kind,
	// as WaitsForRollout says.
	Rollout *bool
	// Conditions must all hold on status.conditions.
	Conditions []Condition
	// Fields maps field paths to the values they must have; the package
	// documentation says how a value is told from a regular expression.
	Fields map[string]string
	// UnschedulableFor is how long a pod of the rollout may go without a
	// node before the rollout fails; 0 means DefaultUnschedulableFor.
	UnschedulableFor time.Duration
}

// InputError is a Config entry that cannot be waited for.
type InputError struct {
	// Condition is the index in Config.Conditions the error is about, or
	// -1 when it is about the Fields entry Field.
	Condition int
	Field     string
	Message   string
}

func (e InputError) Error() string { return e.Message }

// Validate returns what is wrong with the conditions and fields of c: the
// conditions in order, then the fields sorted by path.
func Validate(c Config) []InputError {
	_, errs := NewWaiter("", "", c)
	return errs
}

// WaitsForRollout says whether apply waits for an object's rollout: as
// configured, or by default for the kinds that have one (apps
// Deployments, StatefulSets and DaemonSets), which is what the kubectl
// provider and kubectl apply followed by kubectl rollout status do.
func WaitsForRollout(apiVersion, kind string, rollout *bool) bool {
	if rollout != nil {
		return *rollout
	}
	return workload(map[string]any{"apiVersion": apiVersion, "kind": kind}) != ""
}

// Waiter decides, one look at a live object at a time, whether what
// Config asks for holds.
type Waiter struct {
	rollout          bool
	conditions       []Condition
	fields           []fieldMatch
	unschedulableFor time.Duration
}

// NewWaiter compiles c for objects of the given apiVersion and kind. The
// errors are Validate's; the Waiter is usable only without them.
func NewWaiter(apiVersion, kind string, c Config) (Waiter, []InputError) {
	w := Waiter{rollout: WaitsForRollout(apiVersion, kind, c.Rollout), unschedulableFor: c.UnschedulableFor}
	if w.unschedulableFor <= 0 {
		w.unschedulableFor = DefaultUnschedulableFor
	}
	var errs []InputError
	for i, cond := range c.Conditions {
		norm, msg := normalCondition(cond, w.conditions)
		if msg != "" {
			errs = append(errs, InputError{Condition: i, Message: msg})
		}
		w.conditions = append(w.conditions, norm)
	}
	for _, path := range slices.Sorted(maps.Keys(c.Fields)) {
		m, err := compileField(path, c.Fields[path])
		if err != nil {
			errs = append(errs, InputError{Condition: -1, Field: path, Message: err.Error()})
		}
		w.fields = append(w.fields, m)
	}
	return w, errs
}

// normalCondition checks cond against the conditions before it, and
// spells its status as Kubernetes does.
func normalCondition(cond Condition, before []Condition) (Condition, string) {
	if strings.TrimSpace(cond.Type) == "" {
		return cond, "a condition needs a type, such as Available or Ready"
	}
	norm := Condition{Type: cond.Type, Status: statusWord(cond.Status)}
	if norm.Status == "" {
		return cond, fmt.Sprintf("the status of condition %s must be True, False or Unknown, not %q", cond.Type, cond.Status)
	}
	for j, other := range before {
		valid := statusWord(other.Status) == other.Status
		if valid && strings.EqualFold(other.Type, norm.Type) && other.Status != norm.Status {
			return norm, fmt.Sprintf("condition %s cannot be %s: conditions[%d] requires it to be %s", norm.Type, norm.Status, j, other.Status)
		}
	}
	return norm, ""
}

// statusWord is s spelled as a condition status, True when empty, or ""
// when s is none.
func statusWord(s string) string {
	if s == "" {
		return string(corev1.ConditionTrue)
	}
	for _, word := range []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown} {
		if strings.EqualFold(s, string(word)) {
			return string(word)
		}
	}
	return ""
}

// Needed says whether there is anything to wait for.
func (w Waiter) Needed() bool {
	return w.rollout || len(w.conditions) > 0 || len(w.fields) > 0
}

// Observation is one look at a cluster during a wait.
type Observation struct {
	// Object is the live object, as the dynamic client returns it.
	Object map[string]any
	// ReplicaSets are, for a Deployment, the ReplicaSets its selector
	// matches: the current one tells its pods from older ones.
	ReplicaSets []map[string]any
	// Pods are the pods CurrentPodSelector selects (more do no harm: they
	// are matched again). Without them no pod ends the wait early.
	Pods []corev1.Pod
	// Now is when the pods were read.
	Now time.Time
}

// Check says whether the object has rolled out (when the rollout is
// waited for) and has the conditions and fields asked for. A rollout
// fails early, before any timeout, when the Deployment controller reports
// ProgressDeadlineExceeded or a pod of the new revision is failing (see
// FailingPods).
func (w Waiter) Check(o Observation) Status {
	st := Status{Done: true}
	if w.rollout {
		if st = RolloutStatus(o.Object); st.Failed {
			return st
		}
	}
	var waiting []string
	if st.Message != "" {
		waiting = append(waiting, st.Message)
	}
	for _, c := range w.conditions {
		if msg := unmetCondition(o.Object, c); msg != "" {
			st.Done, waiting = false, append(waiting, msg)
		}
	}
	for _, f := range w.fields {
		if msg := f.unmet(o.Object); msg != "" {
			st.Done, waiting = false, append(waiting, msg)
		}
	}
	st.Message = strings.Join(waiting, "; ")
	if st.Done || !w.rollout {
		return st
	}
	return w.podCheck(st, o)
}

// podCheck fails st when a pod of the revision rolling out is failing.
func (w Waiter) podCheck(st Status, o Observation) Status {
	sel, ok, err := CurrentPodSelector(o.Object, o.ReplicaSets)
	if err != nil || !ok {
		return st
	}
	failures := FailingPods(MatchPods(sel, o.Pods), o.Now, w.unschedulableFor)
	if len(failures) == 0 {
		return st
	}
	f := failures[0]
	detail := f.Message
	if more := int64(len(failures) - 1); more > 0 {
		detail += fmt.Sprintf(" (and %s failing)", plural(more, "more pod"))
	}
	return st.fail(f.Reason, detail)
}

// unmetCondition says how obj falls short of c, or "" when it has it. As
// with kubectl wait, a condition written for an older generation than the
// object's does not count, and types and statuses compare without case.
func unmetCondition(obj map[string]any, c Condition) string {
	want := fmt.Sprintf("waiting for condition %s=%s", c.Type, c.Status)
	for _, got := range conditions(obj) {
		if !strings.EqualFold(text(got, "type"), c.Type) {
			continue
		}
		generation := count(obj, "metadata", "generation")
		seen, ok := integer(got, "observedGeneration")
		if !ok {
			seen, ok = integer(obj, "status", "observedGeneration")
		}
		if ok && seen < generation {
			return fmt.Sprintf("%s (reported for generation %d, the object is at %d)", want, seen, generation)
		}
		status := text(got, "status")
		if strings.EqualFold(status, c.Status) {
			return ""
		}
		if reason := text(got, "reason"); reason != "" {
			status += ": " + reason
		}
		return fmt.Sprintf("%s (it is %s)", want, status)
	}
	return want + " (not reported yet)"
}
