package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

func TestRetargetPath(t *testing.T) {
	o := &appObject{at: path.Root("manifests").AtListIndex(2), rules: []int{3, 5}}
	tests := []struct {
		in   path.Path
		want string
	}{
		{path.Root("template"), "manifests[2]"},
		{path.Root("sensitive_template"), "manifests[2]"},
		{path.Root("type"), "manifests[2]"},
		{path.Root("overrides").AtListIndex(1).AtName("patches").AtListIndex(0), "overrides[5].patches[0]"},
		{path.Root("overrides").AtListIndex(0), "overrides[3]"},
		{path.Root("overrides").AtListIndex(7), "overrides"},
		{path.Root("placement").AtName("cluster_selector"), "placement.cluster_selector"},
		{path.Root("rollout_strategy").AtName("stages"), "rollout_strategy.stages"},
	}
	for _, tt := range tests {
		if got := retargetPath(tt.in, o).String(); got != tt.want {
			t.Errorf("retargetPath(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestRetargetNamesTheObject(t *testing.T) {
	o := &appObject{key: federation.Key{Version: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "settings"},
		at: path.Root("manifests").AtListIndex(0)}
	var problems objectset.Problems
	problems.AddAttributeError(objectset.Root("template"), "Invalid template", "metadata.name is required")
	problems.AddWarning("Cluster \"berlin\" is not ready", "ConfigMap shop/settings keeps what berlin holds")
	var out diag.Diagnostics
	addObjectProblems(&out, problems, o)
	if len(out) != 2 {
		t.Fatalf("got %d diagnostics", len(out))
	}
	if got := out[0].Detail(); got != "ConfigMap shop/settings: metadata.name is required" {
		t.Errorf("detail = %q", got)
	}
	if p := out[0].(diag.DiagnosticWithPath).Path().String(); p != "manifests[0]" {
		t.Errorf("path = %s", p)
	}
	if got := out[1].Detail(); strings.Count(got, "ConfigMap shop/settings") != 1 {
		t.Errorf("a detail naming the object is named again: %q", got)
	}
}

func TestManifestsOf(t *testing.T) {
	ctx := context.Background()
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n"
	secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: x}\n"
	account := "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\n"
	test := "apiVersion: v1\nkind: Pod\nmetadata: {name: t-x1y2, annotations: {helm.sh/hook: test}}\n"
	tests := []struct {
		name                 string
		manifests, sensitive []string
		defaultNamespace     types.String
		wantKeys             []string
		wantErrs             []string
		wantWarnings         []string
	}{
		{name: "a namespaced object without a namespace and no default",
			manifests: []string{cm, account},
			wantErrs:  []string{"manifests[1]: manifests[1]: element 1, document 0 (from line 1) (ServiceAccount sa): metadata.namespace is required: ServiceAccount is namespaced. Set default_namespace"}},
		{name: "the default namespace, and a test left out with a warning",
			manifests: []string{cm, account + "---\n" + test}, defaultNamespace: types.StringValue("web"),
			wantKeys: []string{"/v1/ConfigMap/x/a", "/v1/ServiceAccount/web/sa"},
			wantWarnings: []string{"manifests: Helm runs these objects at a release event or on `helm test` instead of installing them: " +
				"Pod web/t-x1y2 (helm.sh/hook: test) (manifests[1])."}},
		{name: "a default not known yet", manifests: []string{account}, defaultNamespace: types.StringUnknown(),
			wantKeys: []string{"/v1/ServiceAccount/sa"}},
		{name: "both lists, with helm's empty and comment documents",
			manifests: []string{"---\n# Source: x\n---\n" + cm + "---\n"}, sensitive: []string{secret},
			wantKeys: []string{"/v1/ConfigMap/x/a", "/v1/Secret/x/s"}},
		{name: "an object in both lists", manifests: []string{cm}, sensitive: []string{cm},
			wantErrs: []string{"sensitive_manifests[0]: ConfigMap x/a is in manifests[0] and in sensitive_manifests[0]"}},
		{name: "a Secret in clear", manifests: []string{secret},
			wantErrs: []string{"manifests[0]: Secret x/s would show its values in the plan"}},
		{name: "a document without a name", manifests: []string{cm, "apiVersion: v1\nkind: ConfigMap\n"},
			wantErrs: []string{"manifests[1]: manifests[1]: element 1, document 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &federatedApplicationModel{Manifests: listOrNull(tt.manifests), SensitiveManifests: listOrNull(tt.sensitive),
				DefaultNamespace: tt.defaultNamespace}
			var diags diag.Diagnostics
			found, _, warnings := manifestsOf(ctx, m, federation.BuiltinScope, &diags)
			for i, want := range tt.wantWarnings {
				if i >= len(warnings) || !strings.HasPrefix(warnings[i].(diag.DiagnosticWithPath).Path().String()+": "+warnings[i].Detail(), want) {
					t.Errorf("warnings %v, want %q", warnings, want)
				}
			}
			if len(warnings) != len(tt.wantWarnings) {
				t.Errorf("%d warnings, want %d: %v", len(warnings), len(tt.wantWarnings), warnings)
			}
			var keys []string
			for _, mf := range found {
				keys = append(keys, mf.Key.String())
			}
			var errs []string
			for _, d := range diags.Errors() {
				errs = append(errs, d.(diag.DiagnosticWithPath).Path().String()+": "+d.Detail())
			}
			if tt.wantErrs == nil && (len(errs) > 0 || strings.Join(keys, ",") != strings.Join(tt.wantKeys, ",")) {
				t.Fatalf("keys %v, errors %v; want keys %v", keys, errs, tt.wantKeys)
			}
			for i, want := range tt.wantErrs {
				if i >= len(errs) || !strings.HasPrefix(errs[i], want) {
					t.Errorf("errors %q, want %q first", errs, want)
				}
			}
		})
	}
}

func listOrNull(values []string) types.List {
	if values == nil {
		return types.ListNull(types.StringType)
	}
	return stringList(values)
}

func TestNestedRendered(t *testing.T) {
	perObject := map[string]map[string]string{
		"/v1/ConfigMap/x/a": {"berlin": `{"a":1}`, "new-york": `{"a":2}`},
		"/v1/Namespace/x":   {"berlin": `{"ns":1}`},
	}
	m := &federatedApplicationModel{Rendered: tfvalue.RenderedSet(perObject)}
	back := heldByObject(m)
	if len(back) != 2 || back["/v1/ConfigMap/x/a"]["new-york"] != `{"a":2}` || back["/v1/Namespace/x"]["berlin"] != `{"ns":1}` {
		t.Fatalf("round trip: %v", back)
	}
	if got := applicationClusters(m); strings.Join(got, ",") != "berlin,new-york" {
		t.Errorf("applicationClusters = %v", got)
	}
	status := nestedValue(map[string]map[string]attr.Value{"k": {"c": statusValue(map[string]reconcile.Status{"x": {Status: "OK"}}, &diag.Diagnostics{}).Elements()["x"]}}, clusterStatusType)
	if e := statusByObject(&federatedApplicationModel{ClusterStatus: status})["k"]["c"]; e.Status != "OK" {
		t.Errorf("statusByObject: %v", e)
	}
}

func TestObjectStrategy(t *testing.T) {
	objType := applicationRolloutStrategyAttribute().GetType().(types.ObjectType)
	attrs := map[string]attr.Value{}
	ctx := context.Background()
	for name, typ := range objType.AttrTypes {
		v, err := typ.ValueFromTerraform(ctx, tftypes.NewValue(typ.TerraformType(ctx), nil))
		if err != nil {
			t.Fatal(err)
		}
		attrs[name] = v
	}
	attrs["on_failure"] = types.StringValue("rollback")
	v := types.ObjectValueMust(objType.AttrTypes, attrs)
	got, onFailure := objectStrategy(v)
	if onFailure != objectset.OnFailureRollback {
		t.Errorf("on_failure = %q", onFailure)
	}
	if _, has := got.Attributes()["on_failure"]; has {
		t.Error("the federated object's strategy has on_failure")
	}
	if _, onFailure := objectStrategy(types.ObjectNull(objType.AttrTypes)); onFailure != objectset.OnFailureStop {
		t.Errorf("default on_failure = %q", onFailure)
	}
}

// The pipeline's paths become the framework's, step by step, and back.
func TestPathOfAndSetPath(t *testing.T) {
	for _, p := range []objectset.Path{
		objectset.Root("template"),
		objectset.Root("overrides").AtListIndex(3).AtName("patches").AtListIndex(0).AtName("value"),
		objectset.Root("wait").AtName("fields").AtMapKey("status.phase"),
	} {
		framework := pathOf(p)
		if framework.String() != p.String() {
			t.Errorf("pathOf(%s) = %s", p, framework)
		}
		if back := setPath(framework); back.String() != p.String() {
			t.Errorf("setPath(pathOf(%s)) = %s", p, back)
		}
	}
}

// A chart rendered again, with the same values but a new random name for
// its test Pod, plans the state's text; a change of an object plans the
// configuration's.
func TestKeepPriorManifests(t *testing.T) {
	ctx := context.Background()
	render := func(testName, replicas string) types.List {
		return stringList([]string{"apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\n---\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: " + replicas + "}\n---\n" +
			"apiVersion: v1\nkind: Pod\nmetadata: {name: " + testName + ", annotations: {helm.sh/hook: test}}\n"})
	}
	prior := &federatedApplicationModel{Manifests: render("web-test-ab1cd", "1"), SensitiveManifests: types.ListNull(types.StringType),
		DefaultNamespace: types.StringValue("web")}
	for _, tt := range []struct {
		name      string
		manifests types.List
		keepPrior bool
	}{
		{"rendered again", render("web-test-x9y8z", "1"), true},
		{"a value changed", render("web-test-x9y8z", "2"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan := &federatedApplicationModel{Manifests: tt.manifests, SensitiveManifests: types.ListNull(types.StringType),
				DefaultNamespace: types.StringValue("web")}
			keepPriorManifests(ctx, plan, prior, federation.BuiltinScope)
			if kept := plan.Manifests.Equal(prior.Manifests); kept != tt.keepPrior {
				t.Fatalf("planned the state's manifests: %v, want %v", kept, tt.keepPrior)
			}
			if !tt.keepPrior && !plan.Manifests.Equal(tt.manifests) {
				t.Fatal("the configuration's manifests are not planned")
			}
		})
	}
	create := &federatedApplicationModel{Manifests: render("web-test-x9y8z", "1"), DefaultNamespace: types.StringValue("web")}
	keepPriorManifests(ctx, create, nil, federation.BuiltinScope)
	if create.Manifests.Equal(prior.Manifests) {
		t.Fatal("a create plans the state's manifests")
	}
}
