package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// JoinAnnotation records, on the credential Secret of a joined cluster,
// what the join made on the member, as JSON (JoinRecord): written before
// the join's first write to the member, so that a join cut off before its
// registration (a process killed, a host that fails) leaves a record that
// names what is left on the member. A separate field manager owns it, so
// the registration's writes of the Secret leave it alone.
//
//	who                                  what
//	kubefed_federation_cluster's create  records the account before the join (RecordJoin);
//	and update with join                 an update that moves the join records both accounts,
//	                                     then only the new one once the old is removed
//	a create that fails after the record removes what the join made, then the Secret (DiscardJoin)
//	an update that gives up join         removes it (ForgetJoin) once the join is removed
//	the cluster's destroy                removes it with the Secret (DeleteCluster), or
//	                                     records it again when the member kept the join
//	the run's first read of the clusters finds the records with no KubeFedCluster
//	(Registrations)
//	the run's first plan of a cluster    names what each of those left on its member
//	or a type
const JoinAnnotation = "kubefed.terraform.io/join"

// JoinRecord is the value of JoinAnnotation.
type JoinRecord struct {
	// Cluster is the registration's name.
	Cluster string `json:"cluster"`
	// Endpoint is the member's API server, as the join reached it.
	Endpoint string `json:"endpoint"`
	// ServiceAccounts are the `<namespace>/<name>` of each account the
	// join made, or was about to make, on the member.
	ServiceAccounts []string `json:"serviceAccounts"`
	// SecretName is the Secret the record is on, as read from the host.
	SecretName string `json:"-"`
}

// LeftBehind says what a join left on the member of a cluster that is not
// registered, and the two ways to end it: join the cluster again, or
// remove it all by hand.
func (rec JoinRecord) LeftBehind(namespace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The host's Secret %s/%s records a join of cluster %q to the member at %s, and no KubeFedCluster %s/%s "+
		"registers the cluster: the join was cut off before the registration, or the registration was destroyed without "+
		"reaching the member. ", namespace, rec.SecretName, rec.Cluster, rec.Endpoint, namespace, rec.Cluster)
	for _, account := range rec.ServiceAccounts {
		ns, name, _ := strings.Cut(account, "/")
		b.WriteString(member.JoinNamesOf(ns, name).LeftBehind(rec.Cluster) + " ")
	}
	fmt.Fprintf(&b, "To finish the join instead, apply a configuration that joins cluster %q again; destroying it then "+
		"removes all of it. Once removed by hand, delete the Secret %s/%s of the host.", rec.Cluster, namespace, rec.SecretName)
	return b.String()
}

// joinFieldManager owns JoinAnnotation on the credential Secret.
func (r *Registry) joinFieldManager() string { return r.fieldManager + "-join" }

// RecordJoin writes rec on the cluster's credential Secret secretName,
// creating the Secret (with no credential yet) when it does not exist.
func (r *Registry) RecordJoin(ctx context.Context, secretName string, rec JoinRecord) error {
	if r.readOnly {
		return ErrReadOnly
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	secret := corev1apply.Secret(secretName, r.namespace).WithAnnotations(map[string]string{JoinAnnotation: string(raw)})
	opts := metav1.ApplyOptions{FieldManager: r.joinFieldManager(), Force: true}
	if _, err := r.kubernetes.CoreV1().Secrets(r.namespace).Apply(ctx, secret, opts); err != nil {
		return fmt.Errorf("recording the join of cluster %q on Secret %s/%s of the host, before the join: %w", rec.Cluster,
			r.namespace, secretName, err)
	}
	return nil
}

// ForgetJoin takes the join's record off the credential Secret, once the
// registration no longer uses join and what it made is removed.
func (r *Registry) ForgetJoin(ctx context.Context, cluster, secretName string) error {
	patch := []byte(`{"metadata":{"annotations":{"` + JoinAnnotation + `":null}}}`)
	_, err := r.kubernetes.CoreV1().Secrets(r.namespace).Patch(ctx, secretName, k8stypes.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing the join record of cluster %q from Secret %s/%s of the host: %w", cluster, r.namespace, secretName, err)
	}
	return nil
}

// DiscardJoin deletes the credential Secret of a create that failed once
// what its join made on the member is removed: it holds no registration's
// credentials.
func (r *Registry) DiscardJoin(ctx context.Context, cluster, secretName string) error {
	err := r.kubernetes.CoreV1().Secrets(r.namespace).Delete(ctx, secretName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the join record of cluster %q, Secret %s/%s of the host: %w", cluster, r.namespace, secretName, err)
	}
	return nil
}

// interruptedJoins are the join records of the federation namespace's
// Secrets whose cluster is not among the registered clusters: joins cut
// off before their registration, whose accounts are still on the member.
// Sorted by cluster.
func (r *Registry) interruptedJoins(secrets []corev1.Secret, clusters []Cluster) []JoinRecord {
	if r.readOnly {
		return nil
	}
	registered := map[string]bool{}
	for _, c := range clusters {
		registered[c.Name] = true
	}
	var records []JoinRecord
	for _, s := range secrets {
		rec, ok := parseJoinRecord(s.Annotations[JoinAnnotation])
		if ok && !registered[rec.Cluster] {
			rec.SecretName = s.Name
			records = append(records, rec)
		}
	}
	slices.SortFunc(records, func(a, b JoinRecord) int { return strings.Compare(a.Cluster, b.Cluster) })
	return records
}

// parseJoinRecord reads a JoinAnnotation; false when there is none.
func parseJoinRecord(v string) (JoinRecord, bool) {
	var rec JoinRecord
	if v == "" || json.Unmarshal([]byte(v), &rec) != nil || rec.Cluster == "" {
		return JoinRecord{}, false
	}
	return rec, true
}
