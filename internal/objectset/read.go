package objectset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// MemberView is what a refresh read of an object on its members: what
// each cluster holds, projected onto what was applied there, and how it
// does there.
type MemberView struct {
	Held   map[string]string
	Health map[string]rollout.Health
}

// ReadMembers fetches the object from each cluster in held, in parallel.
// An object deleted out of band drops out, so the plan re-creates it; an
// unreachable cluster keeps its entries, with a warning.
func (e *Env) ReadMembers(ctx context.Context, o *Object, snapshot *runstate.Snapshot, held map[string]string,
	priorHealth map[string]rollout.Health, problems *Problems) MemberView {
	view := MemberView{Held: map[string]string{}, Health: map[string]rollout.Health{}}
	for cluster, h := range priorHealth {
		if _, ok := held[cluster]; ok {
			view.Health[cluster] = h
		}
	}
	applied := map[string]map[string]any{}
	members := map[string]propagation.Member{}
	for _, cluster := range slices.Sorted(maps.Keys(held)) {
		obj, err := decodeObject(held[cluster])
		m, merr := e.Member(snapshot, cluster)
		if err != nil || merr != nil {
			view.Held[cluster] = held[cluster]
			if merr != nil && !errors.Is(merr, ErrNotRegistered) {
				problems.AddWarning(fmt.Sprintf("Cannot read %s on cluster %q", o.Target, cluster), merr.Error())
			}
			continue
		}
		if o.Retain {
			// The member owns its replicas: they are neither applied again
			// nor read back.
			unstructured.RemoveNestedField(obj, "spec", "replicas")
		}
		applied[cluster] = obj
		members[cluster] = m
	}
	opts := e.options(false, e.Settings.RequestTimeout)
	results := propagation.FanOut(ctx, slices.Sorted(maps.Keys(members)), opts, func(ctx context.Context, cluster string) (propagation.Answer, error) {
		return propagation.Read(ctx, members[cluster], o.Target, applied[cluster], opts)
	})
	for _, result := range results {
		view.take(o, result, held, problems)
	}
	return view
}

// take puts one cluster's answer into the view.
func (v MemberView) take(o *Object, result propagation.Result[propagation.Answer], held map[string]string, problems *Problems) {
	res := result.Value
	switch {
	case result.Err != nil:
		v.Held[result.Cluster] = held[result.Cluster]
		problems.AddWarning(fmt.Sprintf("Cluster %q could not be read", result.Cluster),
			"The state keeps what the cluster last held. "+result.Err.Error())
	case res.Found:
		if reportsHealth(held[result.Cluster], res.Object) {
			v.Health[result.Cluster] = rollout.HealthOf(res.Object)
		} else {
			delete(v.Health, result.Cluster)
		}
		display, err := o.renderer.Canonical(res.Live)
		if err != nil {
			v.Held[result.Cluster] = held[result.Cluster]
			problems.AddWarning(fmt.Sprintf("Cannot compare %s on cluster %q", o.Target, result.Cluster), err.Error())
			return
		}
		v.Held[result.Cluster] = display
	default:
		delete(v.Health, result.Cluster)
	}
}

func decodeObject(text string) (map[string]any, error) {
	var obj map[string]any
	err := json.Unmarshal([]byte(text), &obj)
	return obj, err
}

// ReadStatus is each cluster's status after a refresh: a cluster whose
// write was cut off and is read back now is OK; an object without a status
// yet (an imported one) is OK wherever it is.
func ReadStatus(prior map[string]reconcile.Status, now, read map[string]string) map[string]reconcile.Status {
	status := maps.Clone(prior)
	if status == nil {
		status = map[string]reconcile.Status{}
	}
	for cluster, object := range now {
		if s, ok := status[cluster]; !ok || (s.Status == reconcile.StatusUnknown && object != reconcile.Unknown && read[cluster] != reconcile.Unknown) {
			status[cluster] = reconcile.Status{Status: reconcile.StatusOK}
		}
	}
	return status
}

// HeldToRead is what each cluster is read back against: what the state
// says it holds or, for an imported object and for a cluster whose write
// was cut off (reconcile.Unknown), what the placement sends it.
func (e *Env) HeldToRead(ctx context.Context, o *Object, snapshot *runstate.Snapshot, held map[string]string,
	importing bool) (map[string]string, Planned, Problems) {
	if !importing && !slices.Contains(slices.Collect(maps.Values(held)), reconcile.Unknown) {
		return held, Planned{}, nil
	}
	out, problems := e.Desired(ctx, o, snapshot, nil, false)
	if importing {
		return out.Rendered, out, problems
	}
	held = maps.Clone(held)
	for cluster, object := range held {
		if want, ok := out.Rendered[cluster]; ok && object == reconcile.Unknown {
			held[cluster] = want
		}
	}
	return held, out, problems
}

// The parts of a host record that drift: what the configuration writes
// that the host's record may hold otherwise.
const (
	PartTemplate         = "template"
	PartPlacement        = "placement"
	PartOverrides        = "overrides"
	PartDeletionPolicy   = "deletion policy"
	PartApplicationLabel = "application label"
)

// Drift names, in order, the parts of the host's record of an object that
// differ from the record want the configuration writes; none when they
// mean the same. One model for every resource that keeps host records:
// values are compared decoded, so two spellings of one value agree.
func Drift(want, host registry.FederatedObject) []string {
	var parts []string
	if !sameJSON(want.Template, host.Template) {
		parts = append(parts, PartTemplate)
	}
	if !sameJSON(want.Placement, host.Placement) {
		parts = append(parts, PartPlacement)
	}
	if !sameJSON(comparableRules(want.Overrides), comparableRules(host.Overrides)) {
		parts = append(parts, PartOverrides)
	}
	if want.Orphan != host.Orphan {
		parts = append(parts, PartDeletionPolicy)
	}
	if want.Application != host.Application {
		parts = append(parts, PartApplicationLabel)
	}
	return parts
}

// comparableRules are override rules with their patch values decoded, so
// that two spellings of one JSON value compare equal.
func comparableRules(rules []federation.OverrideRule) []any {
	out := make([]any, 0, len(rules))
	for _, rule := range rules {
		patches := make([]any, 0, len(rule.Patches))
		for _, p := range rule.Patches {
			var value any
			if p.Value != "" {
				if err := json.Unmarshal([]byte(p.Value), &value); err != nil {
					value = p.Value
				}
			}
			op := p.Op
			if op == "" {
				op = federation.OpReplace
			}
			patches = append(patches, map[string]any{"op": op, "path": p.Path, "value": value})
		}
		out = append(out, map[string]any{"cluster": rule.Cluster, "selector": rule.Selector, "patches": patches})
	}
	return out
}

// sameJSON reports whether a and b encode to the same JSON value, numbers
// compared by value.
func sameJSON(a, b any) bool {
	decoded := func(v any) (any, bool) {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, false
		}
		var out any
		return out, json.Unmarshal(raw, &out) == nil
	}
	x, okA := decoded(a)
	y, okB := decoded(b)
	return okA && okB && reflect.DeepEqual(x, y)
}

// What a set's refresh says of each object's host record.
const (
	RecordCurrent    = "current"
	RecordMissing    = "missing"
	RecordNotWritten = "not written"
	RecordDiffers    = "differs: "
)

// RecordState is Drift in words: current, missing (host is nil) or
// differs: and the parts.
func RecordState(want registry.FederatedObject, host *registry.FederatedObject) string {
	if host == nil {
		return RecordMissing
	}
	parts := Drift(want, *host)
	if len(parts) == 0 {
		return RecordCurrent
	}
	return RecordDiffers + strings.Join(parts, ", ")
}

// HostRecords reads each object's record from the host and says, by
// object key, how it compares with what the set writes, and whether the
// host holds a record of any object. The records are read from the run's
// list of each type and namespace, the lists taken at once: an object costs
// no request of its own, and a record the list lacks is missing without a
// read by name. A record that cannot be read keeps what prior says of it,
// with a warning.
func (e *Env) HostRecords(ctx context.Context, set *Set, prior map[string]string) (map[string]string, bool, Problems) {
	var problems Problems
	reg, err := e.Registry(ctx)
	if err != nil {
		problems.AddError("Cannot read the application from the host", err.Error())
		return nil, true, problems
	}
	var mu sync.Mutex
	out := map[string]string{}
	anyHeld := len(set.Objects) == 0
	problems.Append(e.eachObject(set.Objects, func(o *Object, problems *Problems) {
		key := o.Key.String()
		want := o.HostObject(nil)
		host, err := reg.FindFederatedObject(ctx, o.Type, want.Namespace, want.Name)
		state, held := RecordState(want, host), err == nil
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			state, held = RecordCurrent, true
			if was, ok := prior[key]; ok {
				state = was
			}
			problems.AddWarning(fmt.Sprintf("Cannot compare the host record of %s", o.Key.Object()),
				fmt.Sprintf("The plan keeps what the last run said of %s %s in the host: %v. Plan again once the host answers.",
					o.Type.Federated.Kind, objectLocation(want.Namespace, want.Name), err))
		}
		mu.Lock()
		defer mu.Unlock()
		out[key], anyHeld = state, anyHeld || held
	})...)
	return out, anyHeld, problems
}

// StartHostRecords starts HostRecords, for a refresh that reads the
// members meanwhile: a far host then costs it no round trip of its own.
func (e *Env) StartHostRecords(ctx context.Context, set *Set, prior map[string]string) func() (map[string]string, bool, Problems) {
	var records map[string]string
	var anyHeld bool
	var problems Problems
	wait := overlap.Start(func() { records, anyHeld, problems = e.HostRecords(ctx, set, prior) })
	return func() (map[string]string, bool, Problems) {
		wait()
		return records, anyHeld, problems
	}
}

// SplitID splits `<type>/<namespace>/<name>` or `<type>/<name>`.
func SplitID(id string) (typeName, namespace, name string) {
	parts := strings.Split(id, "/")
	typeName, name = parts[0], parts[len(parts)-1]
	if len(parts) == 3 {
		namespace = parts[1]
	}
	return typeName, namespace, name
}

// Record is the host's record of one object, as a refresh reads it.
type Record struct {
	Type *registry.FederatedType
	// Object is nil when the host holds no record.
	Object *registry.FederatedObject
}

// ReadRecord reads the Federated<Kind> of the object with id. An import
// (importing) reports a missing record as an error.
func (e *Env) ReadRecord(ctx context.Context, id string, importing bool) (Record, Problems) {
	var problems Problems
	reg, err := e.Registry(ctx)
	if err != nil {
		problems.AddError("Cannot read the federated object from the host", err.Error())
		return Record{}, problems
	}
	typeName, namespace, name := SplitID(id)
	ft, err := e.Type(ctx, typeName)
	if err != nil {
		problems.AddAttributeError(Root("type"), "Cannot read the federated object", err.Error())
		return Record{}, problems
	}
	hostNamespace, hostName := registry.FederatedObjectLocation(*ft, namespace, name)
	fo, err := reg.GetFederatedObject(ctx, *ft, hostNamespace, hostName)
	switch {
	case errors.Is(err, registry.ErrNotFound) && importing:
		problems.AddError("Cannot import the federated object", err.Error())
	case errors.Is(err, registry.ErrNotFound):
	case err != nil:
		problems.AddError("Cannot read the federated object from the host", err.Error())
	}
	if err != nil {
		return Record{Type: ft}, problems
	}
	return Record{Type: ft, Object: fo}, problems
}

// StartReadRecord starts ReadRecord of a refresh that reads the members
// meanwhile: they are read against the state, which the record does not
// change.
func (e *Env) StartReadRecord(ctx context.Context, id string) func() (Record, Problems) {
	var record Record
	var problems Problems
	wait := overlap.Start(func() { record, problems = e.ReadRecord(ctx, id, false) })
	return func() (Record, Problems) {
		wait()
		return record, problems
	}
}

// ReadSet reads each object of the set from the members that hold it, as
// ReadMembers does, several objects at once: objects of different types or
// namespaces are different lists on a member. held and priorHealth are by
// object key and cluster.
func (e *Env) ReadSet(ctx context.Context, set *Set, snapshot *runstate.Snapshot, held map[string]map[string]string,
	priorHealth map[string]map[string]rollout.Health) (map[string]MemberView, Problems) {
	views := map[string]MemberView{}
	var mu sync.Mutex
	problems := e.eachObject(set.Objects, func(o *Object, problems *Problems) {
		key := o.Key.String()
		view := e.ReadMembers(ctx, o, snapshot, held[key], priorHealth[key], problems)
		mu.Lock()
		defer mu.Unlock()
		views[key] = view
	})
	return views, problems
}
