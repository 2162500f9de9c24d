package registry

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/yaml"
)

//go:embed crds/core.yaml
var coreCRDsYAML []byte

// establishTimeout bounds the wait for a freshly installed CRD to be served,
// and crdGoneTimeout the wait for a deleted one to go (once the API server
// has removed its objects, which DeleteType makes sure are none); crdPoll
// paces both.
const (
	establishTimeout = 60 * time.Second
	crdGoneTimeout   = 60 * time.Second
	crdPoll          = 200 * time.Millisecond
)

// CoreCRDs returns the CRDs the federation needs on its host: KubeFedCluster,
// FederatedTypeConfig and ReplicaSchedulingPreference.
func CoreCRDs() ([]*unstructured.Unstructured, error) {
	var crds []*unstructured.Unstructured
	for _, doc := range bytes.Split(coreCRDsYAML, []byte("\n---\n")) {
		obj := map[string]any{}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("parsing the embedded CRDs: %w", err)
		}
		crds = append(crds, &unstructured.Unstructured{Object: obj})
	}
	return crds, nil
}

// Bootstrap makes sure the federation namespace exists and the core CRDs are
// installed and established. What already exists is left as it is, so a host
// with a KubeFed installation keeps KubeFed's own CRDs; what is missing is
// created with server-side apply, so two runs racing to bootstrap the same
// host both succeed.
func (r *Registry) Bootstrap(ctx context.Context) error {
	if r.readOnly {
		return ErrReadOnly
	}
	return r.eachBootstrapPart(ctx, r.ensureNamespace, r.ensureCRD)
}

// Bootstrapped reports whether the host has the federation namespace and
// the core CRDs, established, without writing anything: an identity that
// may not read them is told false.
func (r *Registry) Bootstrapped(ctx context.Context) bool {
	return r.eachBootstrapPart(ctx, r.hasNamespace, r.hasCRD) == nil
}

// eachBootstrapPart runs namespace and crd for every core CRD at once: the
// parts are independent of each other (CRDs are cluster-scoped), so they
// cost one round trip to the host instead of four.
func (r *Registry) eachBootstrapPart(ctx context.Context, namespace func(context.Context) error,
	crd func(context.Context, *unstructured.Unstructured) error) error {
	crds, err := CoreCRDs()
	if err != nil {
		return err
	}
	errs := make([]error, len(crds)+1)
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = namespace(ctx) })
	for i, c := range crds {
		wg.Go(func() { errs[i+1] = crd(ctx, c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (r *Registry) hasNamespace(ctx context.Context) error {
	_, err := r.kubernetes.CoreV1().Namespaces().Get(ctx, r.namespace, metav1.GetOptions{})
	return err
}

func (r *Registry) hasCRD(ctx context.Context, crd *unstructured.Unstructured) error {
	existing, err := r.dynamic.Resource(crdResource).Get(ctx, crd.GetName(), metav1.GetOptions{})
	if err == nil && !established(existing) {
		return fmt.Errorf("CRD %s is not established", crd.GetName())
	}
	return err
}

func (r *Registry) ensureNamespace(ctx context.Context) error {
	return r.ensureNamespaceNamed(ctx, r.namespace)
}

// ensureNamespaceNamed creates the host's namespace called namespace when
// it is missing.
func (r *Registry) ensureNamespaceNamed(ctx context.Context, namespace string) error {
	_, err := r.kubernetes.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading namespace %q of the host: %w", namespace, err)
	}
	_, err = r.kubernetes.CoreV1().Namespaces().Apply(ctx, corev1apply.Namespace(namespace),
		metav1.ApplyOptions{FieldManager: r.fieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("creating namespace %q in the host: %w", namespace, err)
	}
	return nil
}

// ensureCRD installs crd unless a CRD of that name exists, then waits until
// the API server serves it.
func (r *Registry) ensureCRD(ctx context.Context, crd *unstructured.Unstructured) error {
	client := r.dynamic.Resource(crdResource)
	name := crd.GetName()
	existing, err := client.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		if established(existing) {
			return nil
		}
	case apierrors.IsNotFound(err):
		if _, err := client.Apply(ctx, name, crd, metav1.ApplyOptions{FieldManager: r.fieldManager, Force: true}); err != nil {
			return fmt.Errorf("installing CRD %s in the host: %w", name, err)
		}
	default:
		return fmt.Errorf("reading CRD %s of the host: %w", name, err)
	}
	return r.waitEstablished(ctx, name)
}

func (r *Registry) waitEstablished(ctx context.Context, name string) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, crdPoll, establishTimeout, true, func(ctx context.Context) (bool, error) {
		obj, err := r.dynamic.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		// Errors are remembered and polling goes on: a CRD just applied
		// may not be served yet.
		last = err
		return err == nil && established(obj), nil
	})
	if err != nil {
		if last != nil {
			err = fmt.Errorf("%w (last error: %w)", err, last)
		}
		return fmt.Errorf("CRD %s was not established in the host: %w", name, err)
	}
	return nil
}

// waitCRDGone waits until the CRD of that name, whose deletion was asked
// for, is no longer there.
func (r *Registry) waitCRDGone(ctx context.Context, name string) error {
	err := wait.PollUntilContextTimeout(ctx, crdPoll, crdGoneTimeout, true, func(ctx context.Context) (bool, error) {
		_, err := r.dynamic.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return fmt.Errorf("CRD %s of the host is being deleted, but is not gone yet: %w", name, err)
	}
	return nil
}

func established(crd *unstructured.Unstructured) bool {
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conditions {
		condition, ok := c.(map[string]any)
		if ok && condition["type"] == "Established" && condition["status"] == string(corev1.ConditionTrue) {
			return true
		}
	}
	return false
}
