package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/dynamic"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
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

// ErrNoRegistry is returned when the host has no KubeFed cluster registry
// at all: neither KubeFed nor the provider installed its CRDs there.
var ErrNoRegistry = errors.New("it has no KubeFed cluster registry")

// Cluster is a registered member cluster: its KubeFedCluster, the
// credentials of its Secret and its last recorded health.
type Cluster struct {
	Name       string
	Labels     map[string]string
	SecretName string
	Connection member.Connection
	Health     ClusterHealth
	// Grants are what the federation may write on the member: limited to
	// the join's federated types for a cluster registered with join.
	Grants Grants
	// Identity is the UID of the member's kube-system namespace as its
	// registration read it; empty when it could not.
	Identity string
	// Read are the read credentials a registration writes beside its
	// credentials (ApplyReadCredentials); the clusters read from the host
	// leave it empty. HadRead says the registration had some before: an
	// update without them removes their Secret. A registration that never
	// had any leaves the read credentials' namespace alone, which its
	// identity may not be allowed to touch.
	Read    Credentials
	HadRead bool

	// recorded is the status the host held when the cluster was read:
	// a probe written over it keeps the transition times of conditions
	// that did not change.
	recorded *kubeFedClusterStatus
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

// RegisterCluster writes a new registration and records probe as its
// health: the KubeFedCluster first, so that a registration the host
// refuses writes nothing, then the credential Secret (and the read
// credentials, if any) and the cluster's status together. When a Secret
// cannot be written, the KubeFedCluster is removed again: a failed
// registration leaves no registration behind. A status that
// cannot be written leaves the registration in place and is reported as a
// *HealthNotRecordedError, with the health the probe found.
func (r *Registry) RegisterCluster(ctx context.Context, c Cluster, probe member.ProbeResult) (ClusterHealth, error) {
	if r.readOnly {
		return healthOfProbe(probe), ErrReadOnly
	}
	written, err := r.applyClusterObject(ctx, c)
	if err != nil {
		return healthOfProbe(probe), err
	}
	var health ClusterHealth
	var healthErr error
	var wg sync.WaitGroup
	wg.Go(func() { health, healthErr = r.WriteHealthOver(ctx, *written, probe) })
	err = r.applySecret(ctx, c)
	if err == nil && !c.Read.Empty() {
		err = r.ApplyReadCredentials(ctx, c.Name, c.Read)
	}
	wg.Wait()
	if err != nil {
		if derr := r.clusters().Delete(ctx, c.Name, metav1.DeleteOptions{}); derr != nil && !apierrors.IsNotFound(derr) {
			return health, fmt.Errorf("%w; removing the KubeFedCluster %s/%s written before failed too, remove it by hand: %w", err, r.namespace, c.Name, derr)
		}
		return health, err
	}
	return health, healthNotRecorded(healthErr)
}

// ApplyCluster rewrites a registration with server-side apply: its
// credential Secret and its read credentials (removed when it had some and
// has none now),
// then its KubeFedCluster, then the status that records probe. Fields the provider applied before and no longer applies (a label,
// the token after a switch to a certificate) are removed. A status that
// cannot be written is reported as for RegisterCluster.
func (r *Registry) ApplyCluster(ctx context.Context, c Cluster, probe member.ProbeResult) (ClusterHealth, error) {
	if r.readOnly {
		return healthOfProbe(probe), ErrReadOnly
	}
	if err := r.applySecret(ctx, c); err != nil {
		return healthOfProbe(probe), err
	}
	if !c.Read.Empty() || c.HadRead {
		if err := r.ApplyReadCredentials(ctx, c.Name, c.Read); err != nil {
			return healthOfProbe(probe), err
		}
	}
	written, err := r.applyClusterObject(ctx, c)
	if err != nil {
		return healthOfProbe(probe), err
	}
	health, err := r.WriteHealthOver(ctx, *written, probe)
	return health, healthNotRecorded(err)
}

// HealthNotRecordedError is a registration written whose health could not
// be recorded in its status.
type HealthNotRecordedError struct{ Err error }

func (e *HealthNotRecordedError) Error() string { return e.Err.Error() }
func (e *HealthNotRecordedError) Unwrap() error { return e.Err }

func healthNotRecorded(err error) error {
	if err == nil {
		return nil
	}
	return &HealthNotRecordedError{Err: err}
}

func (r *Registry) applySecret(ctx context.Context, c Cluster) error {
	data := Credentials{Token: c.Connection.Token, ClientCertificate: c.Connection.ClientCertificate,
		ClientKey: c.Connection.ClientKey}.secretData()
	connection, err := connectionAnnotation(c)
	if err != nil {
		return fmt.Errorf("recording the connection of cluster %q on its Secret: %w", c.Name, err)
	}
	secret := corev1apply.Secret(c.SecretName, r.namespace).WithType(corev1.SecretTypeOpaque).WithData(data).
		WithAnnotations(map[string]string{SecretConnectionAnnotation: connection})
	if _, err := r.kubernetes.CoreV1().Secrets(r.namespace).Apply(ctx, secret, r.applyOptions()); err != nil {
		return fmt.Errorf("writing Secret %s/%s of cluster %q in the host: %w", r.namespace, c.SecretName, c.Name, err)
	}
	return nil
}

// applyClusterObject writes c's KubeFedCluster and returns it as the host
// holds it after the write, with the status it had.
func (r *Registry) applyClusterObject(ctx context.Context, c Cluster) (*Cluster, error) {
	meta := metav1.ObjectMeta{Name: c.Name, Namespace: r.namespace, Labels: c.Labels, Annotations: clusterAnnotations(c)}
	obj, err := toUnstructured(&kubeFedCluster{
		TypeMeta:   typeMeta(KubeFedClusterResource.GroupVersion(), "KubeFedCluster"),
		ObjectMeta: meta,
		Spec: kubeFedClusterSpec{
			APIEndpoint:            c.Connection.APIEndpoint,
			CABundle:               c.Connection.CABundle,
			SecretRef:              localSecretReference{Name: c.SecretName},
			DisabledTLSValidations: c.Connection.DisabledTLSValidations,
			ProxyURL:               c.Connection.ProxyURL,
		},
	})
	if err != nil {
		return nil, err
	}
	u, err := r.clusters().Apply(ctx, c.Name, obj, r.applyOptions())
	if err != nil {
		return nil, fmt.Errorf("writing KubeFedCluster %s/%s in the host: %w", r.namespace, c.Name, err)
	}
	return clusterFromObject(u)
}

// GetCluster reads a registered cluster with its credentials. It returns
// ErrNotFound when the KubeFedCluster does not exist; a missing Secret
// leaves the credentials empty.
func (r *Registry) GetCluster(ctx context.Context, name string) (*Cluster, error) {
	u, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("KubeFedCluster %s/%s: %w", r.namespace, name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading KubeFedCluster %s/%s of the host: %w", r.namespace, name, err)
	}
	c, err := clusterFromObject(u)
	if err != nil {
		return c, err
	}
	namespace, secretName := r.credentialSecret(*c)
	if secretName == "" {
		return c, nil
	}
	secret, err := r.kubernetes.CoreV1().Secrets(namespace).Get(ctx, secretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s/%s of cluster %q in the host: %w", namespace, secretName, name, err)
	default:
		c.setCredentials(secret.Data)
	}
	return c, nil
}

// Registrations are the host's registered clusters, with their
// credentials, and the joins it records that were cut off before their
// cluster was registered (JoinAnnotation).
type Registrations struct {
	Clusters         []Cluster
	InterruptedJoins []JoinRecord
}

// Clusters reads every registered cluster, with its credentials, from the
// host (Registrations).
func (r *Registry) Clusters(ctx context.Context) ([]Cluster, error) {
	regs, err := r.Registrations(ctx)
	return regs.Clusters, err
}

// Registrations reads every registered cluster, with its credentials, and
// the interrupted joins from the host: a read-only registry lists the read
// credentials' namespace, and never the federation namespace's Secrets (so
// it finds no join). A host without the KubeFedCluster CRD has no clusters
// yet.
func (r *Registry) Registrations(ctx context.Context) (Registrations, error) {
	// The Secrets are listed beside the clusters, not after them: one round
	// trip to the host instead of two.
	var secrets *corev1.SecretList
	var secretsErr error
	var wg sync.WaitGroup
	namespace, _ := r.credentialSecret(Cluster{})
	wg.Go(func() {
		secrets, secretsErr = r.kubernetes.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{})
	})
	clusters, err := r.listClusters(ctx)
	wg.Wait()
	if err != nil {
		return Registrations{}, err
	}
	if secretsErr != nil && !apierrors.IsNotFound(secretsErr) {
		if len(clusters) == 0 {
			return Registrations{}, nil
		}
		return Registrations{}, fmt.Errorf("listing Secrets in namespace %q of the host: %w", namespace, secretsErr)
	}
	var items []corev1.Secret
	if secrets != nil {
		items = secrets.Items
	}
	data := map[string]map[string][]byte{}
	for _, s := range items {
		data[s.Name] = s.Data
	}
	for i := range clusters {
		_, name := r.credentialSecret(clusters[i])
		clusters[i].setCredentials(data[name])
	}
	return Registrations{Clusters: clusters, InterruptedJoins: r.interruptedJoins(items, clusters)}, nil
}

// listClusters reads the KubeFedClusters, without credentials. A host
// without the KubeFedCluster CRD has no clusters yet.
func (r *Registry) listClusters(ctx context.Context) ([]Cluster, error) {
	clusters, err := r.listRegisteredClusters(ctx)
	if errors.Is(err, ErrNoRegistry) {
		return nil, nil
	}
	return clusters, err
}

// listRegisteredClusters is listClusters that tells a host that serves no
// KubeFedCluster resource, with ErrNoRegistry.
func (r *Registry) listRegisteredClusters(ctx context.Context) ([]Cluster, error) {
	list, err := r.clusters().List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		// A namespace that does not exist lists empty: only a resource
		// the host does not serve answers 404.
		return nil, fmt.Errorf("the host serves no %s: %w", KubeFedClusterResource.GroupResource(), ErrNoRegistry)
	}
	if err != nil {
		return nil, fmt.Errorf("listing KubeFedClusters in namespace %q of the host: %w", r.namespace, err)
	}
	clusters := make([]Cluster, 0, len(list.Items))
	for i := range list.Items {
		c, err := clusterFromObject(&list.Items[i])
		if err != nil {
			return nil, err
		}
		clusters = append(clusters, *c)
	}
	return clusters, nil
}

func (c *Cluster) setCredentials(data map[string][]byte) {
	c.Connection.Token = string(data[SecretKeyToken])
	c.Connection.ClientCertificate = data[SecretKeyClientCertificate]
	c.Connection.ClientKey = data[SecretKeyClientKey]
}

// HasCredentialSecret reports whether the federation namespace holds the
// credential Secret of that name: a KubeFedCluster removed by hand leaves
// it, with the member's token, behind. A read-only registry, which reads no
// credential Secret, answers that it does.
func (r *Registry) HasCredentialSecret(ctx context.Context, secretName string) (bool, error) {
	if r.readOnly {
		return true, nil
	}
	_, err := r.kubernetes.CoreV1().Secrets(r.namespace).Get(ctx, secretName, metav1.GetOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	}
	return false, fmt.Errorf("reading Secret %s/%s of the host: %w", r.namespace, secretName, err)
}

// DeleteCluster removes the KubeFedCluster and its Secret. What is already
// gone is not an error. Its read credentials' Secret, if it has one, is
// ApplyReadCredentials' to remove.
func (r *Registry) DeleteCluster(ctx context.Context, name, secretName string) error {
	if r.readOnly {
		return ErrReadOnly
	}
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

// healthRecordAge is how old the recorded probe of a cluster whose health
// did not change may be before a refresh records its probe again: a plan
// run again soon after another waits for no write to the host.
const healthRecordAge = time.Minute

// WriteHealthOver records a probe in the KubeFedCluster's status, through
// the status subresource, with KubeFed's conditions: Ready and Offline,
// each with its probe time and the time its status last changed, kept from
// the status c was read with when it did not change. A probe that finds
// what the status records, probed less than healthRecordAge before, is not
// written. It returns the health as recorded, which keeps the last known
// version of a cluster that does not answer. A read-only registry writes
// nothing and answers ErrReadOnly with that health.
func (r *Registry) WriteHealthOver(ctx context.Context, c Cluster, probe member.ProbeResult) (ClusterHealth, error) {
	status, health := probedStatus(c.recorded, probe)
	if r.readOnly {
		return health, ErrReadOnly
	}
	if recordedRecently(c.recorded, status, healthRecordAge) {
		return health, nil
	}
	obj, err := toUnstructured(&kubeFedCluster{
		TypeMeta:   typeMeta(KubeFedClusterResource.GroupVersion(), "KubeFedCluster"),
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: r.namespace},
		Status:     &status,
	})
	if err != nil {
		return health, err
	}
	// The spec is not part of a status apply; the converter writes it empty.
	delete(obj.Object, "spec")
	if _, err := r.clusters().ApplyStatus(ctx, c.Name, obj, r.applyOptions()); err != nil {
		return health, fmt.Errorf("writing the status of KubeFedCluster %s/%s in the host: %w", r.namespace, c.Name, err)
	}
	return health, nil
}

// probedStatus is the status that records probe over the status recorded
// before (nil when there is none), and the health it records.
func probedStatus(recorded *kubeFedClusterStatus, probe member.ProbeResult) (kubeFedClusterStatus, ClusterHealth) {
	health := healthOfProbe(probe)
	var previous []clusterCondition
	if recorded != nil {
		previous = recorded.Conditions
		if health.KubernetesVersion == "" {
			health.KubernetesVersion = recorded.KubernetesVersion
		}
	}
	offlineReason, offlineMessage := "", ""
	if probe.Offline {
		offlineReason, offlineMessage = probe.Reason, probe.Message
	}
	return kubeFedClusterStatus{
		Conditions: []clusterCondition{
			nextCondition(previous, "Ready", probe.Ready, probe.Reason, probe.Message, probe.Time),
			nextCondition(previous, "Offline", probe.Offline, offlineReason, offlineMessage, probe.Time),
		},
		KubernetesVersion: health.KubernetesVersion,
	}, health
}

// recordedRecently reports whether recorded says what next says, but for
// the probe times, and its probe is no older than maxAge before next's.
func recordedRecently(recorded *kubeFedClusterStatus, next kubeFedClusterStatus, maxAge time.Duration) bool {
	if recorded == nil || recorded.KubernetesVersion != next.KubernetesVersion || len(recorded.Conditions) != len(next.Conditions) {
		return false
	}
	for i, c := range next.Conditions {
		old := recorded.Conditions[i]
		if old.Type != c.Type || old.Status != c.Status || old.Reason != c.Reason || old.Message != c.Message ||
			old.LastTransitionTime == nil || !old.LastTransitionTime.Equal(c.LastTransitionTime) ||
			c.LastProbeTime.Sub(old.LastProbeTime.Time) > maxAge {
			return false
		}
	}
	return true
}

func healthOfProbe(probe member.ProbeResult) ClusterHealth {
	return ClusterHealth{
		Ready: probe.Ready, Offline: probe.Offline, Reason: probe.Reason, Message: probe.Message,
		KubernetesVersion: probe.KubernetesVersion,
	}
}

// nextCondition is the condition a probe at probed records: its transition
// time moves only when its status changes.
func nextCondition(previous []clusterCondition, kind string, isTrue bool, reason, message string, probed time.Time) clusterCondition {
	status := string(corev1.ConditionFalse)
	if isTrue {
		status = string(corev1.ConditionTrue)
	}
	at := metav1.NewTime(probed)
	transition := at
	for _, old := range previous {
		if old.Type == kind && old.Status == status && old.LastTransitionTime != nil {
			transition = *old.LastTransitionTime
		}
	}
	return clusterCondition{Type: kind, Status: status, LastProbeTime: at, LastTransitionTime: &transition,
		Reason: reason, Message: message}
}

func (r *Registry) clusters() dynamic.ResourceInterface {
	return r.dynamic.Resource(KubeFedClusterResource).Namespace(r.namespace)
}

func (r *Registry) applyOptions() metav1.ApplyOptions {
	// Force: the provider is the owner of what it applies; a field last set
	// by kubectl or kubefedctl is taken over rather than failing the apply.
	return metav1.ApplyOptions{FieldManager: r.fieldManager, Force: true}
}

func clusterFromObject(u *unstructured.Unstructured) (*Cluster, error) {
	var obj kubeFedCluster
	if err := fromUnstructured(u, &obj); err != nil {
		return nil, err
	}
	c := &Cluster{
		Name:       obj.Name,
		Labels:     obj.Labels,
		SecretName: obj.Spec.SecretRef.Name,
		Connection: member.Connection{
			APIEndpoint:            obj.Spec.APIEndpoint,
			CABundle:               obj.Spec.CABundle,
			DisabledTLSValidations: obj.Spec.DisabledTLSValidations,
			ProxyURL:               obj.Spec.ProxyURL,
		},
		Health:   healthOf(obj.Status),
		Grants:   grantsOf(obj.Annotations),
		Identity: obj.Annotations[IdentityAnnotation],
		recorded: obj.Status,
	}
	return c, nil
}

// healthOf reads KubeFed's Ready and Offline conditions.
func healthOf(status *kubeFedClusterStatus) ClusterHealth {
	var h ClusterHealth
	if status == nil {
		return h
	}
	h.KubernetesVersion = status.KubernetesVersion
	for _, c := range status.Conditions {
		isTrue := c.Status == string(corev1.ConditionTrue)
		switch c.Type {
		case "Ready":
			h.Ready, h.Reason, h.Message = isTrue, c.Reason, c.Message
		case "Offline":
			h.Offline = isTrue
		}
	}
	return h
}

// MissingCredentials says what is missing for c's credentials to
// authenticate: a token, or a client certificate with its key.
func (c Cluster) MissingCredentials(namespace string) error {
	conn := c.Connection
	hasCert, hasKey := len(conn.ClientCertificate) > 0, len(conn.ClientKey) > 0
	secret := fmt.Sprintf("%s/%s", namespace, c.SecretName)
	switch {
	case c.SecretName == "":
		return fmt.Errorf("the KubeFedCluster %s/%s names no credential Secret (spec.secretRef.name); "+
			"register the cluster again with a token or a client certificate", namespace, c.Name)
	case hasCert != hasKey && conn.Token == "":
		missing, present := SecretKeyClientKey, SecretKeyClientCertificate
		if hasKey {
			missing, present = present, missing
		}
		return fmt.Errorf("the credential Secret %s of cluster %q holds %s without %s; add %s to it, or register the "+
			"cluster again with a token", secret, c.Name, present, missing, missing)
	case conn.Token == "" && !hasCert:
		return fmt.Errorf("the credential Secret %s of cluster %q is missing or holds neither %s nor %s and %s; "+
			"register the cluster again with a token or a client certificate", secret, c.Name,
			SecretKeyToken, SecretKeyClientCertificate, SecretKeyClientKey)
	}
	return nil
}

// UnregisteredClusterDetail says that no cluster is called name, and which
// ones are registered.
func UnregisteredClusterDetail(name, namespace string, registered []string, listErr error) string {
	detail := fmt.Sprintf("No KubeFedCluster called %q is registered in namespace %q of the host. ", name, namespace)
	switch {
	case listErr != nil:
		return detail + "Listing the registered clusters failed too: " + listErr.Error()
	case len(registered) == 0:
		return detail + "No cluster is registered there yet: register it with kubefed_federation_cluster first."
	default:
		return detail + "Registered clusters: " + strings.Join(registered, ", ") + "."
	}
}
