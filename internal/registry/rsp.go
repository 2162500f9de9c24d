package registry

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// ReplicaSchedulingPreferenceResource is KubeFed's scheduling preference type.
var ReplicaSchedulingPreferenceResource = schema.GroupVersionResource{
	Group: "scheduling.kubefed.io", Version: "v1alpha1", Resource: "replicaschedulingpreferences",
}

// Annotations that carry what KubeFed's ReplicaSchedulingPreference has no
// field for. KubeFed ignores annotations, so a KubeFed controller reading the
// object sees a valid preference with its default strategy.
const (
	AnnotationStrategy        = "kubefed.terraform.io/strategy"
	AnnotationReplicasPath    = "kubefed.terraform.io/replicas-path"
	AnnotationClusterSelector = "kubefed.terraform.io/cluster-selector"
)

// SchedulingPreference is a ReplicaSchedulingPreference: how the replicas of
// the federated object of the same namespace and name are split.
type SchedulingPreference struct {
	Namespace     string
	Name          string
	TargetKind    string
	TotalReplicas int64
	Rebalance     bool
	// IntersectWithClusterSelector is KubeFed's switch that restricts the
	// candidates to the target object's cluster selector.
	IntersectWithClusterSelector bool
	Clusters                     map[string]ClusterPreference
	Strategy                     string
	ReplicasPath                 string
	// ClusterSelector restricts the candidates by label; nil means all.
	ClusterSelector *metav1.LabelSelector
	Status          SchedulingStatus
}

// ClusterPreference is one entry of a preference's clusters map.
type ClusterPreference struct {
	MinReplicas int64
	MaxReplicas *int64
	Weight      int64
}

// SchedulingStatus is the split the provider computed, as written to the
// preference's status.
type SchedulingStatus struct {
	Replicas         map[string]int64
	UnplacedReplicas int64
	ExcludedClusters map[string]string
}

// ApplySchedulingPreference writes p, creating its namespace in the host
// when it is missing: the federated object it schedules lives there too.
// An identity that may not read or create namespaces writes p all the
// same, in a namespace that exists.
func (r *Registry) ApplySchedulingPreference(ctx context.Context, p SchedulingPreference) error {
	if err := r.EnsureObjectNamespace(ctx, p.Namespace); err != nil && !apierrors.IsForbidden(err) {
		return err
	}
	obj, err := schedulingPreferenceObject(p)
	if err != nil {
		return err
	}
	if _, err := r.schedulingPreferences(p.Namespace).Apply(ctx, p.Name, obj, r.applyOptions()); err != nil {
		return fmt.Errorf("writing ReplicaSchedulingPreference %s/%s to the host: %w", p.Namespace, p.Name, err)
	}
	return nil
}

// GetSchedulingPreference reads a preference, KubeFed's own included. It
// returns ErrNotFound when it does not exist.
func (r *Registry) GetSchedulingPreference(ctx context.Context, namespace, name string) (*SchedulingPreference, error) {
	obj, err := r.schedulingPreferences(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("ReplicaSchedulingPreference %s/%s: %w", namespace, name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading ReplicaSchedulingPreference %s/%s of the host: %w", namespace, name, err)
	}
	return schedulingPreferenceFromObject(obj)
}

// DeleteSchedulingPreference removes a preference; one already gone is fine.
func (r *Registry) DeleteSchedulingPreference(ctx context.Context, namespace, name string) error {
	err := r.schedulingPreferences(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ReplicaSchedulingPreference %s/%s from the host: %w", namespace, name, err)
	}
	return nil
}

// Types lists the enabled types, by their FederatedTypeConfigs.
func (r *Registry) Types(ctx context.Context) ([]FederatedType, error) {
	list, err := r.typeConfigs().List(ctx, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("listing FederatedTypeConfigs in namespace %q of the host: %w", r.namespace, err)
	}
	var out []FederatedType
	if list != nil {
		for i := range list.Items {
			t, err := typeFromObject(&list.Items[i])
			if err != nil {
				return nil, err
			}
			out = append(out, *t)
		}
	}
	return out, nil
}

// TypeOfFederatedKind finds the enabled type whose federated kind is kind,
// such as FederatedDeployment, by its FederatedTypeConfig.
func (r *Registry) TypeOfFederatedKind(ctx context.Context, kind string) (*FederatedType, error) {
	list, err := r.typeConfigs().List(ctx, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("listing FederatedTypeConfigs in namespace %q of the host: %w", r.namespace, err)
	}
	var enabled []string
	if list != nil {
		for i := range list.Items {
			t, err := typeFromObject(&list.Items[i])
			if err != nil {
				return nil, err
			}
			if t.Federated.Kind == kind {
				return t, nil
			}
			enabled = append(enabled, t.Federated.Kind)
		}
	}
	return nil, fmt.Errorf("no enabled type has the federated kind %s (enabled: %v): %w", kind, enabled, ErrNotFound)
}

// FederatedPlacementSelector reads the cluster selector of the placement of
// a Federated<Kind> object, which KubeFed's intersectWithClusterSelector
// refers to. It returns nil when the object or its selector is absent.
func (r *Registry) FederatedPlacementSelector(ctx context.Context, t FederatedType, namespace, name string) (*metav1.LabelSelector, error) {
	obj, err := r.dynamic.Resource(t.Federated.Resource()).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s/%s of the host: %w", t.Federated.Kind, namespace, name, err)
	}
	raw, found, err := unstructured.NestedMap(obj.Object, "spec", "placement", "clusterSelector")
	if err != nil || !found {
		return nil, err
	}
	return labelSelectorFrom(raw)
}

func (r *Registry) schedulingPreferences(namespace string) dynamic.ResourceInterface {
	return r.dynamic.Resource(ReplicaSchedulingPreferenceResource).Namespace(namespace)
}

func schedulingPreferenceObject(p SchedulingPreference) (*unstructured.Unstructured, error) {
	obj := replicaSchedulingPreference{
		TypeMeta:   typeMeta(ReplicaSchedulingPreferenceResource.GroupVersion(), "ReplicaSchedulingPreference"),
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
		Spec: rspSpec{
			TargetKind:                   p.TargetKind,
			TotalReplicas:                p.TotalReplicas,
			Rebalance:                    p.Rebalance,
			IntersectWithClusterSelector: p.IntersectWithClusterSelector,
			Clusters:                     map[string]clusterPreference{},
		},
		// The split as the provider planned it; KubeFed's own schema does
		// not describe a status, so a host with KubeFed's CRD may drop it.
		Status: &rspStatus{
			Replicas:         nonNil(p.Status.Replicas),
			UnplacedReplicas: p.Status.UnplacedReplicas,
			ExcludedClusters: nonNil(p.Status.ExcludedClusters),
		},
	}
	for name, c := range p.Clusters {
		obj.Spec.Clusters[name] = clusterPreference(c)
	}
	annotations := map[string]string{}
	if p.Strategy != "" {
		annotations[AnnotationStrategy] = p.Strategy
	}
	if p.ReplicasPath != "" {
		annotations[AnnotationReplicasPath] = p.ReplicasPath
	}
	if p.ClusterSelector != nil {
		selector, err := json.Marshal(p.ClusterSelector)
		if err != nil {
			return nil, err
		}
		annotations[AnnotationClusterSelector] = string(selector)
	}
	if len(annotations) > 0 {
		obj.Annotations = annotations
	}
	return toUnstructured(&obj)
}

func schedulingPreferenceFromObject(u *unstructured.Unstructured) (*SchedulingPreference, error) {
	var obj replicaSchedulingPreference
	if err := fromUnstructured(u, &obj); err != nil {
		return nil, err
	}
	p := &SchedulingPreference{
		Namespace: obj.Namespace, Name: obj.Name,
		TargetKind:                   obj.Spec.TargetKind,
		TotalReplicas:                obj.Spec.TotalReplicas,
		Rebalance:                    obj.Spec.Rebalance,
		IntersectWithClusterSelector: obj.Spec.IntersectWithClusterSelector,
		Clusters:                     map[string]ClusterPreference{},
		Strategy:                     obj.Annotations[AnnotationStrategy],
		ReplicasPath:                 obj.Annotations[AnnotationReplicasPath],
	}
	for name, c := range obj.Spec.Clusters {
		p.Clusters[name] = ClusterPreference(c)
	}
	if raw := obj.Annotations[AnnotationClusterSelector]; raw != "" {
		selector := &metav1.LabelSelector{}
		if err := json.Unmarshal([]byte(raw), selector); err != nil {
			return nil, fmt.Errorf("ReplicaSchedulingPreference %s/%s: annotation %s is not a label selector: %w",
				p.Namespace, p.Name, AnnotationClusterSelector, err)
		}
		p.ClusterSelector = selector
	}
	if obj.Status != nil {
		p.Status = SchedulingStatus(*obj.Status)
	}
	return p, nil
}

// nonNil is m, or an empty map for nil: the status always lists its maps.
func nonNil[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

func labelSelectorFrom(raw map[string]any) (*metav1.LabelSelector, error) {
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	selector := &metav1.LabelSelector{}
	if err := json.Unmarshal(data, selector); err != nil {
		return nil, fmt.Errorf("reading a cluster selector: %w", err)
	}
	return selector, nil
}
