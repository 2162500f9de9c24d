package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
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
func (r *Registry) ApplySchedulingPreference(ctx context.Context, p SchedulingPreference) error {
	if _, err := r.kubernetes.CoreV1().Namespaces().Apply(ctx, corev1apply.Namespace(p.Namespace),
		r.applyOptions()); err != nil && !apierrors.IsForbidden(err) {
		return fmt.Errorf("creating namespace %q in the host: %w", p.Namespace, err)
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

// TypeOfFederatedKind finds the enabled type whose federated kind is kind,
// such as FederatedDeployment, by its FederatedTypeConfig.
func (r *Registry) TypeOfFederatedKind(ctx context.Context, kind string) (*FederatedType, error) {
	list, err := r.dynamic.Resource(FederatedTypeConfigResource).Namespace(r.namespace).List(ctx, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("listing FederatedTypeConfigs in namespace %q of the host: %w", r.namespace, err)
	}
	var enabled []string
	if list != nil {
		for i := range list.Items {
			federated := apiResourceFromSpec(list.Items[i].Object, "federatedType")
			if federated.Kind == kind {
				return r.GetType(ctx, list.Items[i].GetName())
			}
			enabled = append(enabled, federated.Kind)
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

func (r *Registry) schedulingPreferences(namespace string) dynamicResource {
	return r.dynamic.Resource(ReplicaSchedulingPreferenceResource).Namespace(namespace)
}

func schedulingPreferenceObject(p SchedulingPreference) (*unstructured.Unstructured, error) {
	clusters := map[string]any{}
	for name, c := range p.Clusters {
		entry := map[string]any{"minReplicas": c.MinReplicas, "weight": c.Weight}
		if c.MaxReplicas != nil {
			entry["maxReplicas"] = *c.MaxReplicas
		}
		clusters[name] = entry
	}
	annotations := map[string]any{}
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
	metadata := map[string]any{"name": p.Name, "namespace": p.Namespace}
	if len(annotations) > 0 {
		metadata["annotations"] = annotations
	}
	replicas := map[string]any{}
	for name, n := range p.Status.Replicas {
		replicas[name] = n
	}
	excluded := map[string]any{}
	for name, reason := range p.Status.ExcludedClusters {
		excluded[name] = reason
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ReplicaSchedulingPreferenceResource.GroupVersion().String(),
		"kind":       "ReplicaSchedulingPreference",
		"metadata":   metadata,
		"spec": map[string]any{
			"targetKind":                   p.TargetKind,
			"totalReplicas":                p.TotalReplicas,
			"rebalance":                    p.Rebalance,
			"intersectWithClusterSelector": p.IntersectWithClusterSelector,
			"clusters":                     clusters,
		},
		// The split as the provider planned it; KubeFed's own schema does
		// not describe a status, so a host with KubeFed's CRD may drop it.
		"status": map[string]any{
			"replicas":         replicas,
			"unplacedReplicas": p.Status.UnplacedReplicas,
			"excludedClusters": excluded,
		},
	}}, nil
}

func schedulingPreferenceFromObject(obj *unstructured.Unstructured) (*SchedulingPreference, error) {
	p := &SchedulingPreference{Namespace: obj.GetNamespace(), Name: obj.GetName(), Clusters: map[string]ClusterPreference{}}
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	p.TargetKind, _ = spec["targetKind"].(string)
	p.TotalReplicas = int64Field(spec["totalReplicas"])
	p.Rebalance, _ = spec["rebalance"].(bool)
	p.IntersectWithClusterSelector, _ = spec["intersectWithClusterSelector"].(bool)
	clusters, _ := spec["clusters"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(clusters)) {
		entry, _ := clusters[name].(map[string]any)
		c := ClusterPreference{MinReplicas: int64Field(entry["minReplicas"]), Weight: int64Field(entry["weight"])}
		if maximum, ok := entry["maxReplicas"]; ok && maximum != nil {
			n := int64Field(maximum)
			c.MaxReplicas = &n
		}
		p.Clusters[name] = c
	}
	annotations := obj.GetAnnotations()
	p.Strategy = annotations[AnnotationStrategy]
	p.ReplicasPath = annotations[AnnotationReplicasPath]
	if raw := annotations[AnnotationClusterSelector]; raw != "" {
		selector := &metav1.LabelSelector{}
		if err := json.Unmarshal([]byte(raw), selector); err != nil {
			return nil, fmt.Errorf("ReplicaSchedulingPreference %s/%s: annotation %s is not a label selector: %w",
				p.Namespace, p.Name, AnnotationClusterSelector, err)
		}
		p.ClusterSelector = selector
	}
	status, _, _ := unstructured.NestedMap(obj.Object, "status")
	p.Status.UnplacedReplicas = int64Field(status["unplacedReplicas"])
	if replicas, ok := status["replicas"].(map[string]any); ok {
		p.Status.Replicas = map[string]int64{}
		for name, n := range replicas {
			p.Status.Replicas[name] = int64Field(n)
		}
	}
	if excluded, ok := status["excludedClusters"].(map[string]any); ok {
		p.Status.ExcludedClusters = map[string]string{}
		for name, reason := range excluded {
			p.Status.ExcludedClusters[name], _ = reason.(string)
		}
	}
	return p, nil
}

// int64Field reads an integer the way the dynamic client decodes JSON:
// int64, or float64 for numbers written by other clients.
func int64Field(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case float64:
		return int64(n)
	default:
		return 0
	}
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
