package propagation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// reclaimAttempts bounds the forced retries of one apply when the object
// keeps changing between the read of its managedFields and the retry: a
// workload's controllers write its status several times a second while it
// rolls out, so the retries pause, longer each time (1.5 s in all).
const reclaimAttempts = 6

// reclaimPause is the pause after the failed forced apply of attempt
// (counted from 1) before the managedFields are read again.
func reclaimPause(attempt int) time.Duration {
	return 50 * time.Millisecond << (attempt - 1)
}

// applyReclaiming sends the server-side apply (a dry run when dryRun is
// set). Without opts.Force, a conflict with update-style writers only is
// retried forced, on the condition that the object is still the one whose
// managedFields were read, so that exactly the fields found are taken back;
// it returns them. A conflict with another server-side apply is a
// *ConflictError, and is never forced.
func applyReclaiming(ctx context.Context, m Member, o Object, rendered []byte, opts Options, dryRun bool) (*unstructured.Unstructured, Claims, error) {
	client := resourceClient(m.Clients, o)
	for attempt := 1; ; attempt++ {
		live, err := serverApply(ctx, client, o, rendered, opts.FieldManager, opts.Force, dryRun)
		causes := conflictCauses(err)
		if err == nil || opts.Force || len(causes) == 0 {
			return live, nil, err
		}
		current, gerr := client.Get(ctx, o.Name, metav1.GetOptions{})
		if gerr != nil {
			// Without the managedFields nothing shows the fields are safe
			// to take: the conflict stands as the member reported it.
			return nil, nil, err
		}
		conflicts := ClassifyConflicts(causes, current.GetManagedFields(), opts.FieldManager)
		if len(conflicts.Disputed) > 0 {
			return nil, nil, &ConflictError{Cluster: m.Name, Object: o, Conflicts: conflicts, err: err}
		}
		body, err := withResourceVersion(rendered, current.GetResourceVersion())
		if err != nil {
			return nil, nil, err
		}
		live, err = serverApply(ctx, client, o, body, opts.FieldManager, true, dryRun)
		if err == nil {
			return live, conflicts.Reclaimable, nil
		}
		// A forced apply conflicts only when the resourceVersion no longer
		// matches: someone wrote in between, so the conflicts are read anew.
		if !apierrors.IsConflict(err) || attempt == reclaimAttempts {
			return nil, nil, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, err
		case <-time.After(reclaimPause(attempt)):
		}
	}
}

func serverApply(ctx context.Context, client dynamic.ResourceInterface, o Object, body []byte, manager string, force, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.PatchOptions{FieldManager: manager, Force: &force}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return client.Patch(ctx, o.Name, k8stypes.ApplyPatchType, body, opts)
}

// conflictCauses are the fields err says other managers hold; none when
// err is not an apply's field conflict.
func conflictCauses(err error) []metav1.StatusCause {
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) {
		return nil
	}
	return fieldConflicts(status.Status())
}

// withResourceVersion makes an apply of rendered conditional on the object
// still being at resourceVersion.
func withResourceVersion(rendered []byte, resourceVersion string) ([]byte, error) {
	var obj map[string]any
	if err := json.Unmarshal(rendered, &obj); err != nil {
		return nil, fmt.Errorf("the rendered object is not JSON: %w", err)
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	meta["resourceVersion"] = resourceVersion
	return json.Marshal(obj)
}
