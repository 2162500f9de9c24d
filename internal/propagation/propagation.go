// Package propagation writes rendered objects to member clusters and reads
// them back: server-side apply, deletion or orphaning, projection of the live
// object onto what was applied, and server-side dry runs, fanned out over
// clusters with a bound on parallelism; Dispatch carries an apply's
// operations out stage by stage and waits for the object to run. It executes
// decisions made elsewhere: which clusters receive what is the engine's
// business, and what to do on each reconcile's, never this package's.
package propagation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/listcache"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// Object names what is propagated: the member resource and the object's
// namespace and name, the same on every cluster.
type Object struct {
	Resource  schema.GroupVersionResource
	Namespace string
	Name      string
}

func (o Object) String() string {
	if o.Namespace == "" {
		return o.Resource.Resource + "/" + o.Name
	}
	return o.Resource.Resource + " " + o.Namespace + "/" + o.Name
}

// Member is one cluster's clients, as the provider caches them, and the
// run's lists of the objects the federation manages there: Read answers
// from them, and every write here marks what it wrote, so a later Read goes
// to the cluster for it. A nil Reads reads every object by name.
type Member struct {
	Name    string
	Clients *kube.Clients
	Reads   *listcache.Cache
	// Confirm says whether the member is the cluster its registration
	// names; every write asks it first, and writes nothing when it fails.
	// Nil confirms any member.
	Confirm func(context.Context) error
}

// confirmed is Confirm's answer.
func (m Member) confirmed(ctx context.Context) error {
	if m.Confirm == nil {
		return nil
	}
	return m.Confirm(ctx)
}

// listScope is the list the run's reads of o on m are answered from: the
// objects of o's resource in o's namespace that carry the managed label.
func listScope(m Member, o Object) listcache.Scope {
	return listcache.Scope{Cluster: m.Name, Resource: o.Resource, Namespace: o.Namespace,
		LabelSelector: federation.ManagedLabel + "=" + federation.ManagedLabelValue}
}

// PrefetchManaged starts one list, in every namespace of the member, of
// the objects of resource the federation manages, which then answers the
// run's reads of them in any namespace (listcache.Prefetch says when it
// does not).
func PrefetchManaged(ctx context.Context, m Member, resource schema.GroupVersionResource) {
	scope := listScope(m, Object{Resource: resource})
	m.Reads.Prefetch(ctx, scope, m.Clients.Dynamic.Resource(resource))
}

// Options are the provider settings propagation honours.
type Options struct {
	// FieldManager owns the fields applied.
	FieldManager string
	// Force takes over fields another manager owns instead of failing.
	Force bool
	// MaxParallel bounds how many clusters are contacted at once; zero:
	// all of them.
	MaxParallel int
	// Timeout bounds the work on one cluster; zero means none.
	Timeout time.Duration
}

// Answer is what a member answered to one operation on the object.
type Answer struct {
	// Live is the object as the cluster holds it after an apply or a read,
	// projected onto the fields that were applied; nil when there is none.
	Live map[string]any
	// Object is the whole live object after an apply or a read, status
	// included, for what is read from it besides drift (its health).
	Object map[string]any
	// Found is false when a read found no object, or when a dry run's
	// member holds none: the server answers a dry run that would create the
	// object with no resourceVersion.
	Found bool
	// Reclaimed are the fields an apply or a dry run took back, or would
	// take back, from update-style writers, by manager; nil when none.
	Reclaimed Claims
	// Warnings are what the member's API server warned about the object,
	// kept when the operation failed too.
	Warnings []string
	// Kept says why a removal left the object in place; empty otherwise.
	Kept string
}

// Result is what the work of a fan-out came to on one cluster.
type Result[T any] struct {
	Cluster string
	// NotRun is true when the work never started: the context ended while
	// it waited for its turn.
	NotRun bool
	// Value is what the work returned, its error aside.
	Value T
	// Err is nil when the cluster did what was asked.
	Err error
}

// Errors lists the failed results as one error, cluster by cluster, or
// returns nil when none failed.
func Errors[T any](results []Result[T]) error {
	var lines []string
	for _, r := range results {
		if r.Err != nil {
			lines = append(lines, fmt.Sprintf("cluster %q: %v", r.Cluster, r.Err))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return errors.New(strings.Join(lines, "\n"))
}

// FanOut runs work for every cluster, in the order given, at most
// opts.MaxParallel at a time (all at once when it is zero), each under its own timeout, and returns the
// results sorted by cluster. A failure on one cluster never stops the
// others; once ctx ends, the work not started yet is not run.
func FanOut[T any](ctx context.Context, clusters []string, opts Options, work func(ctx context.Context, cluster string) (T, error)) []Result[T] {
	results := make([]Result[T], len(clusters))
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := len(clusters)
	if opts.MaxParallel > 0 {
		workers = min(opts.MaxParallel, workers)
	}
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(clusters) {
					return
				}
				results[i] = runOne(ctx, clusters[i], opts.Timeout, work)
			}
		})
	}
	wg.Wait()
	slices.SortFunc(results, func(a, b Result[T]) int { return strings.Compare(a.Cluster, b.Cluster) })
	return results
}

// runOne runs work for one cluster under its timeout, unless ctx ended.
func runOne[T any](ctx context.Context, cluster string, timeout time.Duration, work func(context.Context, string) (T, error)) Result[T] {
	res := Result[T]{Cluster: cluster}
	if ctx.Err() != nil {
		res.NotRun, res.Err = true, ctx.Err()
		return res
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res.Value, res.Err = work(ctx, cluster)
	return res
}

// logged runs one operation on one member under a context that names the
// cluster, the object and the operation, so that the request log and this
// line carry them, and logs its outcome at DEBUG.
func logged(ctx context.Context, operation string, m Member, o Object, run func(context.Context) (Answer, error)) (Answer, error) {
	ctx = tflog.SetField(kube.WithCluster(ctx, m.Name), "object", o.String())
	ctx = tflog.SetField(ctx, "operation", operation)
	start := time.Now()
	answer, err := run(ctx)
	fields := map[string]any{"duration": time.Since(start).String()}
	if err != nil {
		fields["error"] = err.Error()
	}
	tflog.Debug(ctx, "cluster operation", fields)
	return answer, err
}

func resourceClient(c *kube.Clients, o Object) dynamic.ResourceInterface {
	if o.Namespace == "" {
		return c.Dynamic.Resource(o.Resource)
	}
	return c.Dynamic.Resource(o.Resource).Namespace(o.Namespace)
}

// Apply writes the rendered object to the member with server-side apply.
// An object that exists already is adopted, as KubeFed does: the apply takes
// ownership of the fields it sets and leaves the others alone. Fields it
// sets that an update-style writer (kubectl edit or patch, a client's
// Update) changed since are taken back, and listed in Answer.Reclaimed;
// fields another server-side apply holds fail the apply with a
// *ConflictError unless opts.Force is set.
func Apply(ctx context.Context, m Member, o Object, rendered []byte, opts Options) (Answer, error) {
	return logged(ctx, "apply", m, o, func(ctx context.Context) (Answer, error) { return apply(ctx, m, o, rendered, opts) })
}

func apply(ctx context.Context, m Member, o Object, rendered []byte, opts Options) (Answer, error) {
	if err := m.confirmed(ctx); err != nil {
		return Answer{}, err
	}
	ctx, warnings := kube.CollectWarnings(ctx)
	defer m.Reads.Forget(listScope(m, o), o.Name)
	live, reclaimed, err := applyReclaiming(ctx, m, o, rendered, opts, false)
	if err != nil {
		return Answer{Warnings: warnings.List()}, explain(m, o, err, opts)
	}
	var applied map[string]any
	if err := json.Unmarshal(rendered, &applied); err != nil {
		return Answer{}, fmt.Errorf("the rendered object is not JSON: %w", err)
	}
	return Answer{Found: true, Live: Project(live.Object, applied), Object: live.Object, Reclaimed: reclaimed, Warnings: warnings.List()}, nil
}

// DryRun asks the member whether it would accept the rendered object,
// without changing anything. Fields the apply would take back from
// update-style writers are listed in Answer.Reclaimed, and the member
// validates the object as the apply would send it.
func DryRun(ctx context.Context, m Member, o Object, rendered []byte, opts Options) (Answer, error) {
	return logged(ctx, "dry run", m, o, func(ctx context.Context) (Answer, error) { return dryRun(ctx, m, o, rendered, opts) })
}

func dryRun(ctx context.Context, m Member, o Object, rendered []byte, opts Options) (Answer, error) {
	ctx, warnings := kube.CollectWarnings(ctx)
	live, reclaimed, err := applyReclaiming(ctx, m, o, rendered, opts, true)
	if err != nil {
		return Answer{Warnings: warnings.List()}, explain(m, o, err, opts)
	}
	return Answer{Found: live.GetResourceVersion() != "", Reclaimed: reclaimed, Warnings: warnings.List()}, nil
}

// Read fetches the object, from the run's list of the cluster's managed
// objects when it has it, and projects it onto applied, the object last
// applied there, so that fields the server or other managers set never show
// as differences while a field we set and someone changed does.
func Read(ctx context.Context, m Member, o Object, applied map[string]any, opts Options) (Answer, error) {
	return logged(ctx, "read", m, o, func(ctx context.Context) (Answer, error) { return read(ctx, m, o, applied, opts) })
}

func read(ctx context.Context, m Member, o Object, applied map[string]any, opts Options) (Answer, error) {
	live, found, err := m.Reads.Get(ctx, listScope(m, o), resourceClient(m.Clients, o), o.Name)
	if err != nil {
		return Answer{}, explain(m, o, err, opts)
	}
	if !found {
		return Answer{}, nil
	}
	return Answer{Found: true, Live: Project(live.Object, applied), Object: live.Object}, nil
}

// Get fetches the object as the member holds it now, never from a list;
// found is false when it does not exist there.
func Get(ctx context.Context, m Member, o Object) (map[string]any, bool, error) {
	ctx = kube.WithCluster(ctx, m.Name)
	live, err := resourceClient(m.Clients, o).Get(ctx, o.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, explain(m, o, err, Options{})
	}
	return live.Object, true, nil
}

// Remove deletes the object from the member or, when orphan is set, leaves
// it and removes the managed label, so that it no longer counts as the
// federation's. An object already gone is fine.
func Remove(ctx context.Context, m Member, o Object, orphan bool, opts Options) error {
	operation := "remove"
	if orphan {
		operation = "orphan"
	}
	_, err := logged(ctx, operation, m, o, func(ctx context.Context) (Answer, error) { return Answer{}, remove(ctx, m, o, orphan, opts) })
	return err
}

func remove(ctx context.Context, m Member, o Object, orphan bool, opts Options) error {
	if err := m.confirmed(ctx); err != nil {
		return err
	}
	defer m.Reads.Forget(listScope(m, o), o.Name)
	client := resourceClient(m.Clients, o)
	var err error
	if orphan {
		// A merge patch rather than an apply: an apply without our fields
		// would make the server remove them, which is what orphaning avoids.
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:null}}}`, federation.ManagedLabel)
		_, err = client.Patch(ctx, o.Name, k8stypes.MergePatchType, patch, metav1.PatchOptions{FieldManager: opts.FieldManager})
	} else {
		err = client.Delete(ctx, o.Name, metav1.DeleteOptions{})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return explain(m, o, err, opts)
	}
	return nil
}

// explain turns an API error into one that says which cluster, what went
// wrong and what to do.
func explain(m Member, o Object, err error, opts Options) error {
	var disputed *ConflictError
	if errors.As(err, &disputed) {
		return err
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) {
		endpoint := ""
		if m.Clients != nil && m.Clients.Config != nil {
			endpoint = m.Clients.Config.Host
		}
		return fmt.Errorf("%s: %w", o, kube.ExplainWith(endpoint, err, member.Hints(m.Name)))
	}
	details := status.Status().Details
	switch {
	case len(fieldConflicts(status.Status())) > 0 && !opts.Force:
		return &explained{err: err, msg: fmt.Sprintf("%s: %s; another field manager owns these fields; change them there, "+
			"or set force_conflicts = true to take them over", o, conflictSummary(status.Status()))}
	case apierrors.IsConflict(err):
		return &explained{err: err, msg: fmt.Sprintf("%s: cluster %q: the object kept changing while it was applied (%s); "+
			"run the apply again", o, m.Name, status.Status().Message)}
	case apierrors.IsNotFound(err) && o.Namespace != "" && details != nil && details.Kind == "namespaces":
		return &explained{err: err, msg: fmt.Sprintf("%s: namespace missing: namespace %q does not exist on cluster %q; "+
			"federate the namespace first", o, o.Namespace, m.Name)}
	case apierrors.IsNotFound(err):
		return &explained{err: err, msg: fmt.Sprintf("%s: /apiVersion, /kind: cluster %q does not serve %s; install its CRD "+
			"there, or override /apiVersion for this cluster (%s)", o, m.Name, o.Resource, status.Status().Message)}
	case Rejects(err):
		return &explained{err: err, msg: fmt.Sprintf("%s: cluster %q rejects the object: %s", o, m.Name, objection(status.Status()))}
	}
	return &explained{err: err, msg: fmt.Sprintf("%s: cluster %q answered %d %s: %s", o, m.Name,
		status.Status().Code, status.Status().Reason, status.Status().Message)}
}

// Rejects reports whether err is the member objecting to the object
// itself, rather than failing to check it: a 4xx other than a missing
// credential, permission, namespace or type, or a timeout; or a 5xx whose
// message says the object could not be decoded or typed.
func Rejects(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	switch {
	case code == 401, code == 403, code == 404, code == 408, code == 429:
		return false
	case code >= 400 && code < 500:
		return true
	case code >= 500:
		msg := strings.ToLower(status.Status().Message)
		for _, marker := range []string{"failed to create typed patch object", "unable to decode", "error decoding",
			"cannot unmarshal", "invalid value", "is invalid", "json: "} {
			if strings.Contains(msg, marker) {
				return true
			}
		}
	}
	return false
}

// objection is what the member objects to, naming the fields: the causes
// the API server lists, or its message, which names the field itself for a
// value of the wrong type (".spec.replicas: expected numeric").
func objection(s metav1.Status) string {
	msg := s.Message
	if (strings.Contains(msg, "API version") || strings.Contains(msg, "invalid object type")) && !strings.Contains(msg, "/apiVersion") {
		msg = "/apiVersion: " + msg
	}
	if s.Details == nil || len(s.Details.Causes) == 0 {
		return msg
	}
	fields := make([]string, 0, len(s.Details.Causes))
	for _, c := range s.Details.Causes {
		if c.Field != "" {
			fields = append(fields, c.Field)
		}
	}
	if len(fields) == 0 {
		return msg
	}
	return "fields " + strings.Join(fields, ", ") + ": " + msg
}

// explained replaces an API error's message with one that says what to do,
// keeping the error itself for callers that sort errors by their status.
type explained struct {
	err error
	msg string
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }

// conflictSummary lists the conflicting fields with their managers, as the
// API server reports them in the causes of a conflict.
func conflictSummary(s metav1.Status) string {
	if s.Details == nil || len(s.Details.Causes) == 0 {
		return s.Message
	}
	parts := make([]string, 0, len(s.Details.Causes))
	for _, c := range s.Details.Causes {
		parts = append(parts, fmt.Sprintf("field %s: %s", c.Field, c.Message))
	}
	return "conflicts: " + strings.Join(parts, "; ")
}

// Uncertain reports whether a failed write may still have taken effect:
// the request was cut off in flight (a timeout or cancellation, a
// connection lost before the answer) rather than refused by the member or
// never sent (a refused connection, a failed TLS handshake, bad
// credentials, an error marked NotSent).
func Uncertain(err error) bool {
	var before notSent
	if err == nil || errors.As(err, &before) {
		return false
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dnsErr) {
		return false
	}
	switch kube.Classify(err) {
	case kube.FailureTLS, kube.FailureUnauthorized, kube.FailureForbidden:
		return false
	}
	return true
}

// NotSent marks err as a failure before anything was sent to the member
// (its clients could not be had, the object could not be rendered), so that
// Uncertain is false whatever err wraps: the member holds what it held.
func NotSent(err error) error {
	if err == nil {
		return nil
	}
	return notSent{err}
}

type notSent struct{ error }

func (e notSent) Unwrap() error { return e.error }
