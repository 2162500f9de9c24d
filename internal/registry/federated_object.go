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
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// SelectorOverridesAnnotation holds the override rules that target clusters
// by label selector. KubeFed's spec.overrides only targets clusters by name
// and its controllers ignore annotations they do not know, so a KubeFed
// reading the object sees the name-targeted rules and the placement, and
// nothing it could misread. The value is a JSON list of
// {"index", "clusterSelector", "clusterOverrides"}; index is the rule's
// position among all rules, which keeps their order of application.
const SelectorOverridesAnnotation = "kubefed.terraform.io/selector-overrides"

// OrphanAnnotation is KubeFed's: objects on member clusters are left in place
// when the federated object goes.
const OrphanAnnotation = "kubefed.io/orphan"

// FederatedObject is a Federated<Kind> object of the host, in plain terms.
type FederatedObject struct {
	// Namespace is empty for a cluster-scoped federated type.
	Namespace string
	Name      string
	// Template is the object without apiVersion, kind, name and namespace,
	// which KubeFed derives from the type and the federated object.
	Template map[string]any
	// Placement is KubeFed's: a list of names, a selector, or both.
	Placement federation.Placement
	// Overrides are all rules, in order.
	Overrides []federation.OverrideRule
	// Orphan leaves member objects in place on deletion.
	Orphan bool
	// Status is each cluster's propagation status, KubeFed's status.clusters.
	Status map[string]string
}

// FederatedObjectLocation is where a target object's Federated<Kind> lives:
// in the target's namespace, or, for a Namespace, in the namespace itself.
func FederatedObjectLocation(t FederatedType, namespace, name string) (string, string) {
	if t.Target.Group == "" && t.Target.Kind == "Namespace" {
		return name, name
	}
	if !t.Federated.Namespaced {
		return "", name
	}
	return namespace, name
}

// ApplyFederatedObject writes obj, creating its namespace in the host when
// missing unless namespaceKnown says the caller made sure of it already,
// then its status.
func (r *Registry) ApplyFederatedObject(ctx context.Context, t FederatedType, obj FederatedObject, namespaceKnown bool) error {
	if obj.Namespace != "" && !namespaceKnown {
		if err := r.ensureObjectNamespace(ctx, obj.Namespace); err != nil {
			return err
		}
	}
	u, err := federatedObjectToUnstructured(t, obj)
	if err != nil {
		return err
	}
	client := r.federatedClient(t, obj.Namespace)
	if _, err := client.Apply(ctx, obj.Name, u, r.applyOptions()); err != nil {
		return fmt.Errorf("writing %s %s in the host: %w", t.Federated.Kind, objectKey(obj.Namespace, obj.Name), err)
	}
	status := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": t.Federated.APIVersion(),
		"kind":       t.Federated.Kind,
		"status":     map[string]any{"clusters": statusList(obj.Status)},
	}}
	status.SetName(obj.Name)
	status.SetNamespace(obj.Namespace)
	if _, err := client.ApplyStatus(ctx, obj.Name, status, r.applyOptions()); err != nil {
		return fmt.Errorf("writing the status of %s %s in the host: %w", t.Federated.Kind, objectKey(obj.Namespace, obj.Name), err)
	}
	return nil
}

// GetFederatedObject reads a Federated<Kind>, whether the provider or KubeFed
// wrote it. It returns ErrNotFound when it does not exist.
func (r *Registry) GetFederatedObject(ctx context.Context, t FederatedType, namespace, name string) (*FederatedObject, error) {
	u, err := r.federatedClient(t, namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%s %s: %w", t.Federated.Kind, objectKey(namespace, name), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s of the host: %w", t.Federated.Kind, objectKey(namespace, name), err)
	}
	return federatedObjectFromUnstructured(u)
}

// DeleteFederatedObject removes a Federated<Kind>; one already gone is fine.
func (r *Registry) DeleteFederatedObject(ctx context.Context, t FederatedType, namespace, name string) error {
	err := r.federatedClient(t, namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s %s of the host: %w", t.Federated.Kind, objectKey(namespace, name), err)
	}
	return nil
}

func (r *Registry) federatedClient(t FederatedType, namespace string) dynamicResource {
	if namespace == "" {
		return r.dynamic.Resource(t.Federated.Resource())
	}
	return r.dynamic.Resource(t.Federated.Resource()).Namespace(namespace)
}

func (r *Registry) ensureObjectNamespace(ctx context.Context, namespace string) error {
	_, err := r.kubernetes.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading namespace %q of the host: %w", namespace, err)
	}
	// Not forced: a namespace someone else manages keeps its fields.
	_, err = r.kubernetes.CoreV1().Namespaces().Apply(ctx, corev1apply.Namespace(namespace), metav1.ApplyOptions{FieldManager: r.fieldManager})
	if err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("creating namespace %q in the host: %w", namespace, err)
	}
	return nil
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func federatedObjectToUnstructured(t FederatedType, obj FederatedObject) (*unstructured.Unstructured, error) {
	spec := map[string]any{}
	if obj.Template != nil {
		spec["template"] = obj.Template
	}
	placement := map[string]any{}
	if obj.Placement.Clusters != nil {
		clusters := make([]any, 0, len(obj.Placement.Clusters))
		for _, c := range obj.Placement.Clusters {
			clusters = append(clusters, map[string]any{"name": c})
		}
		placement["clusters"] = clusters
	}
	if obj.Placement.Selector != nil {
		placement["clusterSelector"] = selectorToMap(obj.Placement.Selector)
	}
	spec["placement"] = placement

	var byName []any
	var bySelector []any
	for i, rule := range obj.Overrides {
		patches, err := patchesToList(rule.Patches)
		if err != nil {
			return nil, fmt.Errorf("override rule %d: %w", i, err)
		}
		if rule.Selector != nil {
			bySelector = append(bySelector, map[string]any{
				"index": int64(i), "clusterSelector": selectorToMap(rule.Selector), "clusterOverrides": patches,
			})
			continue
		}
		byName = append(byName, map[string]any{"clusterName": rule.Cluster, "clusterOverrides": patches})
	}
	if byName != nil {
		spec["overrides"] = byName
	}

	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": t.Federated.APIVersion(),
		"kind":       t.Federated.Kind,
		"spec":       spec,
	}}
	u.SetName(obj.Name)
	u.SetNamespace(obj.Namespace)
	annotations := map[string]string{}
	if bySelector != nil {
		raw, err := json.Marshal(bySelector)
		if err != nil {
			return nil, err
		}
		annotations[SelectorOverridesAnnotation] = string(raw)
	}
	if obj.Orphan {
		annotations[OrphanAnnotation] = "true"
	}
	if len(annotations) > 0 {
		u.SetAnnotations(annotations)
	}
	return u, nil
}

func federatedObjectFromUnstructured(u *unstructured.Unstructured) (*FederatedObject, error) {
	obj := &FederatedObject{Namespace: u.GetNamespace(), Name: u.GetName()}
	where := fmt.Sprintf("%s %s", u.GetKind(), objectKey(obj.Namespace, obj.Name))
	obj.Template, _, _ = unstructured.NestedMap(u.Object, "spec", "template")
	if clusters, found, _ := unstructured.NestedSlice(u.Object, "spec", "placement", "clusters"); found {
		obj.Placement.Clusters = []string{}
		for _, c := range clusters {
			if m, ok := c.(map[string]any); ok {
				if name, ok := m["name"].(string); ok {
					obj.Placement.Clusters = append(obj.Placement.Clusters, name)
				}
			}
		}
	}
	if sel, found, _ := unstructured.NestedMap(u.Object, "spec", "placement", "clusterSelector"); found {
		obj.Placement.Selector = selectorFromMap(sel)
	}

	overrides, _, _ := unstructured.NestedSlice(u.Object, "spec", "overrides")
	for i, o := range overrides {
		m, _ := o.(map[string]any)
		name, _ := m["clusterName"].(string)
		patches, err := patchesFromList(m["clusterOverrides"])
		if err != nil {
			return nil, fmt.Errorf("%s: spec.overrides[%d]: %w", where, i, err)
		}
		obj.Overrides = append(obj.Overrides, federation.OverrideRule{Cluster: name, Patches: patches})
	}
	if raw := u.GetAnnotations()[SelectorOverridesAnnotation]; raw != "" {
		var bySelector []struct {
			Index            int            `json:"index"`
			ClusterSelector  map[string]any `json:"clusterSelector"`
			ClusterOverrides []any          `json:"clusterOverrides"`
		}
		if err := json.Unmarshal([]byte(raw), &bySelector); err != nil {
			return nil, fmt.Errorf("%s: annotation %s: %w", where, SelectorOverridesAnnotation, err)
		}
		for _, s := range bySelector {
			patches, err := patchesFromList(s.ClusterOverrides)
			if err != nil {
				return nil, fmt.Errorf("%s: annotation %s, rule %d: %w", where, SelectorOverridesAnnotation, s.Index, err)
			}
			rule := federation.OverrideRule{Selector: selectorFromMap(s.ClusterSelector), Patches: patches}
			at := min(max(s.Index, 0), len(obj.Overrides))
			obj.Overrides = slices.Insert(obj.Overrides, at, rule)
		}
	}
	obj.Orphan = u.GetAnnotations()[OrphanAnnotation] == "true"

	statuses, _, _ := unstructured.NestedSlice(u.Object, "status", "clusters")
	for _, s := range statuses {
		m, _ := s.(map[string]any)
		name, _ := m["name"].(string)
		status, _ := m["status"].(string)
		if name != "" {
			if obj.Status == nil {
				obj.Status = map[string]string{}
			}
			obj.Status[name] = status
		}
	}
	return obj, nil
}

func selectorToMap(s *federation.Selector) map[string]any {
	m := map[string]any{}
	if len(s.MatchLabels) > 0 {
		labels := map[string]any{}
		for k, v := range s.MatchLabels {
			labels[k] = v
		}
		m["matchLabels"] = labels
	}
	if len(s.MatchExpressions) > 0 {
		exprs := make([]any, 0, len(s.MatchExpressions))
		for _, e := range s.MatchExpressions {
			expr := map[string]any{"key": e.Key, "operator": e.Operator}
			if len(e.Values) > 0 {
				values := make([]any, 0, len(e.Values))
				for _, v := range e.Values {
					values = append(values, v)
				}
				expr["values"] = values
			}
			exprs = append(exprs, expr)
		}
		m["matchExpressions"] = exprs
	}
	return m
}

func selectorFromMap(m map[string]any) *federation.Selector {
	s := &federation.Selector{}
	if labels, ok := m["matchLabels"].(map[string]any); ok {
		s.MatchLabels = map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			s.MatchLabels[k], _ = labels[k].(string)
		}
	}
	exprs, _ := m["matchExpressions"].([]any)
	for _, e := range exprs {
		em, _ := e.(map[string]any)
		r := federation.Requirement{}
		r.Key, _ = em["key"].(string)
		r.Operator, _ = em["operator"].(string)
		values, _ := em["values"].([]any)
		for _, v := range values {
			if s, ok := v.(string); ok {
				r.Values = append(r.Values, s)
			}
		}
		s.MatchExpressions = append(s.MatchExpressions, r)
	}
	return s
}

// patchesToList turns patches into KubeFed's clusterOverrides, whose values
// are JSON values rather than JSON text.
func patchesToList(patches []federation.Patch) ([]any, error) {
	out := make([]any, 0, len(patches))
	for j, p := range patches {
		entry := map[string]any{"path": p.Path}
		if p.Op != "" {
			entry["op"] = p.Op
		}
		if p.Value != "" {
			var v any
			if err := json.Unmarshal([]byte(p.Value), &v); err != nil {
				return nil, fmt.Errorf("patch %d: value is not JSON: %w", j, err)
			}
			entry["value"] = v
		}
		out = append(out, entry)
	}
	return out, nil
}

func patchesFromList(raw any) ([]federation.Patch, error) {
	list, _ := raw.([]any)
	patches := make([]federation.Patch, 0, len(list))
	for j, e := range list {
		m, _ := e.(map[string]any)
		p := federation.Patch{}
		p.Op, _ = m["op"].(string)
		p.Path, _ = m["path"].(string)
		if v, ok := m["value"]; ok {
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("clusterOverrides[%d].value: %w", j, err)
			}
			p.Value = string(raw)
		}
		patches = append(patches, p)
	}
	return patches, nil
}

func statusList(status map[string]string) []any {
	out := make([]any, 0, len(status))
	for _, name := range slices.Sorted(maps.Keys(status)) {
		out = append(out, map[string]any{"name": name, "status": status[name]})
	}
	return out
}
