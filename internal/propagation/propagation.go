// Package propagation writes rendered objects to member clusters and reads
// them back: server-side apply, deletion or orphaning, projection of the live
// object onto what was applied, and server-side dry runs, fanned out over
// clusters with a bound on parallelism. It executes decisions made elsewhere:
// which clusters receive what is the engine's business, never this package's.
package propagation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
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

// Member is one cluster's clients, as the provider caches them.
type Member struct {
	Name    string
	Clients *kube.Clients
}

// Options are the provider settings propagation honours.
type Options struct {
	// FieldManager owns the fields applied.
	FieldManager string
	// Force takes over fields another manager owns instead of failing.
	Force bool
	// MaxParallel bounds how many clusters are contacted at once.
	MaxParallel int
	// Timeout bounds the work on one cluster; zero means none.
	Timeout time.Duration
}

// Result is the outcome on one cluster.
type Result struct {
	Cluster string
	// NotRun is true when the work never started: the context ended while
	// it waited for its turn.
	NotRun bool
	// Err is nil when the cluster did what was asked.
	Err error
	// Live is the object as the cluster holds it after an apply or a read,
	// projected onto the fields that were applied; nil when there is none.
	Live map[string]any
	// Found is false when a read found no object.
	Found bool
	// Warnings are what the member's API server warned about the object.
	Warnings []string
}

// Errors lists the failed results as one error, cluster by cluster, or
// returns nil when none failed.
func Errors(results []Result) error {
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

// FanOut runs fn for every member, at most opts.MaxParallel at a time, each
// under its own timeout, and returns the results sorted by cluster. A
// failure on one cluster never stops the others.
func FanOut(ctx context.Context, members []Member, opts Options, fn func(ctx context.Context, m Member) Result) []Result {
	limit := opts.MaxParallel
	if limit < 1 {
		limit = 1
	}
	results := make([]Result, len(members))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				results[i] = Result{Cluster: m.Name, NotRun: true, Err: ctx.Err()}
				return
			}
			cctx, cancel := ctx, context.CancelFunc(func() {})
			if opts.Timeout > 0 {
				cctx, cancel = context.WithTimeout(ctx, opts.Timeout)
			}
			defer cancel()
			r := fn(cctx, m)
			r.Cluster = m.Name
			results[i] = r
		}()
	}
	wg.Wait()
	sort.Slice(results, func(i, j int) bool { return results[i].Cluster < results[j].Cluster })
	return results
}

func resourceClient(c *kube.Clients, o Object) dynamic.ResourceInterface {
	if o.Namespace == "" {
		return c.Dynamic.Resource(o.Resource)
	}
	return c.Dynamic.Resource(o.Resource).Namespace(o.Namespace)
}

// Apply writes the rendered object to the member with server-side apply.
// An object that exists already is adopted, as KubeFed does: the apply takes
// ownership of the fields it sets and leaves the others alone.
func Apply(ctx context.Context, m Member, o Object, rendered []byte, opts Options) Result {
	ctx, warnings := kube.CollectWarnings(ctx)
	live, err := resourceClient(m.Clients, o).Patch(ctx, o.Name, k8stypes.ApplyPatchType, rendered, metav1.PatchOptions{
		FieldManager: opts.FieldManager,
		Force:        &opts.Force,
	})
	if err != nil {
		return Result{Err: explain(m, o, err, opts), Warnings: warnings.List()}
	}
	var applied map[string]any
	if err := json.Unmarshal(rendered, &applied); err != nil {
		return Result{Err: fmt.Errorf("the rendered object is not JSON: %w", err)}
	}
	return Result{Found: true, Live: Project(live.Object, applied), Warnings: warnings.List()}
}

// DryRun asks the member whether it would accept the rendered object,
// without changing anything.
func DryRun(ctx context.Context, m Member, o Object, rendered []byte, opts Options) Result {
	ctx, warnings := kube.CollectWarnings(ctx)
	_, err := resourceClient(m.Clients, o).Patch(ctx, o.Name, k8stypes.ApplyPatchType, rendered, metav1.PatchOptions{
		FieldManager: opts.FieldManager,
		Force:        &opts.Force,
		DryRun:       []string{metav1.DryRunAll},
	})
	if err != nil {
		return Result{Err: explain(m, o, err, opts), Warnings: warnings.List()}
	}
	return Result{Warnings: warnings.List()}
}

// Read fetches the object and projects it onto applied, the object last
// applied there, so that fields the server or other managers set never show
// as differences while a field we set and someone changed does.
func Read(ctx context.Context, m Member, o Object, applied map[string]any, opts Options) Result {
	live, err := resourceClient(m.Clients, o).Get(ctx, o.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Result{}
	}
	if err != nil {
		return Result{Err: explain(m, o, err, opts)}
	}
	return Result{Found: true, Live: Project(live.Object, applied)}
}

// Get fetches the object as the member holds it; found is false when it
// does not exist there.
func Get(ctx context.Context, m Member, o Object) (map[string]any, bool, error) {
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
func Remove(ctx context.Context, m Member, o Object, orphan bool, opts Options) Result {
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
		return Result{Err: explain(m, o, err, opts)}
	}
	return Result{}
}

// explain turns an API error into one that says which cluster, what went
// wrong and what to do.
func explain(m Member, o Object, err error, opts Options) error {
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
	case apierrors.IsConflict(err) && !opts.Force:
		return &explained{err: err, msg: fmt.Sprintf("%s: %s; another field manager owns these fields; change them there, "+
			"or set force_conflicts = true to take them over", o, conflictSummary(status.Status()))}
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
// credentials).
func Uncertain(err error) bool {
	if err == nil {
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
