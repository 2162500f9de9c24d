package federation

import (
	"errors"
	"strings"
	"testing"
)

// Documents as `helm template` prints a chart made by `helm create`: no
// namespace on any object, and a test Pod.
const (
	chartServiceAccount = "# Source: mychart/templates/serviceaccount.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: rel-mychart\n"
	chartDeployment     = "# Source: mychart/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: rel-mychart\nspec:\n  replicas: 1\n"
	chartTestPod        = "# Source: mychart/templates/tests/test-connection.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: \"rel-mychart-test-%s\"\n  annotations:\n    \"helm.sh/hook\": test\n"
	chartNamespace      = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n"
	chartClusterRole    = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: rel-reader\n"
	chartWidget         = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
)

func chart(docs ...string) string { return "---\n" + strings.Join(docs, "\n---\n") }

// exampleScope knows the built-in kinds and, as the enabled types would,
// Widgets, which are namespaced.
func exampleScope(group, kind string) (bool, bool) {
	if group == "example.com" && kind == "Widget" {
		return true, true
	}
	return BuiltinScope(group, kind)
}

func TestParseManifestsGivesTheDefaultNamespace(t *testing.T) {
	tests := []struct {
		name     string
		elements []string
		opts     ManifestOptions
		want     []string // keys, hooks marked with a "hook:" prefix
		wantErr  string
	}{
		{name: "namespaced objects without one get the default; the cluster-scoped do not",
			elements: []string{chart(chartNamespace, chartServiceAccount, chartDeployment, chartClusterRole)},
			opts:     ManifestOptions{DefaultNamespace: "web", Scope: BuiltinScope},
			want: []string{"/v1/Namespace/web", "/v1/ServiceAccount/web/rel-mychart", "apps/v1/Deployment/web/rel-mychart",
				"rbac.authorization.k8s.io/v1/ClusterRole/rel-reader"}},
		{name: "an object that names its namespace keeps it",
			elements: []string{configMapDoc},
			opts:     ManifestOptions{DefaultNamespace: "web", Scope: BuiltinScope},
			want:     []string{"/v1/ConfigMap/shop/settings"}},
		{name: "a kind the scope does not know is left as written",
			elements: []string{chartWidget},
			opts:     ManifestOptions{DefaultNamespace: "web", Scope: BuiltinScope},
			want:     []string{"example.com/v1/Widget/w"}},
		{name: "a kind the enabled types know gets it",
			elements: []string{chartWidget},
			opts:     ManifestOptions{DefaultNamespace: "web", Scope: exampleScope},
			want:     []string{"example.com/v1/Widget/web/w"}},
		{name: "without a scope, nothing is known: no default, no error",
			elements: []string{chartServiceAccount},
			opts:     ManifestOptions{DefaultNamespace: "web"},
			want:     []string{"/v1/ServiceAccount/rel-mychart"}},
		{name: "hooks are read with their hook, and given the default too",
			elements: []string{chart(chartServiceAccount, strings.ReplaceAll(chartTestPod, "%s", "x1y2z"))},
			opts:     ManifestOptions{DefaultNamespace: "web", Scope: BuiltinScope},
			want:     []string{"/v1/ServiceAccount/web/rel-mychart", "hook:/v1/Pod/web/rel-mychart-test-x1y2z"}},
		{name: "a namespaced built-in kind without a namespace and no default",
			elements: []string{chartNamespace, chart(chartClusterRole, chartServiceAccount)},
			opts:     ManifestOptions{Scope: BuiltinScope},
			wantErr:  "element 1, document 1 (from line 8) (ServiceAccount rel-mychart): metadata.namespace is required: ServiceAccount is namespaced"},
		{name: "a hook without a namespace and no default is no error",
			elements: []string{strings.ReplaceAll(chartTestPod, "%s", "a")},
			opts:     ManifestOptions{Scope: BuiltinScope},
			want:     []string{"hook:/v1/Pod/rel-mychart-test-a"}},
		{name: "the default makes an object the same as one that names it",
			elements: []string{chartServiceAccount, strings.ReplaceAll(chartServiceAccount, "  name: rel-mychart\n", "  name: rel-mychart\n  namespace: web\n")},
			opts:     ManifestOptions{DefaultNamespace: "web", Scope: BuiltinScope},
			wantErr:  "element 1, document 0 (from line 1) (ServiceAccount web/rel-mychart): the same object as element 0"},
		{name: "a hook is never a second copy of an object",
			elements: []string{chartServiceAccount, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: rel-mychart, annotations: {helm.sh/hook: pre-install}}\n"},
			opts:     ManifestOptions{DefaultNamespace: "web", Scope: BuiltinScope},
			want:     []string{"/v1/ServiceAccount/web/rel-mychart", "hook:/v1/ServiceAccount/web/rel-mychart"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseManifests(tt.elements, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, m := range got {
				k := m.Key.String()
				if m.Hook != "" {
					k = "hook:" + k
				}
				keys = append(keys, k)
			}
			if strings.Join(keys, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("keys %q, want %q", keys, tt.want)
			}
		})
	}
}

// The default namespace is in the template the renderer takes, so that
// the plan shows it.
func TestParseManifestsWritesTheDefaultIntoTheTemplate(t *testing.T) {
	got, err := ParseManifests([]string{chartServiceAccount}, ManifestOptions{DefaultNamespace: "web", Scope: BuiltinScope})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"rel-mychart","namespace":"web"}}`; got[0].Template != want {
		t.Fatalf("template %s, want %s", got[0].Template, want)
	}
}

func TestMissingNamespaceErrorIsTyped(t *testing.T) {
	_, err := ParseManifests([]string{chartDeployment}, ManifestOptions{Scope: BuiltinScope})
	var missing *MissingNamespaceError
	var me *ManifestError
	if !errors.As(err, &missing) || missing.Kind != "Deployment" || !errors.As(err, &me) || me.Element != 0 {
		t.Fatalf("error %v is not a *MissingNamespaceError about element 0", err)
	}
}

func TestSplitHooksAndTheirNames(t *testing.T) {
	parsed, err := ParseManifests([]string{chart(chartServiceAccount, strings.ReplaceAll(chartTestPod, "%s", "connection"),
		"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  namespace: db\n  annotations: {helm.sh/hook: \"pre-install,pre-upgrade\"}\n")},
		ManifestOptions{DefaultNamespace: "web", Scope: BuiltinScope})
	if err != nil {
		t.Fatal(err)
	}
	objects, hooks := SplitHooks(parsed)
	if len(objects) != 1 || objects[0].Key.Kind != "ServiceAccount" {
		t.Fatalf("objects %+v, want the ServiceAccount alone", objects)
	}
	want := []string{"Pod web/rel-mychart-test-connection (helm.sh/hook: test)", "Job db/migrate (helm.sh/hook: pre-install,pre-upgrade)"}
	if got := HookNames(hooks); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("hook names %q, want %q", got, want)
	}
}

func TestSameObjects(t *testing.T) {
	opts := ManifestOptions{DefaultNamespace: "web", Scope: BuiltinScope}
	rendered := func(testSuffix string) []string {
		return []string{chartNamespace, chart(chartServiceAccount, chartDeployment, strings.ReplaceAll(chartTestPod, "%s", testSuffix))}
	}
	tests := []struct {
		name string
		a, b []string
		opts ManifestOptions
		want bool
	}{
		{"a chart rendered again: only the test Pod's random name differs", rendered("ab1cd"), rendered("x9y8z"), opts, true},
		{"comments, layout and key order", []string{chartServiceAccount},
			[]string{"{\"metadata\": {\"name\": \"rel-mychart\"}, \"kind\": \"ServiceAccount\", \"apiVersion\": \"v1\"}"}, opts, true},
		{"a value changed", []string{chartDeployment}, []string{strings.Replace(chartDeployment, "replicas: 1", "replicas: 2", 1)}, opts, false},
		{"an object added", []string{chartServiceAccount}, []string{chart(chartServiceAccount, chartDeployment)}, opts, false},
		{"the same objects in other elements", []string{chartNamespace, chartServiceAccount}, []string{chart(chartNamespace, chartServiceAccount)}, opts, true},
		{"the same objects in another order", []string{chartNamespace, chartServiceAccount}, []string{chartServiceAccount, chartNamespace}, opts, true},
		{"one object twice against once", []string{chartServiceAccount, chartNamespace}, []string{chart(chartServiceAccount, chartNamespace), chartServiceAccount}, opts, false},
		{"an element added", []string{chartServiceAccount}, []string{chartServiceAccount, chartNamespace}, opts, false},
		{"a test that becomes an object", []string{strings.ReplaceAll(chartTestPod, "%s", "a")},
			[]string{strings.Replace(strings.ReplaceAll(chartTestPod, "%s", "a"), "\"helm.sh/hook\": test", "note: x", 1)}, opts, false},
		{"texts that do not parse", []string{"kind: ["}, []string{"kind: ["}, opts, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameObjects(tt.a, tt.b, tt.opts); got != tt.want {
				t.Fatalf("SameObjects = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBuiltinScope(t *testing.T) {
	for _, tt := range []struct {
		group, kind       string
		namespaced, known bool
	}{
		{"", "ServiceAccount", true, true},
		{"", "Namespace", false, true},
		{"apps", "Deployment", true, true},
		{"rbac.authorization.k8s.io", "ClusterRole", false, true},
		{"apiextensions.k8s.io", "CustomResourceDefinition", false, true},
		{"", "Deployment", false, false},
		{"example.com", "Widget", false, false},
	} {
		if namespaced, known := BuiltinScope(tt.group, tt.kind); namespaced != tt.namespaced || known != tt.known {
			t.Errorf("BuiltinScope(%q, %q) = %v, %v; want %v, %v", tt.group, tt.kind, namespaced, known, tt.namespaced, tt.known)
		}
	}
}
