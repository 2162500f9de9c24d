package federation

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRenderSharesObjectsBetweenClusters(t *testing.T) {
	rules := []OverrideRule{
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, Patches: []Patch{{Op: OpAdd, Path: "/metadata/annotations", Value: `{"tier":"prod"}`}}},
		{Cluster: "b", Patches: []Patch{{Op: OpRemove, Path: "/spec/paused"}}},
	}
	template := strings.Replace(deploymentYAML, "  name: web\n", "  name: web\n  resourceVersion: \"1\"\n", 1)
	r, err := NewRenderer(RenderSpec{Template: template, Namespaced: true, Overrides: rules})
	if err != nil {
		t.Fatal(err)
	}
	a := Cluster{Name: "a", Labels: map[string]string{"env": "prod"}}
	c := Cluster{Name: "c", Labels: map[string]string{"env": "prod", "zone": "1"}}
	first, err := r.Render(a, n(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.shared.renders) != 1 {
		t.Fatalf("%d objects shared, want 1", len(r.shared.renders))
	}
	first.Object[0] = 'X'
	first.Warnings[0] = "changed"
	second, err := r.Render(c, n(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.shared.renders) != 1 {
		t.Errorf("a cluster with the same rules and replicas was rendered again")
	}
	if second.Object[0] != '{' || second.Display != string(second.Object) || len(second.Warnings) != 1 || second.Warnings[0] == "changed" {
		t.Errorf("a shared object was changed through another cluster's copy: %s, %v", second.Object, second.Warnings)
	}
	if _, err := r.Render(a, n(3)); err != nil || len(r.shared.renders) != 2 {
		t.Errorf("another replica count should be another object: %v, %d shared", err, len(r.shared.renders))
	}
	if _, err := r.Render(a, nil); err != nil || len(r.shared.renders) != 3 {
		t.Errorf("no replica count should be another object: %v, %d shared", err, len(r.shared.renders))
	}
	// Errors name their cluster, so they are not shared.
	_, err = r.Render(Cluster{Name: "b"}, nil)
	if err == nil || !strings.Contains(err.Error(), `cluster "b"`) || len(r.shared.renders) != 3 {
		t.Errorf("err = %v, %d shared", err, len(r.shared.renders))
	}

	secret, err := NewRenderer(RenderSpec{Template: secretYAML, Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := secret.Render(a, nil)
	two, _ := secret.Render(c, nil)
	if !two.Sensitive || two.Display != one.Display || !bytes.Equal(two.Object, one.Object) || bytes.Equal([]byte(two.Display), two.Object) {
		t.Errorf("a shared Secret lost its masking: %+v", two)
	}
}

func TestShareKeyTellsOptionsAndRuleListsApart(t *testing.T) {
	count := func(c int64) RenderOptions { return RenderOptions{Replicas: n(c)} }
	none, retain := RenderOptions{}, RenderOptions{RetainReplicas: true}
	keys := map[string]bool{}
	for _, k := range []string{
		shareKey(none, nil), shareKey(count(0), nil), shareKey(count(1), []int{}), shareKey(none, []int{1}),
		shareKey(count(1), []int{2}), shareKey(count(12), nil), shareKey(none, []int{1, 2}), shareKey(none, []int{12}),
		shareKey(retain, nil), shareKey(retain, []int{1}),
	} {
		if keys[k] {
			t.Errorf("key %q is given twice", k)
		}
		keys[k] = true
	}
	if shareKey(count(1), []int{}) != shareKey(count(1), nil) {
		t.Error("no rules should be no rules")
	}
}
