package registry

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
)

// Keys of a member's credential Secret. KubeFed reads "token"; a client
// certificate uses the keys of a kubernetes.io/tls Secret.
const (
	SecretKeyToken             = "token"
	SecretKeyClientCertificate = corev1.TLSCertKey
	SecretKeyClientKey         = corev1.TLSPrivateKeyKey
)

// ErrNotFound is returned when the object asked for is not in the host.
var ErrNotFound = errors.New("not found in the host")

// Cluster is a registered member cluster: its KubeFedCluster, the
// credentials of its Secret and its last recorded health.
type Cluster struct {
	Name       string
	Labels     map[string]string
	SecretName string
	Connection Connection
	Health     ClusterHealth
}

// ClusterHealth is the health a KubeFedCluster's status records.
type ClusterHealth struct {
	Ready             bool
	Offline           bool
	Reason            string
	Message           string
	KubernetesVersion string
}

// SecretNameFor is the name of the credential Secret the provider creates
// for a cluster it registers. Clusters registered by KubeFed keep theirs.
func SecretNameFor(cluster string) string {
	return cluster + "-credentials"
}

// ApplyCluster writes the credential Secret and the KubeFedCluster of c
// with server-side apply. Fields the provider applied before and no longer
// applies (a label, the token after a switch to a certificate) are removed.
func (r *Registry) ApplyCluster(ctx context.Context, c Cluster) error {
	data := map[string][]byte{}
	if c.Connection.Token != "" {
		data[SecretKeyToken] = []byte(c.Connection.Token)
	}
	if len(c.Connection.ClientCertificate) > 0 {
		data[SecretKeyClientCertificate] = c.Connection.ClientCertificate
		data[SecretKeyClientKey] = c.Connection.ClientKey
	}
	secret := corev1apply.Secret(c.SecretName, r.namespace).WithType(corev1.SecretTypeOpaque).WithData(data)
	if _, err := r.kubernetes.CoreV1().Secrets(r.namespace).Apply(ctx, secret, r.applyOptions()); err != nil {
		return fmt.Errorf("writing Secret %s/%s of cluster %q in the host: %w", r.namespace, c.SecretName, c.Name, err)
	}

	spec := map[string]any{
		"apiEndpoint": c.Connection.APIEndpoint,
		"secretRef":   map[string]any{"name": c.SecretName},
	}
	if len(c.Connection.CABundle) > 0 {
		spec["caBundle"] = base64.StdEncoding.EncodeToString(c.Connection.CABundle)
	}
	if len(c.Connection.DisabledTLSValidations) > 0 {
		validations := make([]any, 0, len(c.Connection.DisabledTLSValidations))
		for _, v := range c.Connection.DisabledTLSValidations {
			validations = append(validations, v)
		}
		spec["disabledTLSValidations"] = validations
	}
	if c.Connection.ProxyURL != "" {
		spec["proxyURL"] = c.Connection.ProxyURL
	}
	obj := kubeFedClusterObject(c.Name, r.namespace)
	if len(c.Labels) > 0 {
		obj.SetLabels(c.Labels)
	}
	obj.Object["spec"] = spec
	if _, err := r.clusters().Apply(ctx, c.Name, obj, r.applyOptions()); err != nil {
		return fmt.Errorf("writing KubeFedCluster %s/%s in the host: %w", r.namespace, c.Name, err)
	}
	return nil
}

// GetCluster reads a registered cluster with its credentials. It returns
// ErrNotFound when the KubeFedCluster does not exist; a missing Secret
// leaves the credentials empty.
func (r *Registry) GetCluster(ctx context.Context, name string) (*Cluster, error) {
	obj, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("KubeFedCluster %s/%s: %w", r.namespace, name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading KubeFedCluster %s/%s of the host: %w", r.namespace, name, err)
	}
	c := clusterFromObject(obj)
	if c.SecretName == "" {
		return c, nil
	}
	secret, err := r.kubernetes.CoreV1().Secrets(r.namespace).Get(ctx, c.SecretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s/%s of cluster %q in the host: %w", r.namespace, c.SecretName, name, err)
	default:
		c.Connection.Token = string(secret.Data[SecretKeyToken])
		c.Connection.ClientCertificate = secret.Data[SecretKeyClientCertificate]
		c.Connection.ClientKey = secret.Data[SecretKeyClientKey]
	}
	return c, nil
}

// DeleteCluster removes the KubeFedCluster and its Secret. What is already
// gone is not an error.
func (r *Registry) DeleteCluster(ctx context.Context, name, secretName string) error {
	if err := r.clusters().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting KubeFedCluster %s/%s of the host: %w", r.namespace, name, err)
	}
	if secretName == "" {
		return nil
	}
	err := r.kubernetes.CoreV1().Secrets(r.namespace).Delete(ctx, secretName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting Secret %s/%s of cluster %q in the host: %w", r.namespace, secretName, name, err)
	}
	return nil
}

// WriteHealth records a probe in the KubeFedCluster's status, through the
// status subresource, with KubeFed's conditions: Ready and Offline, each
// with its probe time and the time its status last changed. It returns the
// health as recorded, which keeps the last known version of a cluster that
// does not answer.
func (r *Registry) WriteHealth(ctx context.Context, name string, probe ProbeResult) (ClusterHealth, error) {
	health := ClusterHealth{
		Ready: probe.Ready, Offline: probe.Offline, Reason: probe.Reason, Message: probe.Message,
		KubernetesVersion: probe.KubernetesVersion,
	}
	current, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return health, fmt.Errorf("reading KubeFedCluster %s/%s of the host: %w", r.namespace, name, err)
	}
	previous := map[string]map[string]any{}
	conditions, _, _ := unstructured.NestedSlice(current.Object, "status", "conditions")
	for _, c := range conditions {
		if condition, ok := c.(map[string]any); ok {
			if kind, ok := condition["type"].(string); ok {
				previous[kind] = condition
			}
		}
	}
	if health.KubernetesVersion == "" {
		health.KubernetesVersion, _, _ = unstructured.NestedString(current.Object, "status", "kubernetesVersion")
	}

	probeTime := probe.Time.Format(time.RFC3339)
	condition := func(kind string, isTrue bool, reason, message string) any {
		status := string(corev1.ConditionFalse)
		if isTrue {
			status = string(corev1.ConditionTrue)
		}
		transition := probeTime
		if old, ok := previous[kind]; ok && old["status"] == status {
			if t, ok := old["lastTransitionTime"].(string); ok && t != "" {
				transition = t
			}
		}
		c := map[string]any{"type": kind, "status": status, "lastProbeTime": probeTime, "lastTransitionTime": transition}
		if reason != "" {
			c["reason"] = reason
		}
		if message != "" {
			c["message"] = message
		}
		return c
	}
	offlineReason, offlineMessage := "", ""
	if probe.Offline {
		offlineReason, offlineMessage = probe.Reason, probe.Message
	}
	status := map[string]any{
		"conditions": []any{
			condition("Ready", probe.Ready, probe.Reason, probe.Message),
			condition("Offline", probe.Offline, offlineReason, offlineMessage),
		},
	}
	if health.KubernetesVersion != "" {
		status["kubernetesVersion"] = health.KubernetesVersion
	}
	obj := kubeFedClusterObject(name, r.namespace)
	obj.Object["status"] = status
	if _, err := r.clusters().ApplyStatus(ctx, name, obj, r.applyOptions()); err != nil {
		return health, fmt.Errorf("writing the status of KubeFedCluster %s/%s in the host: %w", r.namespace, name, err)
	}
	return health, nil
}

func (r *Registry) clusters() dynamicResource {
	return r.dynamic.Resource(KubeFedClusterResource).Namespace(r.namespace)
}

func (r *Registry) applyOptions() metav1.ApplyOptions {
	// Force: the provider is the owner of what it applies; a field last set
	// by kubectl or kubefedctl is taken over rather than failing the apply.
	return metav1.ApplyOptions{FieldManager: r.fieldManager, Force: true}
}

func kubeFedClusterObject(name, namespace string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{}}
	obj.SetAPIVersion(KubeFedClusterResource.GroupVersion().String())
	obj.SetKind("KubeFedCluster")
	obj.SetName(name)
	obj.SetNamespace(namespace)
	return obj
}

func clusterFromObject(obj *unstructured.Unstructured) *Cluster {
	record := clusterRecord(obj)
	c := &Cluster{
		Name:   obj.GetName(),
		Labels: obj.GetLabels(),
		Health: ClusterHealth{
			Ready: record.Ready, Offline: record.Offline, KubernetesVersion: record.KubernetesVersion,
		},
	}
	c.Connection.APIEndpoint = record.APIEndpoint
	c.SecretName, _, _ = unstructured.NestedString(obj.Object, "spec", "secretRef", "name")
	c.Connection.ProxyURL, _, _ = unstructured.NestedString(obj.Object, "spec", "proxyURL")
	c.Connection.DisabledTLSValidations, _, _ = unstructured.NestedStringSlice(obj.Object, "spec", "disabledTLSValidations")
	if encoded, _, _ := unstructured.NestedString(obj.Object, "spec", "caBundle"); encoded != "" {
		if decoded, err := base64.StdEncoding.DecodeString(encoded); err == nil {
			c.Connection.CABundle = decoded
		}
	}
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, raw := range conditions {
		condition, ok := raw.(map[string]any)
		if !ok || condition["type"] != "Ready" {
			continue
		}
		c.Health.Reason, _ = condition["reason"].(string)
		c.Health.Message, _ = condition["message"].(string)
	}
	return c
}
