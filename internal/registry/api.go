package registry

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The host's objects as KubeFed defines them, with KubeFed's field names:
// what the registry writes and reads, converted to and from the dynamic
// client's unstructured objects by apimachinery's converter. Only the fields
// the provider uses are declared; an object written by KubeFed keeps the
// others, since writes are server-side applies of what is declared here.

// kubeFedCluster is a core.kubefed.io/v1beta1 KubeFedCluster.
type kubeFedCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              kubeFedClusterSpec    `json:"spec"`
	Status            *kubeFedClusterStatus `json:"status,omitempty"`
}

type kubeFedClusterSpec struct {
	APIEndpoint            string               `json:"apiEndpoint"`
	CABundle               []byte               `json:"caBundle,omitempty"`
	SecretRef              localSecretReference `json:"secretRef"`
	DisabledTLSValidations []string             `json:"disabledTLSValidations,omitempty"`
	ProxyURL               string               `json:"proxyURL,omitempty"`
}

type localSecretReference struct {
	Name string `json:"name"`
}

type kubeFedClusterStatus struct {
	Conditions        []clusterCondition `json:"conditions"`
	KubernetesVersion string             `json:"kubernetesVersion,omitempty"`
}

type clusterCondition struct {
	Type               string       `json:"type"`
	Status             string       `json:"status"`
	LastProbeTime      metav1.Time  `json:"lastProbeTime"`
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
	Reason             string       `json:"reason,omitempty"`
	Message            string       `json:"message,omitempty"`
}

// federatedTypeConfig is a core.kubefed.io/v1beta1 FederatedTypeConfig.
type federatedTypeConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              federatedTypeConfigSpec `json:"spec"`
}

type federatedTypeConfigSpec struct {
	TargetType       apiResourceSpec `json:"targetType"`
	FederatedType    apiResourceSpec `json:"federatedType"`
	Propagation      string          `json:"propagation"`
	StatusCollection string          `json:"statusCollection,omitempty"`
}

type apiResourceSpec struct {
	Group      string `json:"group,omitempty"`
	Version    string `json:"version"`
	Kind       string `json:"kind"`
	PluralName string `json:"pluralName"`
	Scope      string `json:"scope"`
}

// replicaSchedulingPreference is a scheduling.kubefed.io/v1alpha1
// ReplicaSchedulingPreference, with the status this provider adds.
type replicaSchedulingPreference struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              rspSpec    `json:"spec"`
	Status            *rspStatus `json:"status,omitempty"`
}

type rspSpec struct {
	TargetKind                   string                       `json:"targetKind"`
	TotalReplicas                int64                        `json:"totalReplicas"`
	Rebalance                    bool                         `json:"rebalance"`
	IntersectWithClusterSelector bool                         `json:"intersectWithClusterSelector"`
	Clusters                     map[string]clusterPreference `json:"clusters"`
}

type clusterPreference struct {
	MinReplicas int64  `json:"minReplicas"`
	MaxReplicas *int64 `json:"maxReplicas,omitempty"`
	Weight      int64  `json:"weight"`
}

type rspStatus struct {
	Replicas         map[string]int64  `json:"replicas"`
	UnplacedReplicas int64             `json:"unplacedReplicas"`
	ExcludedClusters map[string]string `json:"excludedClusters"`
}

// federatedObject is a types.kubefed.io/v1beta1 Federated<Kind>.
type federatedObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              federatedSpec    `json:"spec"`
	Status            *federatedStatus `json:"status,omitempty"`
}

type federatedSpec struct {
	Template  map[string]any     `json:"template,omitempty"`
	Placement federatedPlacement `json:"placement"`
	Overrides []clusterOverrides `json:"overrides,omitempty"`
}

type federatedPlacement struct {
	Clusters        []placementCluster    `json:"clusters,omitempty"`
	ClusterSelector *metav1.LabelSelector `json:"clusterSelector,omitempty"`
}

type placementCluster struct {
	Name string `json:"name"`
}

type clusterOverrides struct {
	ClusterName      string          `json:"clusterName,omitempty"`
	ClusterOverrides []patchOverride `json:"clusterOverrides"`
}

// selectorOverrides is one rule of the SelectorOverridesAnnotation.
type selectorOverrides struct {
	Index            int                   `json:"index"`
	ClusterSelector  *metav1.LabelSelector `json:"clusterSelector"`
	ClusterOverrides []patchOverride       `json:"clusterOverrides"`
}

type patchOverride struct {
	Op    string `json:"op,omitempty"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

type federatedStatus struct {
	Clusters []clusterPropagationStatus `json:"clusters"`
}

type clusterPropagationStatus struct {
	Name         string         `json:"name"`
	Status       string         `json:"status,omitempty"`
	RemoteStatus map[string]any `json:"remoteStatus,omitempty"`
}

// toUnstructured converts a typed host object for the dynamic client.
func toUnstructured(obj any) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding a host object: %w", err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// fromUnstructured converts what the dynamic client read into a typed host
// object, naming the object when it does not fit the type.
func fromUnstructured(u *unstructured.Unstructured, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		return fmt.Errorf("%s %s of the host is malformed: %w", u.GetKind(), objectKey(u.GetNamespace(), u.GetName()), err)
	}
	return nil
}

func typeMeta(gv fmt.Stringer, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: gv.String(), Kind: kind}
}
