package federation

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// kubeFedTemplateByHand is how the provider built a Federated<Kind>'s
// spec.template before the engine did: the template re-parsed from YAML,
// numbers as written, without the fields that identify the object.
func kubeFedTemplateByHand(t *testing.T, text string) map[string]any {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	delete(obj, "apiVersion")
	delete(obj, "kind")
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "name")
		delete(meta, "namespace")
		if len(meta) == 0 {
			delete(obj, "metadata")
		}
	}
	return obj
}

func TestHostTemplateIsWhatKubeFedStores(t *testing.T) {
	cases := []struct {
		name, template string
		namespaced     bool
	}{
		{"a deployment", deploymentYAML, true},
		{"a secret", secretYAML, true},
		{"numbers as written", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\nx: [1.50, 1e2, 9007199254740993, -0, 0.1]\n", true},
		{"metadata with only the name", "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\nspec: {finalizers: [kubernetes]}\n", false},
		{"a JSON template", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"k":"<&>"}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRenderer(RenderSpec{Template: tc.template, Namespaced: tc.namespaced})
			if err != nil {
				t.Fatal(err)
			}
			got, want := r.HostTemplate(), kubeFedTemplateByHand(t, tc.template)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("HostTemplate() =\n%#v\nwant\n%#v", got, want)
			}
		})
	}
}

func TestHostTemplate(t *testing.T) {
	template := `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  uid: 0b6c-11ee
  resourceVersion: "42"
status: {replicas: 3}
spec:
  replicas: 3
  strategy: {rollingUpdate: {maxSurge: 1.50}}
`
	r, err := NewRenderer(RenderSpec{Template: template, Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	got := r.HostTemplate()
	want := map[string]any{"spec": map[string]any{
		"replicas": json.Number("3"),
		"strategy": map[string]any{"rollingUpdate": map[string]any{"maxSurge": json.Number("1.5")}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HostTemplate() = %#v\nwant %#v: server-owned fields and status dropped, no metadata left", got, want)
	}
	got["spec"].(map[string]any)["replicas"] = json.Number("7")
	if again := r.HostTemplate(); again["spec"].(map[string]any)["replicas"] != json.Number("3") {
		t.Error("changing the returned copy changed the renderer's template")
	}
}

// canonicalByHand is how the provider got the display form of a live
// object before the engine offered it: by rendering the object as a
// template for no cluster.
func canonicalByHand(t *testing.T, spec RenderSpec, live map[string]any) string {
	t.Helper()
	raw, err := json.Marshal(live)
	if err != nil {
		t.Fatal(err)
	}
	spec.Template, spec.Overrides = string(raw), nil
	got, err := Render(spec, Cluster{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return got.Display
}

// liveObject decodes JSON the way client-go's dynamic client does, with
// int64 and float64 numbers.
func liveObject(t *testing.T, js string) map[string]any {
	t.Helper()
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON([]byte(js)); err != nil {
		t.Fatal(err)
	}
	return u.Object
}

const liveDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop",
 "uid":"0b6c","resourceVersion":"42","generation":3,"creationTimestamp":"2024-01-01T00:00:00Z",
 "managedFields":[{"manager":"kubefed"}],"labels":{"app":"web","kubefed.io/managed":"true"},"finalizers":["example.com/x"],
 "annotations":{"deployment.kubernetes.io/revision":"1"}},
 "spec":{"replicas":3,"progressDeadlineSeconds":600,"selector":{"matchLabels":{"app":"web"}},
  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27",
   "resources":{"limits":{"cpu":0.5,"memory":"1Gi"}},"ports":[{"containerPort":80}]}],"terminationGracePeriodSeconds":9007199254740993}}},
 "status":{"replicas":3,"readyReplicas":3}}`

const liveConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"shop","resourceVersion":"7",
 "labels":{"kubefed.io/managed":"true"}},"data":{"a":"<&>","b":"ünï \u2028","c":"1.0"},"binaryData":{"bin":"AAE="}}`

const liveSecret = `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"shop","uid":"x",
 "labels":{"kubefed.io/managed":"true"}},"type":"Opaque","data":{"password":"aHVudGVyMg==","user":"YWRtaW4="},
 "stringData":{"token":"s3cr3t-token"}}`

func TestCanonicalIsTheDisplayOfTheLiveObject(t *testing.T) {
	cases := []struct {
		name string
		live string
		spec RenderSpec
	}{
		{"a deployment", liveDeployment, RenderSpec{Template: deploymentYAML, Namespaced: true}},
		{"a deployment with ignored fields", liveDeployment, RenderSpec{Template: deploymentYAML, Namespaced: true,
			IgnoreFields: []string{"spec.replicas", `metadata.annotations["deployment.kubernetes.io/revision"]`, "spec.template.spec.containers[0].resources"}}},
		{"a config map", liveConfigMap, RenderSpec{Template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\n", Namespaced: true}},
		{"a secret with stringData", liveSecret, RenderSpec{Template: secretYAML, Namespaced: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRenderer(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			live := liveObject(t, tc.live)
			got, err := r.Canonical(live)
			if err != nil {
				t.Fatal(err)
			}
			if want := canonicalByHand(t, tc.spec, live); got != want {
				t.Errorf("Canonical =\n%s\nrendering the live object gives\n%s", got, want)
			}
			for _, gone := range []string{"resourceVersion", "uid", "managedFields", "status", "finalizers", "aHVudGVyMg==", "s3cr3t-token"} {
				if strings.Contains(got, gone) {
					t.Errorf("%s is in %s", gone, got)
				}
			}
		})
	}
}

// TestCanonicalOfWhatWasAppliedIsThePlan reads back, as a member returns
// it, the object a cluster was sent, and checks that its canonical form is
// the display the plan showed: no diff on the next plan.
func TestCanonicalOfWhatWasAppliedIsThePlan(t *testing.T) {
	cases := []struct {
		name string
		spec RenderSpec
	}{
		{"a deployment with overrides", RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: []OverrideRule{{Cluster: "berlin", Patches: []Patch{
			{Op: OpAdd, Path: "/spec/template/spec/containers/0/resources", Value: `{"limits":{"cpu":0.50,"memory":"1Gi"}}`},
			{Op: OpAdd, Path: "/spec/x", Value: `[1e3, 9007199254740993, 1.0]`},
		}}}}},
		{"a config map", RenderSpec{Template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\ndata: {a: \"<&>\", b: \"\\u2028\"}\n", Namespaced: true}},
		{"a secret", RenderSpec{Template: secretYAML, Namespaced: true}},
		{"a cluster-scoped object", RenderSpec{Template: "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRenderer(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			planned, err := r.Render(berlin, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Canonical(liveObject(t, string(planned.Object)))
			if err != nil {
				t.Fatal(err)
			}
			if got != planned.Display {
				t.Errorf("read back:\n%s\nplanned:\n%s", got, planned.Display)
			}
		})
	}
}

func TestCanonicalRejectsWhatIsNoObjectOfTheType(t *testing.T) {
	r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Canonical(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"}})
	if err == nil || err.Error() != "live object: metadata.namespace is required: Deployment is namespaced" {
		t.Errorf("err = %v", err)
	}
	if _, err := r.Canonical(nil); err == nil || err.Error() != "live object: must be an object, not null" {
		t.Errorf("no object: err = %v", err)
	}
}
