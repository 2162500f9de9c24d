package registry

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// A create's unfinished mark carries the digest of what it wrote, and reads
// back with the record's writers; the digest follows the template, the
// placement and the overrides, and nothing else.
func TestIncompleteCreateMark(t *testing.T) {
	ft := NewFederatedType(APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true}, Enabled, Disabled)
	obj := FederatedObject{
		Namespace: "shop", Name: "settings",
		Template:  map[string]any{"data": map[string]any{"color": "blue"}},
		Placement: federation.Placement{Clusters: []string{"berlin"}},
	}
	digest, err := ContentDigest(obj)
	if err != nil {
		t.Fatal(err)
	}
	obj.Incomplete, obj.CreatedFrom = true, digest
	u, err := federatedObjectToUnstructured(ft, obj)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.GetAnnotations()[IncompleteCreateAnnotation]; got != digest {
		t.Fatalf("annotation %s = %q, want the digest %q", IncompleteCreateAnnotation, got, digest)
	}
	u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "other-workspace"}, {Manager: "kubectl"}, {Manager: "other-workspace"}})
	back, err := federatedObjectFromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Incomplete || back.CreatedFrom != digest {
		t.Errorf("read back Incomplete=%v CreatedFrom=%q, want true and %q", back.Incomplete, back.CreatedFrom, digest)
	}
	if len(back.Writers) != 2 || back.Writers[0] != "kubectl" || back.Writers[1] != "other-workspace" {
		t.Errorf("writers %v, want kubectl, other-workspace", back.Writers)
	}

	finished := obj
	finished.Incomplete = false
	u, err = federatedObjectToUnstructured(ft, finished)
	if err != nil {
		t.Fatal(err)
	}
	if _, marked := u.GetAnnotations()[IncompleteCreateAnnotation]; marked {
		t.Error("a finished record carries the unfinished mark")
	}

	same := obj
	same.Status, same.Orphan = map[string]string{"berlin": "OK"}, true
	changes := map[string]func(*FederatedObject){
		"template":  func(o *FederatedObject) { o.Template = map[string]any{"data": map[string]any{"color": "red"}} },
		"placement": func(o *FederatedObject) { o.Placement = federation.Placement{Clusters: []string{"berlin", "paris"}} },
		"overrides": func(o *FederatedObject) {
			o.Overrides = []federation.OverrideRule{{Cluster: "berlin", Patches: []federation.Patch{{Path: "/data/color", Value: `"red"`}}}}
		},
	}
	if d, _ := ContentDigest(same); d != digest {
		t.Errorf("status and deletion policy changed the digest")
	}
	for what, change := range changes {
		other := obj
		change(&other)
		if d, _ := ContentDigest(other); d == digest {
			t.Errorf("a change of the %s left the digest as it was", what)
		}
	}
}
