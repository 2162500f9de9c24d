package propagation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"
)

// GiveBack leaves an adopted object on the member as it is, and takes off
// what makes it the federation's: the managed label, the adopted mark and
// the provider's entries of its managed fields, so that its fields belong
// to their other managers again and a later apply by them is not a
// conflict. An object already gone is fine.
func GiveBack(ctx context.Context, m Member, o Object, opts Options) error {
	_, err := logged(ctx, "give back", m, o, func(ctx context.Context) (Answer, error) { return Answer{}, giveBack(ctx, m, o, opts) })
	return err
}

func giveBack(ctx context.Context, m Member, o Object, opts Options) error {
	if err := m.confirmed(ctx); err != nil {
		return err
	}
	defer m.Reads.Forget(listScope(m, o), o.Name)
	client := resourceClient(m.Clients, o)
	live, err := client.Get(ctx, o.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return explain(m, o, err, opts)
	}
	patch, err := giveBackPatch(live.Object, opts.FieldManager)
	if err != nil {
		return fmt.Errorf("%s: cluster %q: %w", o, m.Name, err)
	}
	_, err = client.Patch(ctx, o.Name, k8stypes.MergePatchType, patch, metav1.PatchOptions{FieldManager: opts.FieldManager + "-giveback"})
	if err != nil && !apierrors.IsNotFound(err) {
		return explain(m, o, err, opts)
	}
	return nil
}

// giveBackPatch is the merge patch that gives obj back: the managed label
// and the adopted mark removed, the managed fields without fieldManager's
// entries (one empty entry clears them all), guarded by the object's
// resourceVersion so that a change meanwhile fails the patch instead of
// losing another manager's entry.
func giveBackPatch(obj map[string]any, fieldManager string) ([]byte, error) {
	entries, _, err := unstructured.NestedSlice(obj, "metadata", "managedFields")
	if err != nil {
		return nil, err
	}
	kept := slices.DeleteFunc(entries, func(e any) bool {
		entry, _ := e.(map[string]any)
		return entry["manager"] == fieldManager
	})
	if len(kept) == 0 {
		kept = []any{map[string]any{}}
	}
	version, _, _ := unstructured.NestedString(obj, "metadata", "resourceVersion")
	return json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": version,
		"labels":          map[string]any{federation.ManagedLabel: nil},
		"annotations":     map[string]any{federation.AdoptedAnnotation: nil},
		"managedFields":   kept,
	}})
}

// UnmanagedInNamespace names ("configmaps/settings") an object of
// namespace on the member that the federation does not manage, or is ""
// when there is none: a namespace that holds one is not the federation's
// to delete. Objects Kubernetes puts in every namespace, objects owned by
// another object (a Deployment's ReplicaSets and their Pods, a CronJob's
// Jobs), objects being deleted and the Endpoints a Service's controller
// keeps do not count.
func UnmanagedInNamespace(ctx context.Context, m Member, namespace string) (string, error) {
	ctx = kube.WithCluster(ctx, m.Name)
	lists, err := discovery.ServerPreferredNamespacedResources(m.Clients.Discovery)
	if err != nil {
		return "", fmt.Errorf("reading the API discovery of cluster %q: %w", m.Name, err)
	}
	resources, err := kube.ListableNamespacedResources(lists, fmt.Sprintf("cluster %q", m.Name))
	if err != nil {
		return "", err
	}
	found := make([]string, len(resources))
	errs := make([]error, len(resources))
	overlap.Each(len(resources), namespaceLists, func(i int) { found[i], errs[i] = unmanagedOf(ctx, m, resources[i], namespace) })
	for _, name := range found {
		if name != "" {
			return name, nil
		}
	}
	return "", errors.Join(errs...)
}

// namespaceLists bounds the lists that look into a member's namespace.
const namespaceLists = 16

func unmanagedOf(ctx context.Context, m Member, gvr schema.GroupVersionResource, namespace string) (string, error) {
	list, err := m.Clients.Dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
	switch {
	case apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("listing %s in namespace %q of cluster %q: %w", gvr.GroupResource(), namespace, m.Name, err)
	}
	for _, item := range list.Items {
		if Unmanaged(gvr.GroupResource(), item.Object) {
			return gvr.GroupResource().String() + "/" + item.GetName(), nil
		}
	}
	return "", nil
}

// Unmanaged reports whether obj, an object of resource in a namespace, is
// one that neither the federation nor Kubernetes itself manages.
func Unmanaged(resource schema.GroupResource, obj map[string]any) bool {
	u := unstructured.Unstructured{Object: obj}
	switch {
	case u.GetDeletionTimestamp() != nil, len(u.GetOwnerReferences()) > 0:
		return false
	case u.GetLabels()[federation.ManagedLabel] == federation.ManagedLabelValue:
		return false
	case kube.EveryNamespaceHolds(resource, u.GetName()):
		return false
	case resource == schema.GroupResource{Resource: "endpoints"} && u.GetLabels()[endpointsControllerLabel] == "true":
		return false
	}
	return true
}

// endpointsControllerLabel is set by Kubernetes' endpoints controller on the
// Endpoints it keeps for each Service.
const endpointsControllerLabel = "endpointslice.kubernetes.io/skip-mirror"
