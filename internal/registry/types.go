package registry

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"text/template"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// FederatedGroup and FederatedVersion are where the Federated<Kind> types
// live, as in KubeFed.
const (
	FederatedGroup   = "types.kubefed.io"
	FederatedVersion = "v1beta1"
)

// Propagation and status collection settings of a FederatedTypeConfig.
const (
	Enabled  = "Enabled"
	Disabled = "Disabled"
)

// ErrUnresolvedType is returned when the host cannot say what a type's
// plural and scope are.
var ErrUnresolvedType = errors.New("type not served by the host")

// APIResource names one API type, as a FederatedTypeConfig does.
type APIResource struct {
	Group      string
	Version    string
	Kind       string
	Plural     string
	Namespaced bool
}

// APIVersion is group/version, or the version alone for the core group.
func (a APIResource) APIVersion() string {
	return schema.GroupVersion{Group: a.Group, Version: a.Version}.String()
}

// Resource is the type's group, version and plural.
func (a APIResource) Resource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: a.Group, Version: a.Version, Resource: a.Plural}
}

func (a APIResource) scope() string {
	if a.Namespaced {
		return "Namespaced"
	}
	return "Cluster"
}

// FederatedType is an enabled type: its FederatedTypeConfig and the
// Federated<Kind> type that carries its template, placement and overrides.
type FederatedType struct {
	Target           APIResource
	Federated        APIResource
	Propagation      string
	StatusCollection string
}

// Name is the FederatedTypeConfig's name: <plural>.<group>, or the plural
// alone for the core group.
func (t FederatedType) Name() string {
	return TypeConfigName(t.Target.Plural, t.Target.Group)
}

// TypeConfigName is the name KubeFed gives the FederatedTypeConfig of a
// target type.
func TypeConfigName(plural, group string) string {
	if group == "" {
		return plural
	}
	return plural + "." + group
}

// NewFederatedType derives the federated type of a target as KubeFed does:
// kind Federated<Kind>, plural federated<plural>, in types.kubefed.io/v1beta1,
// with the target's scope, except FederatedNamespace, which is namespaced
// so that it lives in the namespace it federates.
func NewFederatedType(target APIResource, propagation, statusCollection string) FederatedType {
	federated := APIResource{
		Group:      FederatedGroup,
		Version:    FederatedVersion,
		Kind:       "Federated" + target.Kind,
		Plural:     "federated" + target.Plural,
		Namespaced: target.Namespaced || (target.Group == "" && target.Kind == "Namespace"),
	}
	return FederatedType{Target: target, Federated: federated, Propagation: propagation, StatusCollection: statusCollection}
}

// ResolveTarget finds the plural and scope of kind in apiVersion through the
// host's discovery. Values the caller already knows (a non-empty plural, a
// non-nil namespaced) are kept and not looked up, so a type the host does
// not serve (a CRD installed only on members) can be described in full.
func (r *Registry) ResolveTarget(apiVersion, kind, plural string, namespaced *bool) (APIResource, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return APIResource{}, fmt.Errorf("target_api_version %q: %w", apiVersion, err)
	}
	target := APIResource{Group: gv.Group, Version: gv.Version, Kind: kind, Plural: plural}
	if plural != "" && namespaced != nil {
		target.Namespaced = *namespaced
		return target, nil
	}
	resources, err := r.discovery.ServerResourcesForGroupVersion(apiVersion)
	// The cached discovery of the provider's clients answers ErrCacheNotFound
	// for a group version the host does not serve.
	if err != nil && !apierrors.IsNotFound(err) && !errors.Is(err, memory.ErrCacheNotFound) {
		return APIResource{}, fmt.Errorf("discovering %s on the host: %w", apiVersion, err)
	}
	if resources != nil {
		for _, res := range resources.APIResources {
			if res.Kind != kind || strings.Contains(res.Name, "/") || (plural != "" && res.Name != plural) {
				continue
			}
			target.Plural = res.Name
			target.Namespaced = res.Namespaced
			if namespaced != nil {
				target.Namespaced = *namespaced
			}
			return target, nil
		}
	}
	return APIResource{}, fmt.Errorf("the host does not serve kind %s in %s: %w", kind, apiVersion, ErrUnresolvedType)
}

// ApplyType installs the Federated<Kind> CRD unless it exists, waits until
// it is served, and writes the FederatedTypeConfig.
func (r *Registry) ApplyType(ctx context.Context, t FederatedType) error {
	crd, err := FederatedCRD(t.Federated)
	if err != nil {
		return err
	}
	if err := r.ensureCRD(ctx, crd); err != nil {
		return err
	}
	obj, err := toUnstructured(&federatedTypeConfig{
		TypeMeta:   typeMeta(FederatedTypeConfigResource.GroupVersion(), "FederatedTypeConfig"),
		ObjectMeta: metav1.ObjectMeta{Name: t.Name(), Namespace: r.namespace},
		Spec: federatedTypeConfigSpec{
			TargetType:       t.Target.spec(),
			FederatedType:    t.Federated.spec(),
			Propagation:      t.Propagation,
			StatusCollection: t.StatusCollection,
		},
	})
	if err != nil {
		return err
	}
	if _, err := r.typeConfigs().Apply(ctx, t.Name(), obj, r.applyOptions()); err != nil {
		return fmt.Errorf("writing FederatedTypeConfig %s/%s in the host: %w", r.namespace, t.Name(), err)
	}
	return nil
}

// GetType reads the FederatedTypeConfig called name. It returns ErrNotFound
// when it does not exist.
func (r *Registry) GetType(ctx context.Context, name string) (*FederatedType, error) {
	u, err := r.typeConfigs().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("FederatedTypeConfig %s/%s: %w", r.namespace, name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading FederatedTypeConfig %s/%s of the host: %w", r.namespace, name, err)
	}
	return typeFromObject(u)
}

func typeFromObject(u *unstructured.Unstructured) (*FederatedType, error) {
	var obj federatedTypeConfig
	if err := fromUnstructured(u, &obj); err != nil {
		return nil, err
	}
	t := &FederatedType{
		Target:           apiResourceOf(obj.Spec.TargetType),
		Federated:        apiResourceOf(obj.Spec.FederatedType),
		Propagation:      obj.Spec.Propagation,
		StatusCollection: obj.Spec.StatusCollection,
	}
	if t.StatusCollection == "" {
		t.StatusCollection = Disabled
	}
	return t, nil
}

func (r *Registry) typeConfigs() dynamic.ResourceInterface {
	return r.dynamic.Resource(FederatedTypeConfigResource).Namespace(r.namespace)
}

// RemainingObjects lists, as namespace/name, the Federated<Kind> objects of
// the type that exist in the host.
func (r *Registry) RemainingObjects(ctx context.Context, t FederatedType) ([]string, error) {
	list, err := r.dynamic.Resource(t.Federated.Resource()).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s objects in the host: %w", t.Federated.Kind, err)
	}
	names := make([]string, 0, len(list.Items))
	for _, item := range list.Items {
		if item.GetNamespace() == "" {
			names = append(names, item.GetName())
		} else {
			names = append(names, item.GetNamespace()+"/"+item.GetName())
		}
	}
	sort.Strings(names)
	return names, nil
}

// DeleteType removes the FederatedTypeConfig and the Federated<Kind> CRD,
// and returns once the CRD is gone: the API server deletes a CRD in the
// background, and a type enabled again meanwhile would find it still being
// deleted. It refuses, and removes nothing, while Federated<Kind> objects
// remain: deleting the CRD would delete them with it.
func (r *Registry) DeleteType(ctx context.Context, t FederatedType) error {
	remaining, err := r.RemainingObjects(ctx, t)
	if err != nil {
		return err
	}
	if n := len(remaining); n > 0 {
		shown := remaining
		if n > 10 {
			shown = append(remaining[:10:10], "...")
		}
		return fmt.Errorf("%d %s object(s) remain in the host (%s); delete them first, then destroy the type",
			n, t.Federated.Kind, strings.Join(shown, ", "))
	}
	err = r.typeConfigs().Delete(ctx, t.Name(), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting FederatedTypeConfig %s/%s of the host: %w", r.namespace, t.Name(), err)
	}
	crdName := t.Federated.Plural + "." + t.Federated.Group
	err = r.dynamic.Resource(crdResource).Delete(ctx, crdName, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting CRD %s of the host: %w", crdName, err)
	}
	return r.waitCRDGone(ctx, crdName)
}

//go:embed crds/federated.yaml.tmpl
var federatedCRDTemplate string

var federatedCRD = template.Must(template.New("federated").Parse(federatedCRDTemplate))

// FederatedCRD is the CRD of a Federated<Kind> type: a template kept as
// given, a placement by names or label selector, per-cluster overrides as
// JSON patches, and a status the federation writes.
func FederatedCRD(federated APIResource) (*unstructured.Unstructured, error) {
	var text bytes.Buffer
	err := federatedCRD.Execute(&text, map[string]string{
		"Group": federated.Group, "Version": federated.Version, "Kind": federated.Kind,
		"Plural": federated.Plural, "Singular": strings.ToLower(federated.Kind), "Scope": federated.scope(),
	})
	if err != nil {
		return nil, fmt.Errorf("the CRD of %s: %w", federated.Kind, err)
	}
	obj := map[string]any{}
	if err := yaml.Unmarshal(text.Bytes(), &obj); err != nil {
		return nil, fmt.Errorf("the CRD of %s: %w", federated.Kind, err)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

func (a APIResource) spec() apiResourceSpec {
	return apiResourceSpec{Group: a.Group, Version: a.Version, Kind: a.Kind, PluralName: a.Plural, Scope: a.scope()}
}

func apiResourceOf(s apiResourceSpec) APIResource {
	return APIResource{Group: s.Group, Version: s.Version, Kind: s.Kind, Plural: s.PluralName, Namespaced: s.Scope == "Namespaced"}
}
