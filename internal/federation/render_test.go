package federation

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const deploymentYAML = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
`

var berlin = Cluster{Name: "berlin", Labels: map[string]string{"region": "eu-central", "env": "staging"}}

func mustRender(t *testing.T, spec RenderSpec, c Cluster, replicas *int64) Rendered {
	t.Helper()
	got, err := Render(spec, c, replicas)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return got
}

// field digs a value out of rendered JSON by keys and decimal indices.
func field(t *testing.T, js string, path ...string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("rendered JSON does not parse: %v\n%s", err, js)
	}
	for _, key := range path {
		switch node := v.(type) {
		case map[string]any:
			v = node[key]
		case []any:
			i := 0
			for _, c := range key {
				i = i*10 + int(c-'0')
			}
			v = node[i]
		default:
			t.Fatalf("%s: %q leads nowhere in %s", path, key, js)
		}
	}
	return v
}

func n(v int64) *int64 { return &v }

func TestRenderCanonicalJSON(t *testing.T) {
	spec := RenderSpec{Template: "kind: ConfigMap\napiVersion: v1\nmetadata: {name: cfg, namespace: ns}\ndata:\n  b: \"2\"\n  a: \"<&>\"\n", Namespaced: true}
	got := mustRender(t, spec, berlin, nil)
	want := `{"apiVersion":"v1","data":{"a":"<&>","b":"2"},"kind":"ConfigMap","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"cfg","namespace":"ns"}}`
	if got.Display != want {
		t.Errorf("Display =\n%s\nwant\n%s", got.Display, want)
	}
	if string(got.Object) != want {
		t.Errorf("Object =\n%s\nwant\n%s", got.Object, want)
	}
	if got.Sensitive || len(got.Warnings) != 0 {
		t.Errorf("Sensitive = %v, Warnings = %v; want false and none", got.Sensitive, got.Warnings)
	}
}

func TestRenderYAMLAndJSONAgree(t *testing.T) {
	fromYAML := mustRender(t, RenderSpec{Template: deploymentYAML, Namespaced: true}, berlin, nil)
	var v any
	if err := json.Unmarshal([]byte(fromYAML.Display), &v); err != nil {
		t.Fatal(err)
	}
	indented, _ := json.MarshalIndent(v, "", "    ")
	fromJSON := mustRender(t, RenderSpec{Template: string(indented), Namespaced: true}, berlin, nil)
	if fromYAML.Display != fromJSON.Display {
		t.Errorf("YAML and JSON templates render differently:\n%s\n%s", fromYAML.Display, fromJSON.Display)
	}
}

func TestRenderNumbersAreCanonical(t *testing.T) {
	spec := RenderSpec{
		Template:   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nx: 1.0\ne: 1e2\nz: 0.5\nbig: 9007199254740993\nneg: -0\n",
		Overrides:  []OverrideRule{{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/w", Value: "2.50e1"}}}},
		Namespaced: false,
	}
	got := mustRender(t, spec, berlin, nil)
	for _, part := range []string{`"x":1,`, `"e":100,`, `"z":0.5`, `"big":9007199254740993`, `"neg":0`, `"w":25`} {
		if !strings.Contains(got.Display, part) {
			t.Errorf("%s lacks %s", got.Display, part)
		}
	}
}

func TestRenderTemplateErrors(t *testing.T) {
	cases := []struct {
		name       string
		template   string
		namespaced bool
		mentions   string
	}{
		{"empty", "", false, "template: is empty"},
		{"only comments", "# nothing\n---\n", false, "template: is empty"},
		{"two documents", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n", false, "more than one YAML document"},
		{"a list", "- a\n- b\n", false, "must be an object (a YAML mapping), not a list"},
		{"a scalar", "hello", false, "must be an object (a YAML mapping), not a string"},
		{"not YAML", "a: [b\n", false, "template: "},
		{"duplicate keys", "apiVersion: v1\napiVersion: v2\nkind: ConfigMap\nmetadata: {name: a}\n", false, "apiVersion"},
		{"no apiVersion", "kind: ConfigMap\nmetadata: {name: a}\n", false, "apiVersion is required"},
		{"no kind", "apiVersion: v1\nmetadata: {name: a}\n", false, "kind is required"},
		{"no name", "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: a-}\n", false, "metadata.name is required"},
		{"no metadata", "apiVersion: v1\nkind: ConfigMap\n", false, "metadata.name is required"},
		{"all missing at once", "spec: {}\n", false, "apiVersion is required; kind is required; metadata.name is required"},
		{"no namespace for a namespaced type", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", true, "metadata.namespace is required: ConfigMap is namespaced"},
		{"a namespace for a cluster-scoped type", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, namespace: b}\n", false, "metadata.namespace must not be set: Namespace is cluster-scoped"},
		{"a numeric name", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 5}\n", false, "metadata.name must be a string, not a number"},
		{"metadata not an object", "apiVersion: v1\nkind: ConfigMap\nmetadata: x\n", false, "metadata must be an object, not a string"},
		{"labels not an object", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: [x]}\n", false, "metadata.labels must be an object, not a list"},
		{"a label that is a number", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {version: 2}}\n", false, `template: metadata.labels: label "version" is a number, but label values are strings; write "2", in JSON quotes`},
		{"a label value the API server refuses", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {team: web team}}\n", false, `template: metadata.labels: label "team": value "web team" is not valid`},
		{"a label key the API server refuses", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {\"a b\": x}}\n", false, `template: metadata.labels: label key "a b" is not valid`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRenderer(RenderSpec{Template: tc.template, Namespaced: tc.namespaced})
			if err == nil {
				t.Fatal("NewRenderer accepted the template")
			}
			if !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("error %q does not say %q", err, tc.mentions)
			}
		})
	}
}

func TestRenderDropsServerOwnedFields(t *testing.T) {
	template := `
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: ns
  resourceVersion: "42"
  uid: 0b6c-11ee
  creationTimestamp: "2024-01-01T00:00:00Z"
  generation: 3
  managedFields:
  - manager: kubectl
status:
  phase: Active
data:
  k: v
`
	got := mustRender(t, RenderSpec{Template: template, Namespaced: true}, berlin, nil)
	for _, gone := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "status"} {
		if strings.Contains(got.Display, gone) {
			t.Errorf("%s still in %s", gone, got.Display)
		}
	}
	want := []string{
		"template: dropped the server-owned field status; the API server sets it",
		"template: dropped the server-owned field metadata.resourceVersion; the API server sets it",
		"template: dropped the server-owned field metadata.uid; the API server sets it",
		"template: dropped the server-owned field metadata.creationTimestamp; the API server sets it",
		"template: dropped the server-owned field metadata.generation; the API server sets it",
		"template: dropped the server-owned field metadata.managedFields; the API server sets it",
	}
	if strings.Join(got.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("Warnings =\n%s\nwant\n%s", strings.Join(got.Warnings, "\n"), strings.Join(want, "\n"))
	}
	r, _ := NewRenderer(RenderSpec{Template: template, Namespaced: true})
	if len(r.Warnings()) != len(want) {
		t.Errorf("Renderer.Warnings = %v", r.Warnings())
	}
}

func TestRenderDropsEmptyServerFieldsSilently(t *testing.T) {
	template := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, creationTimestamp: null}\nstatus: {}\n"
	got := mustRender(t, RenderSpec{Template: template}, berlin, nil)
	if strings.Contains(got.Display, "status") || strings.Contains(got.Display, "creationTimestamp") || len(got.Warnings) != 0 {
		t.Errorf("Display %s, Warnings %v; want both fields gone without warnings", got.Display, got.Warnings)
	}
}

func TestRenderReplicas(t *testing.T) {
	spec := RenderSpec{Template: deploymentYAML, Namespaced: true}
	if got := field(t, mustRender(t, spec, berlin, n(7)).Display, "spec", "replicas"); got != 7.0 {
		t.Errorf("replicas = %v, want 7", got)
	}
	if got := field(t, mustRender(t, spec, berlin, nil).Display, "spec", "replicas"); got != 3.0 {
		t.Errorf("without a count the template's replicas should stay, got %v", got)
	}
	if got := field(t, mustRender(t, spec, berlin, n(0)).Display, "spec", "replicas"); got != 0.0 {
		t.Errorf("replicas = %v, want 0", got)
	}

	custom := RenderSpec{Template: "apiVersion: example.com/v1\nkind: Pool\nmetadata: {name: p}\nspec: {size: {}}\n", ReplicasPath: "/spec/size/count"}
	if got := field(t, mustRender(t, custom, berlin, n(4)).Display, "spec", "size", "count"); got != 4.0 {
		t.Errorf("custom path count = %v, want 4", got)
	}

	_, err := Render(spec, berlin, n(-1))
	if err == nil || !strings.Contains(err.Error(), `cluster "berlin": replicas must not be negative, got -1`) {
		t.Errorf("negative replicas error = %v", err)
	}
	noSpec := RenderSpec{Template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"}
	_, err = Render(noSpec, berlin, n(2))
	if err == nil || !strings.Contains(err.Error(), `cluster "berlin": setting 2 replicas at "/spec/replicas"`) || !strings.Contains(err.Error(), "parent of the path does not exist") {
		t.Errorf("missing parent error = %v", err)
	}
	for _, bad := range []string{"spec/replicas", "/metadata/name", "/kind", "/spec/replicas/"} {
		if _, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, ReplicasPath: bad}); err == nil || !strings.HasPrefix(err.Error(), "replicas path: ") {
			t.Errorf("replicas path %q: error = %v", bad, err)
		}
	}
}

func TestRenderOrderReplicasThenOverridesThenLabel(t *testing.T) {
	spec := RenderSpec{
		Template:   deploymentYAML,
		Namespaced: true,
		Overrides: []OverrideRule{
			{Cluster: "berlin", Patches: []Patch{
				{Path: "/spec/replicas", Value: "9"},
				{Op: OpAdd, Path: "/metadata/labels/kubefed.io~1managed", Value: `"false"`},
			}},
		},
	}
	got := mustRender(t, spec, berlin, n(2))
	if r := field(t, got.Display, "spec", "replicas"); r != 9.0 {
		t.Errorf("an override of the replicas path should win over the count, got %v", r)
	}
	if l := field(t, got.Display, "metadata", "labels", "kubefed.io/managed"); l != "true" {
		t.Errorf("managed label = %v; the label is set after overrides", l)
	}
	if l := field(t, got.Display, "metadata", "labels", "app"); l != "web" {
		t.Errorf("template labels should be kept, got app=%v", l)
	}
}

func TestRenderIsByteStable(t *testing.T) {
	spec := RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: []OverrideRule{
		{Selector: &metav1.LabelSelector{}, Patches: []Patch{{Op: OpAdd, Path: "/metadata/annotations", Value: `{"z":"1","a":"2","m":{"y":1,"b":2}}`}}},
	}}
	first := mustRender(t, spec, berlin, n(5))
	for range 50 {
		again := mustRender(t, spec, berlin, n(5))
		if again.Display != first.Display || string(again.Object) != string(first.Object) {
			t.Fatalf("render changed:\n%s\n%s", first.Display, again.Display)
		}
	}
	if !strings.Contains(first.Display, `"annotations":{"a":"2","m":{"b":2,"y":1},"z":"1"}`) {
		t.Errorf("keys are not sorted: %s", first.Display)
	}
}

func TestRenderIdentity(t *testing.T) {
	r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	want := Identity{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	if r.Identity() != want {
		t.Errorf("Identity = %+v, want %+v", r.Identity(), want)
	}
}

const secretYAML = `
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: shop}
type: Opaque
data:
  password: aHVudGVyMg==
  user: YWRtaW4=
stringData:
  token: s3cr3t-token
`

func TestRenderHidesSecretValues(t *testing.T) {
	spec := RenderSpec{Template: secretYAML, Namespaced: true, Overrides: []OverrideRule{
		{Cluster: "berlin", Patches: []Patch{{Op: OpAdd, Path: "/data/extra", Value: `"ZXh0cmE="`}}},
	}}
	got := mustRender(t, spec, berlin, nil)
	for _, secret := range []string{"aHVudGVyMg==", "YWRtaW4=", "s3cr3t-token", "ZXh0cmE="} {
		if strings.Contains(got.Display, secret) {
			t.Errorf("Display reveals %s: %s", secret, got.Display)
		}
		if !strings.Contains(string(got.Object), secret) {
			t.Errorf("Object lacks %s: %s", secret, got.Object)
		}
	}
	if !got.Sensitive {
		t.Error("Sensitive = false for a Secret with data")
	}
	pw, _ := field(t, got.Display, "data", "password").(string)
	user, _ := field(t, got.Display, "data", "user").(string)
	if !strings.HasPrefix(pw, "sha256:") || len(pw) != len("sha256:")+64 || pw == user {
		t.Errorf("digests: password %q, user %q", pw, user)
	}
	if field(t, got.Display, "type") != "Opaque" || field(t, got.Display, "metadata", "name") != "db" {
		t.Errorf("non-secret fields should show: %s", got.Display)
	}

	again := mustRender(t, spec, Cluster{Name: "berlin"}, nil)
	if again.Display != got.Display {
		t.Error("digests are not stable between renders")
	}
	changed := mustRender(t, RenderSpec{Template: strings.Replace(secretYAML, "aHVudGVyMg==", "b3RoZXI=", 1), Namespaced: true}, berlin, nil)
	if field(t, changed.Display, "data", "password") == pw {
		t.Error("a changed value kept the same digest")
	}
	if field(t, changed.Display, "data", "user") != user {
		t.Error("an unchanged value changed digest")
	}
	renamed := mustRender(t, RenderSpec{Template: strings.Replace(secretYAML, "name: db", "name: db2", 1), Namespaced: true}, berlin, nil)
	if field(t, renamed.Display, "data", "user") == user {
		t.Error("the digest should be salted with the Secret's name")
	}
}

func TestRenderSecretWithoutValues(t *testing.T) {
	got := mustRender(t, RenderSpec{Template: "apiVersion: v1\nkind: Secret\nmetadata: {name: empty, namespace: ns}\ntype: Opaque\n", Namespaced: true}, berlin, nil)
	if got.Sensitive || got.Display != string(got.Object) {
		t.Errorf("a Secret without values has nothing to hide: %+v", got)
	}
}

func TestRendererIsSafeForConcurrentUse(t *testing.T) {
	r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: []OverrideRule{
		{Selector: &metav1.LabelSelector{}, Patches: []Patch{
			{Op: OpAdd, Path: "/metadata/annotations", Value: `{"a":{"b":[1,2]}}`},
			{Op: OpAdd, Path: "/metadata/annotations/a/b/-", Value: `3`},
		}},
		{Cluster: "berlin", Patches: []Patch{{Path: "/spec/template/spec/containers/0/image", Value: `"x"`}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := r.Render(berlin, n(2))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for range 8 {
		go func() {
			var last string
			for range 50 {
				got, err := r.Render(berlin, n(2))
				if err != nil {
					last = err.Error()
					break
				}
				last = got.Display
			}
			done <- last
		}()
	}
	for range 8 {
		if got := <-done; got != want.Display {
			t.Errorf("concurrent render gave %s, want %s", got, want.Display)
		}
	}
}

// TestRenderSecretDigestsArePinned pins digests as the engine has always
// computed them: a change of digest would show every Secret as changed in
// the first plan after an upgrade.
func TestRenderSecretDigestsArePinned(t *testing.T) {
	cases := []struct {
		name     string
		template string
		want     string
	}{
		{"data and stringData entries", secretYAML,
			`{"apiVersion":"v1","data":{"password":"sha256:a6270cd859d5dab095e678d03440bd0e50812c415e5f2a671251ba2e3760d793","user":"sha256:998cd4e68c60696a2e6d4be21aded36f532a2a81b66c7c298c044183107bb845"},"kind":"Secret","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"db","namespace":"shop"},"stringData":{"token":"sha256:ee32b99af8bdf9176a35a77995c5c1ee5ad81a1a02e53955b034a9a1d62e8938"},"type":"Opaque"}`},
		{"values that are not strings, HTML characters and a line separator",
			"apiVersion: v1\nkind: Secret\nmetadata: {name: odd, namespace: shop}\ndata: [1.50, {\"b\": \"<&>\"}]\nstringData:\n  note: \"x<&>\\u2028\"\n  count: 7\n",
			`{"apiVersion":"v1","data":"sha256:d78fe436cc3fe66667b15321c9600cd8ae35bf5a051c99769864a6abbbc8ef09","kind":"Secret","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"odd","namespace":"shop"},"stringData":{"count":"sha256:dc000f16661241cb1bdf38c07fb7d374bf8c7c424f84299523e27caec100d427","note":"sha256:376f66d6b960c5f819307f6305491686cb281643b7822c6d9279ad2fb0cad1a4"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustRender(t, RenderSpec{Template: tc.template, Namespaced: true}, berlin, nil)
			if got.Display != tc.want {
				t.Errorf("Display =\n%s\nwant\n%s", got.Display, tc.want)
			}
		})
	}
}

func TestRenderClusterRetainReplicas(t *testing.T) {
	spec := RenderSpec{Template: deploymentYAML, Namespaced: true, Overrides: []OverrideRule{
		{Cluster: "berlin", Patches: []Patch{{Path: "/spec/replicas", Value: "9"}}},
	}}
	r, err := NewRenderer(spec)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		cluster Cluster
		opts    RenderOptions
		want    any // spec.replicas, nil when absent
	}{
		{"a count", Cluster{Name: "tokyo"}, RenderOptions{Replicas: n(4)}, 4.0},
		{"no count keeps the template's", Cluster{Name: "tokyo"}, RenderOptions{}, 3.0},
		{"retained drops the template's", Cluster{Name: "tokyo"}, RenderOptions{RetainReplicas: true}, nil},
		{"retained drops a count", Cluster{Name: "tokyo"}, RenderOptions{Replicas: n(4), RetainReplicas: true}, nil},
		{"an override wins over a count", berlin, RenderOptions{Replicas: n(4)}, 9.0},
		{"retained drops an override's", berlin, RenderOptions{Replicas: n(4), RetainReplicas: true}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.RenderCluster(tc.cluster, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if v := field(t, got.Display, "spec", "replicas"); v != tc.want {
				t.Errorf("spec.replicas = %v, want %v", v, tc.want)
			}
			if tc.want == nil && strings.Contains(string(got.Object), `"replicas"`) {
				t.Errorf("the object holds replicas: %s", got.Object)
			}
			if field(t, got.Display, "spec", "selector", "matchLabels", "app") != "web" {
				t.Errorf("the rest of spec is gone: %s", got.Display)
			}
		})
	}
	custom, err := NewRenderer(RenderSpec{Template: "apiVersion: example.com/v1\nkind: Pool\nmetadata: {name: p}\nspec: {size: {count: 2, min: 1}}\n", ReplicasPath: "/spec/size/count"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := custom.RenderCluster(berlin, RenderOptions{Replicas: n(5), RetainReplicas: true})
	if err != nil || got.Display != `{"apiVersion":"example.com/v1","kind":"Pool","metadata":{"labels":{"kubefed.io/managed":"true"},"name":"p"},"spec":{"size":{"min":1}}}` {
		t.Errorf("a custom replicas path retained: %s, %v", got.Display, err)
	}
}

func TestRenderIsRenderClusterWithACount(t *testing.T) {
	r, err := NewRenderer(RenderSpec{Template: deploymentYAML, Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, replicas := range []*int64{nil, n(0), n(6)} {
		a, errA := r.Render(berlin, replicas)
		b, errB := r.RenderCluster(berlin, RenderOptions{Replicas: replicas})
		if errA != nil || errB != nil || a.Display != b.Display || string(a.Object) != string(b.Object) {
			t.Errorf("replicas %v: Render gives %s, %v; RenderCluster gives %s, %v", replicas, a.Display, errA, b.Display, errB)
		}
	}
	if _, err := r.RenderCluster(berlin, RenderOptions{Replicas: n(-1), RetainReplicas: true}); err == nil {
		t.Error("a negative count should be refused even when the cluster retains its replicas")
	}
}

func TestNoteNamesRulePatchAndCluster(t *testing.T) {
	n := Note{Rule: 2, Patch: 1, Cluster: "berlin", Path: "/metadata/labels/tier", Message: "something to know"}
	if got := n.String(); got != `override rule 2, patch 1, cluster "berlin": something to know` {
		t.Errorf("String() = %q", got)
	}
}
