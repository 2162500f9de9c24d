package objectset

import (
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// What an import takes as a template's text: the configuration's, when the
// host recorded it and it still means the host's template, else the text
// jsonencode writes for the host's template.
func TestTemplateFromHost(t *testing.T) {
	configMaps := registry.NewFederatedType(registry.APIResource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Namespaced: true},
		registry.Enabled, registry.Disabled)
	namespaces := registry.NewFederatedType(registry.APIResource{Version: "v1", Kind: "Namespace", Plural: "namespaces"},
		registry.Enabled, registry.Disabled)
	// The host's template of a ConfigMap "web" in "apps".
	hostTemplate := func() map[string]any {
		return map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"data": map[string]any{"page": "<b>a & b</b>", "ratio": "0.5"}}
	}
	host := func(text string) registry.FederatedObject {
		return registry.FederatedObject{Namespace: "apps", Name: "web", Template: hostTemplate(), TemplateText: text}
	}
	const jsonencoded = `{"apiVersion":"v1","data":{"page":"\u003cb\u003ea \u0026 b\u003c/b\u003e","ratio":"0.5"},"kind":"ConfigMap",` +
		`"metadata":{"labels":{"app":"web"},"name":"web","namespace":"apps"}}`
	const yamlText = "\"apiVersion\": \"v1\"\n\"data\":\n  \"page\": \"<b>a & b</b>\"\n  \"ratio\": \"0.5\"\n\"kind\": \"ConfigMap\"\n" +
		"\"metadata\":\n  \"labels\":\n    \"app\": \"web\"\n  \"name\": \"web\"\n  \"namespace\": \"apps\"\n"
	tests := []struct {
		name string
		ft   registry.FederatedType
		host registry.FederatedObject
		id   [2]string
		want string
	}{
		{"a yamlencode text the provider recorded comes back as written", configMaps, host(yamlText), [2]string{"apps", "web"}, yamlText},
		{"a JSON text in its own key order and with a null field comes back as written", configMaps,
			host(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"web","namespace":"apps","labels":{"app":"web"},"annotations":null},` +
				`"data":{"ratio":"0.5","page":"<b>a & b</b>"}}`),
			[2]string{"apps", "web"},
			`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"web","namespace":"apps","labels":{"app":"web"},"annotations":null},` +
				`"data":{"ratio":"0.5","page":"<b>a & b</b>"}}`},
		{"a record kubectl or KubeFed wrote comes back in jsonencode's form", configMaps, host(""), [2]string{"apps", "web"}, jsonencoded},
		{"a recorded text the host's template no longer means gives way to the host's", configMaps,
			host(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"apps","labels":{"app":"web"}},"data":{"page":"old"}}`),
			[2]string{"apps", "web"}, jsonencoded},
		{"a recorded text of another object gives way to the host's", configMaps,
			host(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"api","namespace":"apps","labels":{"app":"web"}},` +
				`"data":{"page":"<b>a & b</b>","ratio":"0.5"}}`),
			[2]string{"apps", "web"}, jsonencoded},
		{"a recorded text that does not decode gives way to the host's", configMaps, host("{not json"), [2]string{"apps", "web"}, jsonencoded},
		{"a cluster-scoped object without a template", namespaces,
			registry.FederatedObject{Namespace: "team", Name: "team", TemplateText: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n"},
			[2]string{"", "team"}, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n"},
		{"a cluster-scoped object without a template or text", namespaces, registry.FederatedObject{Namespace: "team", Name: "team"},
			[2]string{"", "team"}, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TemplateFromHost(tt.ft, tt.id[0], tt.id[1], tt.host)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("TemplateFromHost =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// Numbers mean their value, whatever their form: the text recorded with
// 1.0 and 1e1 means the host's 1 and 10.
func TestTemplateFromHostComparesNumbersByValue(t *testing.T) {
	deployments := registry.NewFederatedType(registry.APIResource{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments",
		Namespaced: true}, registry.Enabled, registry.Disabled)
	text := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"apps"},"spec":{"replicas":1.0,"minReadySeconds":1e1}}`
	host := registry.FederatedObject{Namespace: "apps", Name: "web", TemplateText: text,
		Template: map[string]any{"spec": map[string]any{"replicas": int64(1), "minReadySeconds": int64(10)}}}
	if got, _ := TemplateFromHost(deployments, "apps", "web", host); got != text {
		t.Errorf("TemplateFromHost = %s, want the recorded text", got)
	}
	host.Template["spec"].(map[string]any)["replicas"] = int64(2)
	want := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"apps"},"spec":{"minReadySeconds":10,"replicas":2}}`
	if got, _ := TemplateFromHost(deployments, "apps", "web", host); got != want {
		t.Errorf("TemplateFromHost after the host changed = %s, want %s", got, want)
	}
}
