package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/listcache"
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

// IncompleteCreateAnnotation marks a Federated<Kind> whose create has not
// completed, with ContentDigest of what the create wrote: a create that
// was cut off (the process killed after the host write), or that failed
// on some clusters. A later create of the same object finds the mark and
// knows the record for its own. Versions before the digest wrote "true".
//
//	who                                  what
//	the create of kubefed_federated_     writes it with the spec, before any member answers
//	object (writeSpec)
//	the same create, once every cluster  removes it: the spec is applied again without it
//	is written (writeRecord)
//	a later create's plan and apply      reads it: a record of the same digest is completed, one
//	(refuseExisting)                     of another digest is taken over only when the run's
//	                                     state holds the object (a tainted create replaced),
//	                                     a record without the mark is refused
const IncompleteCreateAnnotation = "kubefed.terraform.io/incomplete-create"

// TemplateTextAnnotation holds the template's text as the configuration
// wrote it (YAML or JSON, in its own key order and number forms), so that an
// import takes the configuration's text back and plans no change. It is
// left out when the text would take the object's annotations past
// templateTextBudget (the API server refuses more than 256 KiB of them).
//
//	who                                  what
//	the apply of kubefed_federated_      writes it with the spec, for a template of its own
//	object (objectset.Object.HostObject) (not a Secret's, not an application's object)
//	an import, and a refresh that finds  reads it, and takes it only when it means the
//	the host's template changed          host's template (objectset.TemplateFromHost)
//	(objectset.TemplateFromHost)
//	KubeFed, kubectl                     keep it, or drop it: a record without it imports in
//	                                     jsonencode's form
const TemplateTextAnnotation = "kubefed.terraform.io/template-text"

// templateTextBudget bounds the provider's annotations of one record with
// the template's text, half of what the API server takes, leaving the rest
// to other writers' annotations.
const templateTextBudget = 128 << 10

// ApplicationLabel names, on a Federated<Kind>, the application
// (kubefed_federated_application) the object belongs to.
const ApplicationLabel = "kubefed.terraform.io/application"

// ContentDigest is what a create's IncompleteCreateAnnotation holds: a
// SHA-256 digest of the object's template, placement and overrides, so that
// a later create tells a record of its own content from another's.
func ContentDigest(obj FederatedObject) (string, error) {
	raw, err := json.Marshal(struct {
		Template  map[string]any            `json:"template"`
		Placement federation.Placement      `json:"placement"`
		Overrides []federation.OverrideRule `json:"overrides"`
	}{obj.Template, obj.Placement, obj.Overrides})
	if err != nil {
		return "", fmt.Errorf("digest of %s: %w", objectKey(obj.Namespace, obj.Name), err)
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

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
	// Application is the name of the application the object belongs to,
	// recorded as the ApplicationLabel; empty for an object of its own.
	Application string
	// TemplateText is the template as the configuration wrote it, recorded
	// as the TemplateTextAnnotation; empty for none.
	TemplateText string
	// Incomplete marks an object whose create has not completed, and
	// CreatedFrom is the ContentDigest that create wrote ("true" from
	// versions before the digest).
	Incomplete  bool
	CreatedFrom string
	// Writers are the field managers that wrote the record, sorted, as the
	// host reports them: who to ask about a record a create did not expect.
	Writers []string
	// Status is each cluster's propagation status, KubeFed's status.clusters.
	Status map[string]string
	// RemoteStatus is, with status collection, each cluster's own status
	// of the object, KubeFed's status.clusters[].remoteStatus.
	RemoteStatus map[string]map[string]any
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

// ApplyFederatedStatus writes the status of obj, which must exist.
func (r *Registry) ApplyFederatedStatus(ctx context.Context, t FederatedType, obj FederatedObject) error {
	status, err := toUnstructured(&federatedObject{
		TypeMeta:   typeMeta(t.Federated.Resource().GroupVersion(), t.Federated.Kind),
		ObjectMeta: metav1.ObjectMeta{Name: obj.Name, Namespace: obj.Namespace},
		Status:     &federatedStatus{Clusters: statusList(obj.Status, obj.RemoteStatus)},
	})
	if err != nil {
		return err
	}
	delete(status.Object, "spec")
	defer r.reads.Forget(federatedScope(t, obj.Namespace), obj.Name)
	if _, err := r.federatedClient(t, obj.Namespace).ApplyStatus(ctx, obj.Name, status, r.applyOptions()); err != nil {
		return fmt.Errorf("writing the status of %s %s in the host: %w", t.Federated.Kind, objectKey(obj.Namespace, obj.Name), err)
	}
	return nil
}

// ApplyFederatedSpec writes obj without its status.
func (r *Registry) ApplyFederatedSpec(ctx context.Context, t FederatedType, obj FederatedObject) error {
	defer r.reads.Forget(federatedScope(t, obj.Namespace), obj.Name)
	u, err := federatedObjectToUnstructured(t, obj)
	if err != nil {
		return err
	}
	if _, err := r.federatedClient(t, obj.Namespace).Apply(ctx, obj.Name, u, r.applyOptions()); err != nil {
		return fmt.Errorf("writing %s %s in the host: %w", t.Federated.Kind, objectKey(obj.Namespace, obj.Name), err)
	}
	return nil
}

// GetFederatedObject reads a Federated<Kind>, whether the provider or KubeFed
// wrote it. It returns ErrNotFound when it does not exist.
// With reads set (WithReads), it answers from the run's list of the
// namespace's Federated<Kind> objects.
func (r *Registry) GetFederatedObject(ctx context.Context, t FederatedType, namespace, name string) (*FederatedObject, error) {
	u, found, err := r.reads.Get(ctx, federatedScope(t, namespace), r.federatedClient(t, namespace), name)
	if err != nil {
		return nil, fmt.Errorf("reading %s %s of the host: %w", t.Federated.Kind, objectKey(namespace, name), err)
	}
	if !found {
		return nil, fmt.Errorf("%s %s: %w", t.Federated.Kind, objectKey(namespace, name), ErrNotFound)
	}
	return federatedObjectFromUnstructured(u)
}

// FindFederatedObject is GetFederatedObject for a check that guards a
// create: with reads set, an object the run's list lacks is not read again
// by name (see listcache.Cache.GetListed).
func (r *Registry) FindFederatedObject(ctx context.Context, t FederatedType, namespace, name string) (*FederatedObject, error) {
	u, found, err := r.reads.GetListed(ctx, federatedScope(t, namespace), r.federatedClient(t, namespace), name)
	if err != nil {
		return nil, fmt.Errorf("reading %s %s of the host: %w", t.Federated.Kind, objectKey(namespace, name), err)
	}
	if !found {
		return nil, fmt.Errorf("%s %s: %w", t.Federated.Kind, objectKey(namespace, name), ErrNotFound)
	}
	return federatedObjectFromUnstructured(u)
}

// ApplicationObjects lists, in every namespace, the Federated<Kind> objects
// of type t that belong to the application called name.
func (r *Registry) ApplicationObjects(ctx context.Context, t FederatedType, name string) ([]FederatedObject, error) {
	list, err := r.dynamic.Resource(t.Federated.Resource()).List(ctx, metav1.ListOptions{LabelSelector: ApplicationLabel + "=" + name})
	if err != nil {
		return nil, fmt.Errorf("listing the %s objects of application %q in the host: %w", t.Federated.Kind, name, err)
	}
	var out []FederatedObject
	for i := range list.Items {
		obj, err := federatedObjectFromUnstructured(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *obj)
	}
	return out, nil
}

// PrefetchFederatedObjects starts one list of type t's Federated<Kind>
// objects in every namespace, which then answers the run's reads of them
// in any namespace (listcache.Prefetch says when it does not).
func (r *Registry) PrefetchFederatedObjects(ctx context.Context, t FederatedType) {
	r.reads.Prefetch(ctx, federatedScope(t, ""), r.dynamic.Resource(t.Federated.Resource()))
}

// federatedScope is the list of a namespace's Federated<Kind> objects.
func federatedScope(t FederatedType, namespace string) listcache.Scope {
	return listcache.Scope{Resource: t.Federated.Resource(), Namespace: namespace}
}

// DeleteFederatedObject removes a Federated<Kind>; one already gone is fine.
func (r *Registry) DeleteFederatedObject(ctx context.Context, t FederatedType, namespace, name string) error {
	defer r.reads.Forget(federatedScope(t, namespace), name)
	err := r.federatedClient(t, namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s %s of the host: %w", t.Federated.Kind, objectKey(namespace, name), err)
	}
	return nil
}

func (r *Registry) federatedClient(t FederatedType, namespace string) dynamic.ResourceInterface {
	if namespace == "" {
		return r.dynamic.Resource(t.Federated.Resource())
	}
	return r.dynamic.Resource(t.Federated.Resource()).Namespace(namespace)
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func federatedObjectToUnstructured(t FederatedType, obj FederatedObject) (*unstructured.Unstructured, error) {
	fo := federatedObject{
		TypeMeta:   typeMeta(t.Federated.Resource().GroupVersion(), t.Federated.Kind),
		ObjectMeta: metav1.ObjectMeta{Name: obj.Name, Namespace: obj.Namespace},
		Spec:       federatedSpec{Placement: federatedPlacement{ClusterSelector: obj.Placement.Selector}},
	}
	if obj.Placement.Clusters != nil {
		fo.Spec.Placement.Clusters = []placementCluster{}
		for _, c := range obj.Placement.Clusters {
			fo.Spec.Placement.Clusters = append(fo.Spec.Placement.Clusters, placementCluster{Name: c})
		}
	}
	var bySelector []selectorOverrides
	for i, rule := range obj.Overrides {
		patches, err := patchesToList(rule.Patches)
		if err != nil {
			return nil, fmt.Errorf("override rule %d: %w", i, err)
		}
		if rule.Selector != nil {
			bySelector = append(bySelector, selectorOverrides{Index: i, ClusterSelector: rule.Selector, ClusterOverrides: patches})
			continue
		}
		fo.Spec.Overrides = append(fo.Spec.Overrides, clusterOverrides{ClusterName: rule.Cluster, ClusterOverrides: patches})
	}
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
	if obj.Incomplete {
		annotations[IncompleteCreateAnnotation] = obj.CreatedFrom
	}
	addTemplateText(annotations, obj.TemplateText)
	if len(annotations) > 0 {
		fo.Annotations = annotations
	}
	if obj.Application != "" {
		fo.Labels = map[string]string{ApplicationLabel: obj.Application}
	}
	u, err := toUnstructured(&fo)
	if err != nil {
		return nil, err
	}
	if obj.Placement.Clusters != nil && len(obj.Placement.Clusters) == 0 {
		// Kept, where the converter leaves an empty list out: clusters = []
		// reads back as written, not as no placement at all.
		u.Object["spec"].(map[string]any)["placement"].(map[string]any)["clusters"] = []any{}
	}
	if obj.Template != nil {
		// Set as it is: the converter would turn the template's exact
		// numbers (json.Number) into strings.
		u.Object["spec"].(map[string]any)["template"] = obj.Template
	}
	return u, nil
}

// addTemplateText records the template's text among the annotations when
// they stay within templateTextBudget with it.
func addTemplateText(annotations map[string]string, text string) {
	if text == "" {
		return
	}
	size := len(TemplateTextAnnotation) + len(text)
	for k, v := range annotations {
		size += len(k) + len(v)
	}
	if size <= templateTextBudget {
		annotations[TemplateTextAnnotation] = text
	}
}

func federatedObjectFromUnstructured(u *unstructured.Unstructured) (*FederatedObject, error) {
	var fo federatedObject
	if err := fromUnstructured(u, &fo); err != nil {
		return nil, err
	}
	obj := &FederatedObject{Namespace: fo.Namespace, Name: fo.Name, Template: fo.Spec.Template,
		Orphan: fo.Annotations[OrphanAnnotation] == "true", Writers: writersOf(u), Application: fo.Labels[ApplicationLabel]}
	obj.CreatedFrom, obj.Incomplete = fo.Annotations[IncompleteCreateAnnotation]
	obj.TemplateText = fo.Annotations[TemplateTextAnnotation]
	where := fmt.Sprintf("%s %s", u.GetKind(), objectKey(obj.Namespace, obj.Name))
	if fo.Spec.Placement.Clusters != nil {
		obj.Placement.Clusters = []string{}
		for _, c := range fo.Spec.Placement.Clusters {
			obj.Placement.Clusters = append(obj.Placement.Clusters, c.Name)
		}
	}
	obj.Placement.Selector = fo.Spec.Placement.ClusterSelector
	for i, o := range fo.Spec.Overrides {
		patches, err := patchesFromList(o.ClusterOverrides)
		if err != nil {
			return nil, fmt.Errorf("%s: spec.overrides[%d]: %w", where, i, err)
		}
		obj.Overrides = append(obj.Overrides, federation.OverrideRule{Cluster: o.ClusterName, Patches: patches})
	}
	if raw := fo.Annotations[SelectorOverridesAnnotation]; raw != "" {
		var bySelector []selectorOverrides
		if err := json.Unmarshal([]byte(raw), &bySelector); err != nil {
			return nil, fmt.Errorf("%s: annotation %s: %w", where, SelectorOverridesAnnotation, err)
		}
		for _, s := range bySelector {
			patches, err := patchesFromList(s.ClusterOverrides)
			if err != nil {
				return nil, fmt.Errorf("%s: annotation %s, rule %d: %w", where, SelectorOverridesAnnotation, s.Index, err)
			}
			selector := s.ClusterSelector
			if selector == nil {
				selector = &metav1.LabelSelector{}
			}
			rule := federation.OverrideRule{Selector: selector, Patches: patches}
			at := min(max(s.Index, 0), len(obj.Overrides))
			obj.Overrides = slices.Insert(obj.Overrides, at, rule)
		}
	}
	if fo.Status != nil {
		for _, s := range fo.Status.Clusters {
			if s.Name == "" {
				continue
			}
			if obj.Status == nil {
				obj.Status = map[string]string{}
			}
			obj.Status[s.Name] = s.Status
			if s.RemoteStatus != nil {
				if obj.RemoteStatus == nil {
					obj.RemoteStatus = map[string]map[string]any{}
				}
				obj.RemoteStatus[s.Name] = s.RemoteStatus
			}
		}
	}
	return obj, nil
}

// writersOf are the field managers of u's managedFields, sorted, once each.
func writersOf(u *unstructured.Unstructured) []string {
	var out []string
	for _, e := range u.GetManagedFields() {
		if e.Manager != "" {
			out = append(out, e.Manager)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// patchesToList turns patches into KubeFed's clusterOverrides, whose values
// are JSON values rather than JSON text.
func patchesToList(patches []federation.Patch) ([]patchOverride, error) {
	out := make([]patchOverride, 0, len(patches))
	for j, p := range patches {
		entry := patchOverride{Op: p.Op, Path: p.Path}
		if p.Value != "" {
			v, err := jsonValue(p.Value)
			if err != nil {
				return nil, fmt.Errorf("patch %d: value is not JSON: %w", j, err)
			}
			entry.Value = v
		}
		out = append(out, entry)
	}
	return out, nil
}

func patchesFromList(list []patchOverride) ([]federation.Patch, error) {
	patches := make([]federation.Patch, 0, len(list))
	for j, e := range list {
		p := federation.Patch{Op: e.Op, Path: e.Path}
		if e.Value != nil {
			raw, err := json.Marshal(e.Value)
			if err != nil {
				return nil, fmt.Errorf("clusterOverrides[%d].value: %w", j, err)
			}
			p.Value = string(raw)
		}
		patches = append(patches, p)
	}
	return patches, nil
}

// jsonValue decodes JSON text into the values the unstructured converter
// takes: integers as int64, other numbers as float64.
func jsonValue(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value in %q", text)
	}
	return unstructuredNumbers(v), nil
}

func unstructuredNumbers(v any) any {
	switch node := v.(type) {
	case map[string]any:
		for k, child := range node {
			node[k] = unstructuredNumbers(child)
		}
	case []any:
		for i, child := range node {
			node[i] = unstructuredNumbers(child)
		}
	case json.Number:
		if i, err := node.Int64(); err == nil {
			return i
		}
		f, _ := node.Float64()
		return f
	}
	return v
}

func statusList(status map[string]string, remote map[string]map[string]any) []clusterPropagationStatus {
	out := make([]clusterPropagationStatus, 0, len(status))
	for _, name := range slices.Sorted(maps.Keys(status)) {
		out = append(out, clusterPropagationStatus{Name: name, Status: status[name], RemoteStatus: remote[name]})
	}
	return out
}
