package federation

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestObjectsByName(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // the result as JSON
		wantErr    string
	}{
		{"documents as helm template prints them, nulls left out",
			"---\n# Source: web/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: shop\n  creationTimestamp: null\ndata: {a: \"1\"}\n" +
				"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n---\n",
			`{"ConfigMap/shop/web":{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"name":"web","namespace":"shop"}},` +
				`"Deployment.apps/web":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}}`, ""},
		{"a List stands for its items",
			`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}]}`,
			`{"Namespace/shop":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}}`, ""},
		{"nothing", "# only a comment\n", `{}`, ""},
		{"an object twice", "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n",
			"", "Namespace shop"},
		{"a document without a kind", "apiVersion: v1\nmetadata: {name: x}\n", "", "kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ObjectsByName(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text, _ := json.Marshal(got)
			if string(text) != tt.want {
				t.Errorf("ObjectsByName =\n%s\nwant\n%s", text, tt.want)
			}
		})
	}
}

func TestObjectName(t *testing.T) {
	for key, want := range map[Key]string{
		{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "shop", Name: "web"}: "Deployment.apps/shop/web",
		{Version: "v1", Kind: "Namespace", Name: "shop"}:                                   "Namespace/shop",
	} {
		if got := ObjectName(key); got != want {
			t.Errorf("ObjectName(%v) = %s, want %s", key, got, want)
		}
	}
}
