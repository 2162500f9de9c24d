package federation

import (
	"slices"
	"strings"
	"testing"
)

func TestObjectKeysRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		key  Key
		want string
	}{
		{"a namespaced object of the core group", Key{Version: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "settings"}, "/v1/ConfigMap/shop/settings"},
		{"a namespaced object of a named group", Key{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "shop", Name: "web"}, "apps/v1/Deployment/shop/web"},
		{"a cluster-scoped object of the core group", Key{Version: "v1", Kind: "Namespace", Name: "shop"}, "/v1/Namespace/shop"},
		{"a cluster-scoped object of a dotted group", Key{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: "system:reader"}, "rbac.authorization.k8s.io/v1/ClusterRole/system:reader"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.key.String(); got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
			back, err := ParseKey(tt.want)
			if err != nil || back != tt.key {
				t.Fatalf("ParseKey(%q) = %+v, %v; want %+v", tt.want, back, err, tt.key)
			}
		})
	}
}

func TestParseKeyRefusesWhatNoObjectHas(t *testing.T) {
	tests := []struct{ name, key, want string }{
		{"too few parts", "v1/ConfigMap/settings", "is not <group>/<version>/<Kind>"},
		{"too many parts", "a/v1/ConfigMap/ns/name/extra", "is not <group>/<version>/<Kind>"},
		{"an empty namespace part", "/v1/ConfigMap//settings", "empty namespace"},
		{"no version", "apps//Deployment/shop/web", "lacks a version, kind or name"},
		{"no kind", "/v1//shop/web", "lacks a version, kind or name"},
		{"no name", "/v1/Namespace/", "lacks a version, kind or name"},
		{"empty", "", "is not <group>/<version>/<Kind>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseKey(tt.key); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseKey(%q) error %v, want %q", tt.key, err, tt.want)
			}
		})
	}
}

func TestObjectKeysSortByGroupVersionKindNamespaceName(t *testing.T) {
	keys := []string{
		"apps/v1/Deployment/shop/web",
		"/v1/Service/shop/web",
		"/v1/ConfigMap/shop/settings",
		"/v1/ConfigMap/auth/settings",
		"/v1/Namespace/shop",
		"apps/v1/Deployment/auth/api",
	}
	slices.Sort(keys)
	want := []string{
		"/v1/ConfigMap/auth/settings",
		"/v1/ConfigMap/shop/settings",
		"/v1/Namespace/shop",
		"/v1/Service/shop/web",
		"apps/v1/Deployment/auth/api",
		"apps/v1/Deployment/shop/web",
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("sorted keys %v, want %v", keys, want)
	}
}

func TestKeyNamesItsObject(t *testing.T) {
	tests := []struct {
		key                  Key
		apiVersion, describe string
	}{
		{Key{Version: "v1", Kind: "Namespace", Name: "shop"}, "v1", "Namespace shop"},
		{Key{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "shop", Name: "web"}, "apps/v1", "Deployment shop/web"},
	}
	for _, tt := range tests {
		if got := tt.key.APIVersion(); got != tt.apiVersion {
			t.Errorf("%v: APIVersion() = %q, want %q", tt.key, got, tt.apiVersion)
		}
		if got := tt.key.Object(); got != tt.describe {
			t.Errorf("%v: Object() = %q, want %q", tt.key, got, tt.describe)
		}
	}
}
