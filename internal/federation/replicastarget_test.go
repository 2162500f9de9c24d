package federation

import (
	"strings"
	"testing"
)

func TestReplicasTargetIsTheSetsOneScalableObject(t *testing.T) {
	tests := []struct {
		name    string
		objects []string
		named   *ObjectRef
		want    string
		wantErr string
	}{
		{"the one Deployment", shopSet, nil, "apps/v1/Deployment/shop/web", ""},
		{"the one StatefulSet", []string{"/v1/Service/shop/db", "apps/v1/StatefulSet/shop/db"}, nil, "apps/v1/StatefulSet/shop/db", ""},
		{"the one named among several",
			[]string{"apps/v1/Deployment/shop/web", "apps/v1/ReplicaSet/shop/web", "apps/v1/StatefulSet/shop/db"},
			&ObjectRef{Kind: "StatefulSet", Name: "db"}, "apps/v1/StatefulSet/shop/db", ""},
		{"the one named with its namespace", shopSet, &ObjectRef{Kind: "Deployment", Name: "web", Namespace: "shop"}, "apps/v1/Deployment/shop/web", ""},
		{"several and none named",
			[]string{"apps/v1/Deployment/shop/web", "apps/v1/Deployment/shop/api", "/v1/ConfigMap/shop/c"}, nil, "",
			"the set holds 2 objects the cluster replicas could go to (Deployment shop/api (apps/v1), Deployment shop/web (apps/v1)); name one with replicas_object"},
		{"none", []string{"/v1/ConfigMap/shop/c", "apps/v1/DaemonSet/shop/agent"}, nil, "",
			"the set holds no Deployment, StatefulSet or ReplicaSet for the cluster replicas to go to"},
		{"a custom resource called Deployment", []string{"example.com/v1/Deployment/shop/web"}, nil, "",
			"the set holds no Deployment, StatefulSet or ReplicaSet"},
		{"the one named is not in the set", shopSet, &ObjectRef{Kind: "Deployment", Name: "api"}, "",
			"replicas_object: no object of the set is Deployment api; its Deployment objects: Deployment shop/web (apps/v1)"},
		{"the one named has no replicas", shopSet, &ObjectRef{Kind: "ConfigMap", Name: "settings", Namespace: "shop"}, "",
			"replicas_object: ConfigMap shop/settings has no replicas to split; the set's Deployments, StatefulSets and ReplicaSets: Deployment shop/web (apps/v1)"},
		{"the one named has no replicas, nor anything else", []string{"/v1/ConfigMap/shop/c"}, &ObjectRef{Kind: "ConfigMap", Name: "c"}, "",
			"replicas_object: ConfigMap shop/c has no replicas to split; the set holds no Deployment, StatefulSet or ReplicaSet"},
		{"the one named is ambiguous", []string{"apps/v1/Deployment/a/web", "apps/v1/Deployment/b/web"}, &ObjectRef{Kind: "Deployment", Name: "web"}, "",
			"replicas_object: Deployment web matches 2 objects of the set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReplicasTarget(keys(t, tt.objects...), tt.named)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("ReplicasTarget = %v, %v; want the error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("ReplicasTarget = %v, %v; want %s", got, err, tt.want)
			}
		})
	}
}
