package capacity

import (
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
)

const deploymentTemplate = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  template:
    spec:
      nodeSelector: {disk: ssd}
      tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]
      containers:
      - name: web
        image: nginx
        ports: [{containerPort: 80}]
        resources: {requests: {cpu: 500m, memory: 256Mi}}
`

func TestReplicaOf(t *testing.T) {
	for _, tc := range []struct {
		name        string
		template    string
		hasTemplate bool
		requests    map[string]string
		wantCPU     string
		wantMemory  string
		wantAt      scheduling.At
		wantErr     string
	}{
		{name: "requests from the pod template", template: deploymentTemplate, hasTemplate: true, wantCPU: "500m", wantMemory: "256Mi"},
		{name: "explicit requests replace the template's", template: deploymentTemplate, hasTemplate: true,
			requests: map[string]string{"cpu": "1"}, wantCPU: "1"},
		{name: "explicit requests alone", requests: map[string]string{"cpu": "2", "memory": "1Gi"}, wantCPU: "2", wantMemory: "1Gi"},
		{name: "nothing given requests nothing"},
		{name: "a template without a pod template", template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}", hasTemplate: true,
			wantAt: scheduling.At{Attribute: "template"}, wantErr: "no pod template"},
		{name: "a template that is not an object", template: "- a\n- b", hasTemplate: true,
			wantAt: scheduling.At{Attribute: "template"}, wantErr: "not one YAML or JSON object"},
		{name: "a pod spec of the wrong shape", template: "spec: {template: {spec: {containers: 3}}}", hasTemplate: true,
			wantAt: scheduling.At{Attribute: "template"}, wantErr: "not a pod spec"},
		{name: "a request for pods", requests: map[string]string{"cpu": "1", "pods": "1"},
			wantAt: scheduling.At{Attribute: "replica_requests", Key: "pods"}, wantErr: "one pod already"},
		{name: "a request that is no quantity", requests: map[string]string{"memory": "lots"},
			wantAt: scheduling.At{Attribute: "replica_requests", Key: "memory"}, wantErr: "not a quantity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replica, at, err := ReplicaOf(tc.template, tc.hasTemplate, tc.requests, tc.requests != nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || at != tc.wantAt {
					t.Fatalf("got %v at %+v, want %q at %+v", err, at, tc.wantErr, tc.wantAt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := quantityOf(replica.Requests, corev1.ResourceCPU); got != tc.wantCPU {
				t.Errorf("cpu %q, want %q", got, tc.wantCPU)
			}
			if got := quantityOf(replica.Requests, corev1.ResourceMemory); got != tc.wantMemory {
				t.Errorf("memory %q, want %q", got, tc.wantMemory)
			}
			if tc.hasTemplate && (replica.NodeSelector["disk"] != "ssd" || len(replica.Tolerations) != 1) {
				t.Errorf("the template's node selector and tolerations are lost: %+v", replica)
			}
		})
	}
}

func quantityOf(list corev1.ResourceList, name corev1.ResourceName) string {
	if q, ok := list[name]; ok {
		return q.String()
	}
	return ""
}

func TestCapacityFingerprint(t *testing.T) {
	base := func() Inputs {
		replica, _, err := ReplicaOf(deploymentTemplate, true, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		return Inputs{Replica: replica, After: time.Minute, Target: "FederatedDeployment shop/web"}
	}
	reformatted, _, err := ReplicaOf(`{"spec":{"template":{"spec":{"nodeSelector":{"disk":"ssd"},`+
		`"tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}],`+
		`"containers":[{"name":"web","resources":{"requests":{"memory":"256Mi","cpu":"0.5"}}}]}}}}`, true, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	same := base()
	same.Replica = reformatted
	if base().Fingerprint() != same.Fingerprint() {
		t.Error("the same requests written another way (JSON, 0.5 for 500m, no image) changed the fingerprint")
	}
	for name, change := range map[string]func(*Inputs){
		"other requests":   func(in *Inputs) { in.Replica.Requests[corev1.ResourceCPU] = resource.MustParse("1") },
		"another wait":     func(in *Inputs) { in.After = time.Second },
		"another target":   func(in *Inputs) { in.Target = "FederatedDeployment shop/api" },
		"no node selector": func(in *Inputs) { in.Replica.NodeSelector = nil },
	} {
		changed := base()
		change(&changed)
		if changed.Fingerprint() == base().Fingerprint() {
			t.Errorf("%s: the fingerprint did not change", name)
		}
	}
}

func TestCapacityBoundsLeaveUnreadClustersUnbounded(t *testing.T) {
	bounds, warnings := Bounds("shop/web", map[string]ClusterEstimate{
		"berlin": {Replicas: 2}, "tokyo": {Unread: "forbidden: nodes"}, "sydney": {Replicas: 0},
	})
	if want := map[string]int64{"berlin": 2, "sydney": 0}; !maps.Equal(bounds, want) {
		t.Errorf("bounds %v, want %v", bounds, want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Detail, `"tokyo"`) || !strings.Contains(warnings[0].Detail, "forbidden: nodes") ||
		warnings[0].At != (scheduling.At{Attribute: "capacity"}) {
		t.Errorf("warnings %+v, want one for tokyo at capacity", warnings)
	}
}

func TestCutWarnings(t *testing.T) {
	estimates := map[string]ClusterEstimate{"berlin": {Replicas: 2, Reason: "room for 2 more replicas, limited by cpu"}}
	got := CutWarnings("shop/web", map[string]int64{"berlin": 4}, estimates)
	if len(got) != 1 || got[0].At != (scheduling.At{Attribute: "estimated_capacity", Key: "berlin"}) ||
		!strings.Contains(got[0].Detail, "so it is planned 2 rather than 4") {
		t.Errorf("got %+v, want one warning for berlin", got)
	}
	if got := CutWarnings("shop/web", map[string]int64{}, estimates); len(got) != 0 {
		t.Errorf("got %+v with nothing cut", got)
	}
}
