package propagation

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestClassifyConflicts(t *testing.T) {
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(fields)}
	}
	cause := func(message, field string) metav1.StatusCause {
		return metav1.StatusCause{Type: metav1.CauseTypeFieldManagerConflict, Message: message, Field: field}
	}
	const (
		ours     = `{"f:data":{".":{},"f:greeting":{},"f:color":{}}}`
		greeting = `{"f:data":{"f:greeting":{}}}`
		color    = `{"f:data":{"f:color":{}}}`
	)
	update := metav1.ManagedFieldsOperationUpdate
	apply := metav1.ManagedFieldsOperationApply
	tests := []struct {
		name                  string
		causes                []metav1.StatusCause
		entries               []metav1.ManagedFieldsEntry
		reclaimable, disputed Claims
	}{
		{
			name:        "a key changed with kubectl patch is reclaimed",
			causes:      []metav1.StatusCause{cause(`conflict with "kubectl-patch" using v1`, ".data.greeting")},
			entries:     []metav1.ManagedFieldsEntry{entry("kubefed", apply, ours), entry("kubectl-patch", update, greeting)},
			reclaimable: Claims{"kubectl-patch": {".data.greeting"}},
		},
		{
			name:     "a key another server-side apply took is disputed",
			causes:   []metav1.StatusCause{cause(`conflict with "other-tool"`, ".data.greeting")},
			entries:  []metav1.ManagedFieldsEntry{entry("kubefed", apply, ours), entry("other-tool", apply, greeting)},
			disputed: Claims{"other-tool": {".data.greeting"}},
		},
		{
			name: "mixed: each field by its manager",
			causes: []metav1.StatusCause{
				cause(`conflict with "other-tool"`, ".data.greeting"),
				cause(`conflict with "kubectl-edit" using v1 at 2026-01-02T03:04:05Z`, ".data.color"),
			},
			entries: []metav1.ManagedFieldsEntry{entry("kubefed", apply, ours), entry("other-tool", apply, greeting),
				entry("kubectl-edit", update, color)},
			reclaimable: Claims{"kubectl-edit": {".data.color"}},
			disputed:    Claims{"other-tool": {".data.greeting"}},
		},
		{
			name:   "a manager that both applied and updated the field is disputed",
			causes: []metav1.StatusCause{cause(`conflict with "helper"`, ".data.greeting")},
			entries: []metav1.ManagedFieldsEntry{entry("kubefed", apply, ours), entry("helper", update, greeting),
				entry("helper", apply, greeting)},
			disputed: Claims{"helper": {".data.greeting"}},
		},
		{
			name:   "only the named manager's entries count",
			causes: []metav1.StatusCause{cause(`conflict with "kubectl-patch" using v1`, ".data.greeting")},
			entries: []metav1.ManagedFieldsEntry{entry("kubefed", apply, ours), entry("kubectl-patch", update, greeting),
				entry("co-owner", apply, greeting)},
			reclaimable: Claims{"kubectl-patch": {".data.greeting"}},
		},
		{
			name:   "an autoscaler's update through the scale subresource is reclaimed",
			causes: []metav1.StatusCause{cause(`conflict with "kube-controller-manager" with subresource "scale" using apps/v1`, ".spec.replicas")},
			entries: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: update, Subresource: "scale",
				FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:replicas":{}}}`)}},
			reclaimable: Claims{"kube-controller-manager": {".spec.replicas"}},
		},
		{
			name: "a keyed element's field is found by its key",
			causes: []metav1.StatusCause{cause(`conflict with "kubectl-set" using apps/v1`,
				`.spec.template.spec.containers[name="web"].image`)},
			entries: []metav1.ManagedFieldsEntry{entry("kubectl-set", update,
				`{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:image":{}}}}}}}`)},
			reclaimable: Claims{"kubectl-set": {`.spec.template.spec.containers[name="web"].image`}},
		},
		{
			name:        "a set recorded at another API version: the manager's entries answer",
			causes:      []metav1.StatusCause{cause(`conflict with "old-client" using v1beta1`, ".spec.renamed")},
			entries:     []metav1.ManagedFieldsEntry{entry("old-client", update, `{"f:spec":{"f:oldName":{}}}`)},
			reclaimable: Claims{"old-client": {".spec.renamed"}},
		},
		{
			name:     "a manager without an entry is disputed: nothing shows it is safe",
			causes:   []metav1.StatusCause{cause(`conflict with "ghost" using v1`, ".data.greeting")},
			entries:  []metav1.ManagedFieldsEntry{entry("kubefed", apply, ours)},
			disputed: Claims{"ghost": {".data.greeting"}},
		},
		{
			name:        "a message that names no manager: the holders of the field answer",
			causes:      []metav1.StatusCause{cause("conflict", ".data.greeting")},
			entries:     []metav1.ManagedFieldsEntry{entry("kubefed", apply, ours), entry("kubectl-patch", update, greeting)},
			reclaimable: Claims{"kubectl-patch": {".data.greeting"}},
		},
		{
			name:     "a set that does not parse holds nothing",
			causes:   []metav1.StatusCause{cause("conflict", ".data.greeting")},
			entries:  []metav1.ManagedFieldsEntry{entry("kubectl-patch", update, `{"f:data":`)},
			disputed: Claims{"an unknown manager": {".data.greeting"}},
		},
		{
			name: "causes of other kinds are not conflicts",
			causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: ".data.greeting"},
				cause(`conflict with "kubectl-patch" using v1`, ".data.greeting")},
			entries:     []metav1.ManagedFieldsEntry{entry("kubectl-patch", update, greeting)},
			reclaimable: Claims{"kubectl-patch": {".data.greeting"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClassifyConflicts(tt.causes, tt.entries, "kubefed")
			if want := orEmpty(tt.reclaimable); !reflect.DeepEqual(got.Reclaimable, want) {
				t.Errorf("reclaimable %v, want %v", got.Reclaimable, want)
			}
			if want := orEmpty(tt.disputed); !reflect.DeepEqual(got.Disputed, want) {
				t.Errorf("disputed %v, want %v", got.Disputed, want)
			}
		})
	}
}

func orEmpty(c Claims) Claims {
	if c == nil {
		return Claims{}
	}
	return c
}

func TestClaimsReadManagerByManager(t *testing.T) {
	c := Claims{}
	c.add("other-tool", ".spec.x")
	c.add("kubectl-patch", ".data.b")
	c.add("kubectl-patch", ".data.a")
	c.add("kubectl-patch", ".data.b")
	want := `"kubectl-patch": .data.a, .data.b; "other-tool": .spec.x`
	if got := c.String(); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestConflictErrorNamesClusterFieldsAndManagersAndSuggestsForce(t *testing.T) {
	apiErr := apierrors.NewApplyConflict([]metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict,
		Message: `conflict with "other-tool"`, Field: ".data.greeting"}}, "Apply failed with 1 conflict")
	err := error(&ConflictError{
		Cluster: "berlin",
		Object:  Object{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "default", Name: "greeting"},
		Conflicts: Conflicts{Disputed: Claims{"other-tool": {".data.greeting"}},
			Reclaimable: Claims{"kubectl-patch": {".data.color"}}},
		err: apiErr,
	})
	msg := explain(Member{Name: "berlin"}, Object{}, err, Options{}).Error()
	for _, want := range []string{`cluster "berlin"`, `"other-tool": .data.greeting`, "force_conflicts = true",
		`"kubectl-patch": .data.color`, "configmaps default/greeting"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if !Rejects(err) || !apierrors.IsConflict(err) || !errors.Is(err, apiErr) {
		t.Errorf("the conflict no longer unwraps to the member's answer: %v", err)
	}
}
