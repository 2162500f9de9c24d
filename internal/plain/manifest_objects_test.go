package plain

import (
	"math/big"
	"strings"
	"testing"
)

func TestManifestObjects(t *testing.T) {
	web := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "web"},
		"data": map[string]any{"n": "1"}, "spec": map[string]any{"port": big.NewFloat(8080), "ratio": big.NewFloat(0.5)}}
	tests := []struct {
		name       string
		in         any
		wantKeys   string
		wantTexts  string
		wantErrSub string
	}{
		{"objects in the keys' order, numbers as written", map[string]any{"z": map[string]any{"kind": "Namespace"}, "a": web},
			"a,z", `{"apiVersion":"v1","data":{"n":"1"},"kind":"ConfigMap","metadata":{"name":"web"},"spec":{"port":8080,"ratio":0.5}}|{"kind":"Namespace"}`, ""},
		{"a list", []any{web}, "", "", "manifest_objects is a list; write an object or map"},
		{"text where an object goes", map[string]any{"web": "apiVersion: v1"}, "", "", `manifest_objects["web"] is a string, not a Kubernetes object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, texts, err := ManifestObjects(tt.in)
			if tt.wantErrSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSub) {
					t.Fatalf("error %v, want %q", err, tt.wantErrSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(keys, ",") != tt.wantKeys || strings.Join(texts, "|") != tt.wantTexts {
				t.Errorf("got %v %v, want %s %s", keys, texts, tt.wantKeys, tt.wantTexts)
			}
		})
	}
}
