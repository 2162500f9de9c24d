package federation

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// checkCanonical asserts that rendered bytes are canonical JSON: decoding
// and re-encoding them gives the same bytes.
func checkCanonical(t *testing.T, b []byte) {
	t.Helper()
	v, err := decodeJSON(b)
	if err != nil {
		t.Fatalf("rendered output is not JSON: %v\n%s", err, b)
	}
	again, err := encodeCanonical(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, b) {
		t.Fatalf("rendered output is not canonical:\n%s\nre-encodes as\n%s", b, again)
	}
}

// checkLabels asserts that rendered labels hold the managed label and
// only labels the API server accepts.
func checkLabels(t *testing.T, labels map[string]any, object []byte) {
	t.Helper()
	if labels[ManagedLabel] != "true" {
		t.Fatalf("managed label missing: %s", object)
	}
	for k, v := range labels {
		if err := checkLabel(k, v); err != nil {
			t.Fatalf("a label the API server refuses was rendered (%v): %s", err, object)
		}
	}
}

func checkRenderedTwiceEqual(t *testing.T, r *Renderer, c Cluster, replicas *int64, first Rendered) {
	t.Helper()
	second, err := r.Render(c, replicas)
	if err != nil {
		t.Fatalf("second render failed: %v", err)
	}
	if second.Display != first.Display || !bytes.Equal(second.Object, first.Object) {
		t.Fatalf("rendering twice differs:\n%s\n%s", first.Display, second.Display)
	}
}

// FuzzOverridePatch applies one fuzzed patch, after a fixed one, to a
// Deployment. Whatever the patch, it is refused with an *OverrideError or
// applied without touching the fields that identify the object, and the
// result is canonical, stable and labelled with valid labels only; notes are
// about that patch, a replace, only.
func FuzzOverridePatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, op, path, value string, replicas int16) {
		rules := []OverrideRule{
			{Selector: &metav1.LabelSelector{}, Patches: []Patch{{Op: OpAdd, Path: "/metadata/annotations", Value: `{"a":"b"}`}}},
			{Cluster: berlin.Name, Patches: []Patch{{Op: op, Path: path, Value: value}}},
		}
		r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: rules})
		var oe *OverrideError
		if err != nil {
			if !errors.As(err, &oe) || oe.Rule != 1 || oe.Patch != 0 {
				t.Fatalf("NewRenderer error %v does not locate rule 1 patch 0", err)
			}
			return
		}
		var count *int64
		if replicas >= 0 {
			count = n(int64(replicas))
		}
		got, err := r.Render(berlin, count)
		if err != nil {
			located := errors.As(err, &oe) && oe.Rule == 1 && oe.Patch == 0 && oe.Cluster == berlin.Name
			if !located && !strings.HasPrefix(err.Error(), `cluster "berlin": the overrides leave metadata.labels`) {
				t.Fatalf("Render error %v does not locate rule 1 patch 0 on berlin", err)
			}
			return
		}
		checkCanonical(t, got.Object)
		if got.Display != string(got.Object) {
			t.Fatal("a Deployment's display differs from its object")
		}
		v, _ := decodeJSON(got.Object)
		obj := v.(map[string]any)
		meta := obj["metadata"].(map[string]any)
		if obj["kind"] != "Deployment" || meta["name"] != "web" || meta["namespace"] != "shop" {
			t.Fatalf("an override changed the identity: %s", got.Object)
		}
		if _, ok := meta["generateName"]; ok {
			t.Fatalf("an override added generateName: %s", got.Object)
		}
		checkLabels(t, meta["labels"].(map[string]any), got.Object)
		for _, note := range got.Notes {
			if note.Rule != 1 || note.Patch != 0 || note.Cluster != berlin.Name || (op != "" && op != OpReplace) {
				t.Fatalf("note %+v is not about rule 1's replace on berlin", note)
			}
		}
		checkRenderedTwiceEqual(t, r, berlin, count, got)
	})
}

// FuzzRenderTemplate renders fuzzed templates. A template is refused with a
// "template:" error or rendered canonically, stably, with valid labels and
// the managed label, without finalizers or null fields and, for Secrets,
// with no clear-text value in the display.
func FuzzRenderTemplate(f *testing.F) {
	f.Fuzz(func(t *testing.T, template string, namespaced bool) {
		r, err := NewRenderer(RenderSpec{Template: template, Namespaced: namespaced})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "template: ") {
				t.Fatalf("template error %q does not say it is about the template", err)
			}
			return
		}
		got, err := r.Render(berlin, nil)
		if err != nil {
			t.Fatalf("a template NewRenderer accepted failed to render: %v", err)
		}
		checkCanonical(t, got.Object)
		checkCanonical(t, []byte(got.Display))
		checkRenderedTwiceEqual(t, r, berlin, nil, got)
		checkNoNullFields(t, got.Object)

		v, _ := decodeJSON([]byte(got.Display))
		shown := v.(map[string]any)
		meta := shown["metadata"].(map[string]any)
		checkLabels(t, meta["labels"].(map[string]any), got.Object)
		if _, ok := meta["finalizers"]; ok {
			t.Fatalf("finalizers reach the member: %s", got.Display)
		}
		if r.Identity().Kind != "Secret" {
			return
		}
		for _, f := range maskedSecretFields {
			switch entries := shown[f].(type) {
			case nil:
			case map[string]any:
				for k, e := range entries {
					if s, _ := e.(string); !strings.HasPrefix(s, "sha256:") {
						t.Fatalf("%s[%q] shows %v in clear", f, k, e)
					}
				}
			case string:
				if !strings.HasPrefix(entries, "sha256:") {
					t.Fatalf("%s shows %v in clear", f, entries)
				}
			default:
				t.Fatalf("%s shows %v in clear", f, entries)
			}
		}
	})
}

// FuzzPlacementSelector selects with one fuzzed expression. An invalid one
// is refused; a valid one selects a sorted subset of the registered
// clusters, the same subset every time.
func FuzzPlacementSelector(f *testing.F) {
	registered := []string{"bare", "berlin", "new-york", "san-francisco"}
	f.Fuzz(func(t *testing.T, key, operator, value, labelKey, labelValue string) {
		var values []string
		if value != "" {
			values = strings.Split(value, ",")
		}
		sel := &metav1.LabelSelector{
			MatchLabels:      map[string]string{},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOperator(operator), Values: values}},
		}
		if labelKey != "" {
			sel.MatchLabels[labelKey] = labelValue
		}
		p := Placement{Selector: sel}
		got, err := p.Select(registry, nil)
		if err != nil {
			if ValidateSelector(sel) == nil {
				t.Fatalf("Select failed (%v) on a selector Validate accepts", err)
			}
			return
		}
		if !slices.IsSorted(got) {
			t.Fatalf("selection %v is not sorted", got)
		}
		for _, name := range got {
			if !slices.Contains(registered, name) {
				t.Fatalf("selected %q, which is not registered", name)
			}
		}
		again, _ := p.Select(registry, nil)
		if !slices.Equal(got, again) {
			t.Fatalf("selection changed from %v to %v", got, again)
		}
	})
}
