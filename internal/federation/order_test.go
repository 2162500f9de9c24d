package federation

import (
	"reflect"
	"slices"
	"testing"
)

// keys parses key strings, for tables.
func keys(t *testing.T, ss ...string) []Key {
	t.Helper()
	out := make([]Key, len(ss))
	for i, s := range ss {
		k, err := ParseKey(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = k
	}
	return out
}

// stepStrings writes steps as key strings.
func stepStrings(steps [][]Key) [][]string {
	out := make([][]string, len(steps))
	for i, step := range steps {
		for _, k := range step {
			out[i] = append(out[i], k.String())
		}
	}
	return out
}

func TestApplyOrderFollowsDependencies(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want [][]string
	}{
		{"namespace, config, workload and service of an application",
			[]string{"apps/v1/Deployment/shop/web", "/v1/Service/shop/web", "/v1/ConfigMap/shop/settings", "/v1/Namespace/shop"},
			[][]string{{"/v1/Namespace/shop"}, {"/v1/ConfigMap/shop/settings"}, {"/v1/Service/shop/web"}, {"apps/v1/Deployment/shop/web"}}},
		{"a chart with identity and permissions",
			[]string{
				"apps/v1/Deployment/shop/web", "/v1/ServiceAccount/shop/web", "rbac.authorization.k8s.io/v1/RoleBinding/shop/web",
				"rbac.authorization.k8s.io/v1/Role/shop/web", "/v1/Secret/shop/tls", "/v1/ConfigMap/shop/settings",
				"/v1/PersistentVolumeClaim/shop/data", "apps/v1/StatefulSet/shop/db", "batch/v1/Job/shop/migrate",
			},
			[][]string{
				{"/v1/ServiceAccount/shop/web"}, {"rbac.authorization.k8s.io/v1/Role/shop/web"}, {"rbac.authorization.k8s.io/v1/RoleBinding/shop/web"},
				{"/v1/ConfigMap/shop/settings", "/v1/Secret/shop/tls"}, {"/v1/PersistentVolumeClaim/shop/data"},
				{"apps/v1/Deployment/shop/web", "apps/v1/StatefulSet/shop/db", "batch/v1/Job/shop/migrate"},
			}},
		{"definitions before their custom resources, which go after the workloads",
			[]string{"example.com/v1/Widget/shop/w", "apiextensions.k8s.io/v1/CustomResourceDefinition/widgets.example.com", "apps/v1/Deployment/shop/web"},
			[][]string{{"apiextensions.k8s.io/v1/CustomResourceDefinition/widgets.example.com"}, {"apps/v1/Deployment/shop/web"}, {"example.com/v1/Widget/shop/w"}}},
		{"policies that admit pods before service accounts",
			[]string{"/v1/ServiceAccount/shop/a", "/v1/LimitRange/shop/l", "policy/v1/PodDisruptionBudget/shop/p", "/v1/ResourceQuota/shop/q"},
			[][]string{{"/v1/LimitRange/shop/l", "/v1/ResourceQuota/shop/q", "policy/v1/PodDisruptionBudget/shop/p"}, {"/v1/ServiceAccount/shop/a"}}},
		{"webhooks after everything else, custom resources included",
			[]string{"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration/check", "example.com/v1/Widget/shop/w", "networking.k8s.io/v1/Ingress/shop/web", "/v1/Service/shop/hook"},
			[][]string{{"/v1/Service/shop/hook"}, {"example.com/v1/Widget/shop/w", "networking.k8s.io/v1/Ingress/shop/web"}, {"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration/check"}}},
		{"a custom resource named like a core kind is not that kind",
			[]string{"serving.knative.dev/v1/Service/shop/web", "/v1/Service/shop/web", "/v1/ConfigMap/shop/c"},
			[][]string{{"/v1/ConfigMap/shop/c"}, {"/v1/Service/shop/web"}, {"serving.knative.dev/v1/Service/shop/web"}}},
		{"one object", []string{"/v1/ConfigMap/shop/c"}, [][]string{{"/v1/ConfigMap/shop/c"}}},
		{"no objects", nil, [][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := keys(t, tt.keys...)
			got := stepStrings(ApplyOrder(in))
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ApplyOrder = %v\nwant        %v", got, tt.want)
			}
			removal := stepStrings(RemoveOrder(in))
			slices.Reverse(removal)
			if !reflect.DeepEqual(removal, tt.want) {
				t.Fatalf("RemoveOrder reversed = %v, want ApplyOrder's steps %v", removal, tt.want)
			}
		})
	}
}

// Every listed kind is placed where it is listed, and no kind is listed
// twice: the order is data, and a kind listed twice would be ambiguous.
func TestInstallTiersPlaceEachKindOnce(t *testing.T) {
	listed := map[groupKind]int{}
	list := func(gk groupKind, tier int) {
		if first, dup := listed[gk]; dup {
			t.Errorf("%v is listed in tiers %d and %d", gk, first, tier)
		}
		listed[gk] = tier
	}
	for i, tier := range installTiers {
		for _, gk := range tier {
			list(gk, i)
		}
	}
	for _, gk := range webhookKinds {
		list(gk, len(installTiers)+1)
	}
	for gk, tier := range listed {
		if got := tierOf(Key{Group: gk.group, Kind: gk.kind}); got != tier {
			t.Errorf("%v is placed in tier %d, listed in %d", gk, got, tier)
		}
	}
}

// ApplyOrder does not change the caller's keys, and orders the same set
// the same way whatever order it comes in.
func TestApplyOrderIsStable(t *testing.T) {
	in := keys(t, "apps/v1/Deployment/shop/b", "apps/v1/Deployment/shop/a", "/v1/Namespace/shop", "/v1/ConfigMap/shop/c")
	kept := slices.Clone(in)
	first := stepStrings(ApplyOrder(in))
	if !slices.Equal(in, kept) {
		t.Fatalf("ApplyOrder changed its input to %v", in)
	}
	slices.Reverse(in)
	if again := stepStrings(ApplyOrder(in)); !reflect.DeepEqual(first, again) {
		t.Fatalf("order depends on the input's order: %v and %v", first, again)
	}
}
