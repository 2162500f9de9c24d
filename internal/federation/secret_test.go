package federation

import (
	"slices"
	"testing"
)

func TestSecretValues(t *testing.T) {
	tests := []struct {
		name     string
		template string
		want     []string
	}{
		{
			name:     "data values as written and decoded",
			template: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"shop"},"data":{"password":"aHVudGVyMg=="}}`,
			want:     []string{"aHVudGVyMg==", "hunter2"},
		},
		{
			name:     "stringData values as written and encoded",
			template: "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: shop}\nstringData: {token: hunter2}\n",
			want:     []string{"hunter2", "aHVudGVyMg=="},
		},
		{
			name:     "a data value that is not base64 is taken as written",
			template: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"shop"},"data":{"password":"not base64!"}}`,
			want:     []string{"not base64!"},
		},
		{
			name:     "the same value twice is listed once",
			template: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"shop"},"data":{"a":"aHVudGVyMg=="},"stringData":{"b":"hunter2"}}`,
			want:     []string{"aHVudGVyMg==", "hunter2"},
		},
		{
			name:     "a ConfigMap holds no secret",
			template: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"db","namespace":"shop"},"data":{"password":"hunter2"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRenderer(RenderSpec{Template: tt.template, Namespaced: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.SecretValues(); !slices.Equal(got, tt.want) {
				t.Errorf("SecretValues() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWritesSecretValues(t *testing.T) {
	tests := []struct {
		pointer string
		want    bool
	}{
		{"/data/password", true},
		{"/data", true},
		{"/stringData/token", true},
		{"/metadata/labels/data", false},
		{"/type", false},
		{"/datum", false},
		{"not a pointer", false},
	}
	for _, tt := range tests {
		if got := WritesSecretValues(tt.pointer); got != tt.want {
			t.Errorf("WritesSecretValues(%q) = %v, want %v", tt.pointer, got, tt.want)
		}
	}
}
