package objectset

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// hostRecordGrace bounds the host write that follows an apply cut short (a
// timeout, an interrupt): the host still learns what each cluster holds.
const hostRecordGrace = 15 * time.Second

// record writes each object's record to the host: the set's objects with
// their status, several at once; then it removes the records of the
// objects that left the set and no cluster holds: one after another those
// the apply removed, then those no cluster held when it began. It returns
// the objects whose record could not be written.
func (a *setApply) record(ctx context.Context, specs map[string]func() error, problems *Problems) map[string]bool {
	var written []*Object
	for _, key := range a.keys {
		if _, inSet := specs[key]; inSet {
			written = append(written, a.objects[key])
		}
	}
	unwritten := map[string]bool{}
	var mu sync.Mutex
	problems.Append(a.env.eachObject(written, func(o *Object, problems *Problems) {
		key := o.Key.String()
		record := a.records[key]
		a.env.observeTheRest(ctx, o, a.in.Snapshot, record, a.seen[key])
		specErr := specs[key]()
		if back := a.rolledBackSpec(key); back != nil {
			o, specErr = back, errSpecRolledBack
		}
		if !a.env.recordInHost(ctx, o, record, a.seen[key], a.in.Prior.Get(key) == nil, specErr, problems) {
			mu.Lock()
			unwritten[key] = true
			mu.Unlock()
		}
		reportFailures(o, record, problems)
	})...)
	for _, key := range a.keys {
		o, record := a.objects[key], a.records[key]
		if _, inSet := specs[key]; inSet {
			continue
		}
		if len(record.Held) > 0 {
			reportFailures(o, record, problems)
			continue
		}
		a.env.RemoveRecords(ctx, []*Object{o}, problems)
	}
	if left := a.leftUnheld(); len(left) > 0 {
		a.env.RemoveRecords(ctx, left, problems)
	}
	return unwritten
}

// leftUnheld are the objects that left the set which no cluster held when
// the apply began (a rollback removed them, or no write of them ever
// succeeded): the apply works on none of them, and their host records are
// all that is left of them.
func (a *setApply) leftUnheld() []*Object {
	if a.in.Prior == nil {
		return nil
	}
	var out []*Object
	for _, o := range a.in.Prior.Objects {
		key := o.Key.String()
		if !a.in.Set.Names(key) && a.objects[key] == nil && len(a.in.Held[key]) == 0 {
			out = append(out, o)
		}
	}
	return out
}

// errSpecRolledBack has recordInHost write the spec again: the one written
// while the members were is not what they hold after a rollback.
var errSpecRolledBack = errors.New("the spec was rolled back")

// rolledBackSpec is, after a rollback that left every cluster holding the
// object as the state recorded it before the apply, the object as it was
// then, whose spec the host record gets back: a KubeFed controller still
// running beside the provider then does not push the failed version
// again. Nil when there was no rollback, the object is new, or some
// cluster holds the new version (an earlier stage that passed): the record
// keeps the new spec then, which those clusters hold.
func (a *setApply) rolledBackSpec(key string) *Object {
	prior := a.in.Prior.Get(key)
	if !a.rolledBack || prior == nil || !maps.Equal(a.records[key].Held, a.in.Held[key]) {
		return nil
	}
	return prior
}

// startSpecWrite writes the Federated<Kind>'s spec, a create's with the
// incomplete-create mark, while the members are written: the spec depends
// on nothing they answer. The function returned waits for the write's error.
func (e *Env) startSpecWrite(ctx context.Context, o *Object, creating bool) func() error {
	var err error
	wait := overlap.Start(func() { err = e.writeSpec(ctx, o, creating) })
	return func() error {
		wait()
		return err
	}
}

// writeSpec writes the spec of the object's Federated<Kind>, a create's
// marked as unfinished with the digest of what it writes. Its host
// namespace is made sure of, once per run, only when the write finds it
// missing: a namespace that exists costs no round trip.
func (e *Env) writeSpec(ctx context.Context, o *Object, incomplete bool) error {
	reg, err := e.Registry(ctx)
	if err != nil {
		return err
	}
	host := o.HostObject(nil)
	if incomplete {
		host.Incomplete = true
		if host.CreatedFrom, err = registry.ContentDigest(host); err != nil {
			return err
		}
	}
	err = reg.ApplyFederatedSpec(ctx, o.Type, host)
	if registry.IsNamespaceMissing(err, host.Namespace) {
		if err = e.Run.EnsureNamespace(ctx, host.Namespace, reg.EnsureObjectNamespace); err == nil {
			err = reg.ApplyFederatedSpec(ctx, o.Type, host)
		}
	}
	if err == nil && incomplete {
		exitAfterHostWrite(o.ID)
	}
	return err
}

// recordInHost completes the Federated<Kind> once the members answered:
// each cluster's status, and, for a create that is all written with no
// cluster failed, its spec without the incomplete-create mark, both at
// once. A spec write that failed while the members were written is tried
// again first. An apply cut short still records what the clusters hold,
// within a grace: whatever stops a create, Terraform then replaces the
// object, and its replacement takes the marked record over. It reports
// whether the record was written.
func (e *Env) recordInHost(ctx context.Context, o *Object, record reconcile.Record,
	seen map[string]map[string]any, creating bool, specErr error, problems *Problems) bool {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), hostRecordGrace)
		defer cancel()
	}
	err := specErr
	if err != nil {
		err = e.writeSpec(ctx, o, creating)
	}
	if err == nil {
		err = e.writeRecord(ctx, o, record, seen, creating && !record.Failed())
	}
	if err != nil {
		problems.AddError("Cannot write the federated object to the host", err.Error()+
			"\n\nThe members hold what the state records; the next plan compares the host's record with the configuration and writes it again.")
		return false
	}
	return true
}

// writeRecord writes each cluster's status and, when complete is set, the
// spec without the incomplete-create mark, at once.
func (e *Env) writeRecord(ctx context.Context, o *Object, record reconcile.Record,
	seen map[string]map[string]any, complete bool) error {
	reg, err := e.Registry(ctx)
	if err != nil {
		return err
	}
	status := map[string]string{}
	for cluster, s := range record.Status {
		status[cluster] = s.Status
	}
	host := o.HostObject(status)
	host.RemoteStatus = remoteStatus(o, record, seen)
	var specErr error
	wait := func() {}
	if complete {
		wait = overlap.Start(func() { specErr = reg.ApplyFederatedSpec(ctx, o.Type, host) })
	}
	statusErr := reg.ApplyFederatedStatus(ctx, o.Type, host)
	wait()
	return errors.Join(statusErr, specErr)
}

// observeTheRest reads, with the type's status collection on, the clusters
// the apply did not touch, so the host records every cluster's status.
func (e *Env) observeTheRest(ctx context.Context, o *Object, snapshot *runstate.Snapshot,
	record reconcile.Record, seen map[string]map[string]any) {
	if o.Type.StatusCollection != registry.Enabled {
		return
	}
	members := map[string]propagation.Member{}
	for cluster := range record.Held {
		if _, ok := seen[cluster]; ok {
			continue
		}
		if m, err := e.Member(snapshot, cluster); err == nil {
			members[cluster] = m
		}
	}
	results := propagation.FanOut(ctx, slices.Sorted(maps.Keys(members)), e.options(false, e.Settings.RequestTimeout),
		func(ctx context.Context, cluster string) (map[string]any, error) {
			obj, _, err := propagation.Get(ctx, members[cluster], o.Target)
			return obj, err
		})
	for _, res := range results {
		if res.Value != nil {
			seen[res.Cluster] = res.Value
		}
	}
}

// remoteStatus is, with the type's status collection on, each cluster's
// own status of the object as the apply last saw it, KubeFed's remoteStatus.
func remoteStatus(o *Object, record reconcile.Record, seen map[string]map[string]any) map[string]map[string]any {
	if o.Type.StatusCollection != registry.Enabled {
		return nil
	}
	out := map[string]map[string]any{}
	for cluster := range record.Status {
		if status, ok := seen[cluster]["status"].(map[string]any); ok {
			out[cluster] = status
		}
	}
	return out
}
