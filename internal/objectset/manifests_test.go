package objectset

import (
	"errors"
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

func TestManifests(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n"
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: x}\n"
	account := "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\n"
	test := "apiVersion: v1\nkind: Pod\nmetadata: {name: t-x1y2, annotations: {helm.sh/hook: test}}\n"
	tests := []struct {
		name                 string
		manifests, sensitive []string
		objects              [][2]string // key, JSON
		defaultNamespace     string
		wantKeys, wantAt     []string
		wantErrs, wantHooks  []string
	}{
		{name: "a namespaced object without a namespace and no default", manifests: []string{cm, account},
			wantErrs: []string{"manifests[1]: manifests[1]: element 1, document 0 (from line 1) (ServiceAccount sa): metadata.namespace is required: ServiceAccount is namespaced. Set default_namespace"}},
		{name: "the default namespace, and a test left out with a warning",
			manifests: []string{cm, account + "---\n" + test}, defaultNamespace: "web",
			wantKeys: []string{"/v1/ConfigMap/x/a", "/v1/ServiceAccount/web/sa"}, wantAt: []string{"manifests[0]", "manifests[1]"},
			wantHooks: []string{"manifests: Helm runs these objects at a release event or on `helm test` instead of installing them: " +
				"Pod web/t-x1y2 (helm.sh/hook: test) (manifests[1])."}},
		{name: "both lists", manifests: []string{"---\n# Source: x\n---\n" + cm + "---\n"}, sensitive: []string{secret},
			wantKeys: []string{"/v1/ConfigMap/x/a", "/v1/Secret/x/s"}, wantAt: []string{"manifests[0]", "sensitive_manifests[0]"}},
		{name: "an object in both lists", manifests: []string{cm}, sensitive: []string{cm},
			wantErrs: []string{"sensitive_manifests[0]: ConfigMap x/a is in manifests[0] and in sensitive_manifests[0]"}},
		{name: "a Secret in clear", manifests: []string{secret},
			wantErrs: []string{"manifests[0]: Secret x/s would show its values in the plan"}},
		{name: "objects as values, at their keys",
			objects: [][2]string{{"config", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"x"}}`},
				{"web", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"x"}}`}},
			manifests: []string{cm},
			wantKeys:  []string{"/v1/ConfigMap/x/a", "/v1/ConfigMap/x/b", "apps/v1/Deployment/x/web"},
			wantAt:    []string{"manifests[0]", `manifest_objects["config"]`, `manifest_objects["web"]`}},
		{name: "a Secret among the objects as values",
			objects:  [][2]string{{"s", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"x"}}`}},
			wantErrs: []string{`manifest_objects["s"]: Secret x/s would show its values in the plan`}},
		{name: "an object both as text and as a value", manifests: []string{cm},
			objects:  [][2]string{{"again", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x"}}`}},
			wantErrs: []string{`manifest_objects["again"]: ConfigMap x/a is in manifests[0] and in manifest_objects["again"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lists []ManifestList
			if tt.manifests != nil {
				lists = append(lists, ManifestList{Name: "manifests", Elements: tt.manifests})
			}
			if tt.sensitive != nil {
				lists = append(lists, ManifestList{Name: "sensitive_manifests", Elements: tt.sensitive, Sensitive: true})
			}
			if tt.objects != nil {
				l := ManifestList{Name: "manifest_objects"}
				for _, o := range tt.objects {
					l.Keys, l.Elements = append(l.Keys, o[0]), append(l.Elements, o[1])
				}
				lists = append(lists, l)
			}
			opts := federation.ManifestOptions{DefaultNamespace: tt.defaultNamespace, Scope: federation.BuiltinScope}
			found, at, problems, hooks := Manifests(lists, opts)
			if got := problemLines(hooks); !prefixes(got, tt.wantHooks) {
				t.Errorf("hooks %q, want %q", got, tt.wantHooks)
			}
			if got := problemLines(problems); !prefixes(got, tt.wantErrs) {
				t.Errorf("errors %q, want %q", got, tt.wantErrs)
			}
			if tt.wantErrs != nil {
				return
			}
			var keys, paths []string
			for i, mf := range found {
				keys, paths = append(keys, mf.Key.String()), append(paths, at[i].String())
			}
			if strings.Join(keys, ",") != strings.Join(tt.wantKeys, ",") || strings.Join(paths, ",") != strings.Join(tt.wantAt, ",") {
				t.Errorf("keys %v at %v, want %v at %v", keys, paths, tt.wantKeys, tt.wantAt)
			}
		})
	}
}

func problemLines(problems Problems) []string {
	var out []string
	for _, p := range problems {
		out = append(out, p.At.String()+": "+p.Detail)
	}
	return out
}

func prefixes(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

func TestSplitErrors(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{{"none", nil, 0}, {"one", a, 1}, {"joined", errors.Join(a, b), 2}} {
		if got := SplitErrors(tc.err); len(got) != tc.want {
			t.Errorf("%s: %d errors, want %d", tc.name, len(got), tc.want)
		}
	}
}
