package registry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// CreatedNamespaceAnnotation marks a namespace of the host that the
// provider created for the objects it stores there, so that the namespace
// goes again with the last of them, and no other namespace ever does.
//
//	who                               what
//	EnsureObjectNamespace, and        write it on a namespace they create; never on one that exists
//	ApplySchedulingPreference
//	RemoveCreatedNamespace (the       reads it: deletes the namespace when it carries it and holds
//	destroy of an object or a         nothing but what Kubernetes puts in every namespace
//	preference)
//	nobody                            removes it: it goes with the namespace
const CreatedNamespaceAnnotation = "kubefed.terraform.io/created-namespace"

// namespacePoll is how often a namespace being deleted is looked at again.
const namespacePoll = 500 * time.Millisecond

// listParallelism bounds the lists that look for what a namespace holds.
const listParallelism = 64

// IsNamespaceMissing reports whether err is a write refused because the
// namespace it writes in does not exist, or is being deleted and so will
// not exist soon: EnsureObjectNamespace makes it exist in both cases.
func IsNamespaceMissing(err error, namespace string) bool {
	if namespace == "" {
		return false
	}
	if terminating, ok := kube.TerminatingNamespace(err); ok {
		return terminating == namespace || terminating == ""
	}
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	details := status.Status().Details
	return details != nil && details.Kind == "namespaces" && details.Name == namespace
}

// EnsureObjectNamespace creates a namespace of the host that Federated<Kind>
// objects go in, marked as the provider's, when it is missing. A namespace
// being deleted (its last object destroyed earlier in the run) is waited
// for, then created again.
func (r *Registry) EnsureObjectNamespace(ctx context.Context, namespace string) error {
	ns, err := r.kubernetes.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	switch {
	case err == nil && ns.DeletionTimestamp == nil:
		return nil
	case err == nil:
		if err := r.waitNamespaceGone(ctx, namespace); err != nil {
			return err
		}
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("reading namespace %q of the host: %w", namespace, err)
	}
	// A create, not an apply: a namespace someone else created meanwhile
	// is left as it is, and not marked.
	created := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace,
		Annotations: map[string]string{CreatedNamespaceAnnotation: "true"}}}
	_, err = r.kubernetes.CoreV1().Namespaces().Create(ctx, created, metav1.CreateOptions{FieldManager: r.fieldManager})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %q in the host: %w", namespace, err)
	}
	return nil
}

func (r *Registry) waitNamespaceGone(ctx context.Context, namespace string) error {
	err := wait.PollUntilContextCancel(ctx, namespacePoll, true, func(ctx context.Context) (bool, error) {
		_, err := r.kubernetes.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return fmt.Errorf("namespace %q of the host is being deleted and is not gone yet; wait until it is, then apply "+
			"again: %w", namespace, err)
	}
	return nil
}

// RemoveCreatedNamespace deletes a namespace of the host that the provider
// created (CreatedNamespaceAnnotation) once it holds nothing but what
// Kubernetes puts in every namespace, and reports whether it did. A
// namespace it did not create, or that holds anything else, is kept, and
// so is one whose content it cannot see whole (an error says why).
func (r *Registry) RemoveCreatedNamespace(ctx context.Context, namespace string) (bool, error) {
	found, err := r.CreatedNamespace(ctx, namespace)
	if err != nil || !found.Empty {
		return false, err
	}
	return r.DeleteCreatedNamespace(ctx, namespace, found.UID)
}

// HostObject is one object of a host namespace: its resource and name.
type HostObject struct {
	Resource schema.GroupResource
	Name     string
}

// CreatedNamespaceContent is what CreatedNamespace finds.
type CreatedNamespaceContent struct {
	// Created is set for a namespace the provider created that is not
	// being deleted.
	Created bool
	// Empty is set when such a namespace holds nothing but what Kubernetes
	// puts in every namespace and the objects leaving.
	Empty bool
	// UID is the namespace's, for DeleteCreatedNamespace.
	UID k8stypes.UID

	// heldBy is an object that kept a created namespace from being empty,
	// when the lists named one; see StillHeld.
	heldBy *heldBy
}

// heldBy is one object of a namespace.
type heldBy struct {
	resource schema.GroupVersionResource
	name     string
}

// CreatedNamespace looks into namespace: whether the provider created it
// (CreatedNamespaceAnnotation) and, if so, whether it holds nothing but
// what Kubernetes puts in every namespace and the objects of leaving, which
// the caller is deleting meanwhile. A missing namespace is neither, and no
// error; one whose content cannot be seen whole is an error.
func (r *Registry) CreatedNamespace(ctx context.Context, namespace string, leaving ...HostObject) (CreatedNamespaceContent, error) {
	ns, err := r.kubernetes.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return CreatedNamespaceContent{}, nil
	}
	if err != nil {
		return CreatedNamespaceContent{}, fmt.Errorf("reading namespace %q of the host: %w", namespace, err)
	}
	if !createdAndLive(ns) {
		return CreatedNamespaceContent{}, nil
	}
	found := CreatedNamespaceContent{Created: true, UID: ns.UID}
	held, holder, err := r.holdsObjects(ctx, namespace, leaving)
	found.Empty, found.heldBy = err == nil && !held, holder
	return found, err
}

// StillHeld reports whether the object that kept a created namespace from
// being empty when CreatedNamespace looked is there still: one request, so
// that the deletion of one of many objects of a namespace need not look
// into all of it again. False when it is gone, or the look named none.
func (r *Registry) StillHeld(ctx context.Context, namespace string, found CreatedNamespaceContent) (bool, error) {
	if found.heldBy == nil {
		return false, nil
	}
	_, err := r.dynamic.Resource(found.heldBy.resource).Namespace(namespace).Get(ctx, found.heldBy.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// DeleteCreatedNamespace deletes the namespace CreatedNamespace found
// empty, and reports whether it did. The UID precondition deletes the
// namespace that was looked into, not one created again under the same
// name meanwhile.
func (r *Registry) DeleteCreatedNamespace(ctx context.Context, namespace string, uid k8stypes.UID) (bool, error) {
	err := r.kubernetes.CoreV1().Namespaces().Delete(ctx, namespace, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return false, fmt.Errorf("deleting namespace %q of the host: %w", namespace, err)
	}
	return err == nil, nil
}

// createdAndLive reports whether ns is one the provider created and is not
// being deleted already.
func createdAndLive(ns *corev1.Namespace) bool {
	return ns.Annotations[CreatedNamespaceAnnotation] == "true" && ns.DeletionTimestamp == nil
}

// holdsObjects reports whether namespace holds any object but those
// Kubernetes creates in every namespace, listing at most two of each kind
// the host serves. The kinds of the host's discovery go first, KubeFed's
// at their head, then the custom resources its CRDs define that the
// discovery lacks: it is cached for the run, and a type enabled since would
// be missing from it.
func (r *Registry) holdsObjects(ctx context.Context, namespace string, leaving []HostObject) (bool, *heldBy, error) {
	if r.discovery == nil {
		return false, nil, errors.New("the host's API discovery is not available")
	}
	lists, err := r.discovery.ServerPreferredNamespacedResources()
	if err != nil {
		// A group that did not answer could hold the objects that matter.
		return false, nil, fmt.Errorf("reading the host's API discovery: %w", err)
	}
	known, err := kube.ListableNamespacedResources(lists, "the host")
	if err != nil {
		return false, nil, err
	}
	slices.SortStableFunc(known, func(a, b schema.GroupVersionResource) int {
		return cmp.Compare(federationGroupRank(a.Group), federationGroupRank(b.Group))
	})
	if held, holder, err := r.holdsObjectsOfAny(ctx, known, namespace, leaving); held || err != nil {
		return held, holder, err
	}
	crds, err := r.dynamic.Resource(crdResource).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, nil, fmt.Errorf("listing the host's CRDs: %w", err)
	}
	return r.holdsObjectsOfAny(ctx, customResourcesBesides(crds.Items, known), namespace, leaving)
}

// customResourcesBesides are the namespaced resources the CRDs define
// that known lacks.
func customResourcesBesides(crds []unstructured.Unstructured, known []schema.GroupVersionResource) []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for _, crd := range crds {
		gvr, ok := namespacedCustomResource(crd.Object)
		if ok && !slices.ContainsFunc(known, func(k schema.GroupVersionResource) bool { return k.GroupResource() == gvr.GroupResource() }) {
			out = append(out, gvr)
		}
	}
	return out
}

// holdsObjectsOfAny lists resources in namespace a few at a time, in
// order, and sends no more lists once one shows an object someone put
// there. The lists under way are left to finish: they are small, and a
// request cut off in flight would only be logged as an error.
func (r *Registry) holdsObjectsOfAny(ctx context.Context, resources []schema.GroupVersionResource, namespace string, leaving []HostObject) (bool, *heldBy, error) {
	errs := make([]error, len(resources))
	var found atomic.Bool
	var mu sync.Mutex
	var holder *heldBy
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(listParallelism, len(resources)) {
		wg.Go(func() {
			for i := range next {
				held, name, err := r.holdsObjectsOf(ctx, resources[i], namespace, leaving)
				errs[i] = err
				if held {
					found.Store(true)
				}
				if name != "" {
					mu.Lock()
					if holder == nil {
						holder = &heldBy{resource: resources[i], name: name}
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range resources {
		if found.Load() || ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if found.Load() {
		return true, holder, nil
	}
	if err := ctx.Err(); err != nil {
		// Cut short: what was not listed may hold something.
		return false, nil, fmt.Errorf("looking into namespace %q of the host: %w", namespace, err)
	}
	return false, nil, errors.Join(errs...)
}

// holdsObjectsOf reports whether namespace holds an object of gvr that
// someone put there and is not leaving, and names it when the list shows
// it.
func (r *Registry) holdsObjectsOf(ctx context.Context, gvr schema.GroupVersionResource, namespace string, leaving []HostObject) (bool, string, error) {
	// One more than the objects that may be there and leaving.
	list, err := r.dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{Limit: int64(2 + len(leaving))})
	switch {
	case apierrors.IsNotFound(err):
		// No longer served (a type disabled since discovery was read):
		// no object of it is left anywhere.
		return false, "", nil
	case err != nil:
		return false, "", fmt.Errorf("listing %s in namespace %q of the host: %w", gvr.GroupResource(), namespace, err)
	}
	names := make([]string, 0, len(list.Items))
	for _, item := range list.Items {
		names = append(names, item.GetName())
	}
	name, held := ownObject(gvr.GroupResource(), names, list.GetContinue() != "", leaving)
	return held, name, nil
}

// ownObject reports whether a list of names of one resource in a
// namespace, with more to come when more is true, shows an object that
// someone put there and is not leaving, and names the first such object
// it shows ("" when only the rest of the list would).
func ownObject(resource schema.GroupResource, names []string, more bool, leaving []HostObject) (string, bool) {
	for _, name := range names {
		if !kube.EveryNamespaceHolds(resource, name) && !slices.Contains(leaving, HostObject{Resource: resource, Name: name}) {
			return name, true
		}
	}
	return "", more
}

// federationGroupRank puts the API groups of KubeFed first.
func federationGroupRank(group string) int {
	if group == "kubefed.io" || strings.HasSuffix(group, ".kubefed.io") {
		return 0
	}
	return 1
}

// namespacedCustomResource is the resource a CRD defines, in a version the
// host serves, when it is namespaced.
func namespacedCustomResource(crd map[string]any) (schema.GroupVersionResource, bool) {
	scope, _, _ := unstructured.NestedString(crd, "spec", "scope")
	group, _, _ := unstructured.NestedString(crd, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd, "spec", "versions")
	if scope != "Namespaced" || plural == "" {
		return schema.GroupVersionResource{}, false
	}
	for _, v := range versions {
		version, _ := v.(map[string]any)
		if name, _ := version["name"].(string); name != "" && version["served"] == true {
			return schema.GroupVersionResource{Group: group, Version: name, Resource: plural}, true
		}
	}
	return schema.GroupVersionResource{}, false
}
