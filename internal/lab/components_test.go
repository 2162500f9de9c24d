package lab

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

func TestControlComponents(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode string
		host bool
		want []component
	}{
		{"a member of a full lab", ModeFull, false, []component{compControllerManager, compScheduler, compKwok}},
		{"the host of a full lab schedules nothing", ModeFull, true, []component{compControllerManager}},
		{"a plain member", ModePlain, false, nil},
		{"a plain host", ModePlain, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := controlComponents(tc.mode, tc.host); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("controlComponents(%s, host=%v) = %v, want %v", tc.mode, tc.host, got, tc.want)
			}
		})
	}
}

func TestComponentArgs(t *testing.T) {
	st := &state{Mode: ModeFull, KubeControllerManager: "/kcm", KubeScheduler: "/ks", Kwok: "/kwok"}
	for _, tc := range []struct {
		name     string
		comp     component
		host     bool
		want     []string
		wantNot  []string
		wantBin  string
		wantKube string
	}{
		{
			name: "a member's controller manager runs the workload controllers",
			comp: compControllerManager,
			want: []string{"--leader-elect=false", "--secure-port=0", "--use-service-account-credentials=true",
				"--service-account-private-key-file=/d/sa.key", "--root-ca-file=/d/ca.crt"},
			wantBin: "/kcm", wantKube: "/d/kube-controller-manager.kubeconfig",
		},
		{name: "the scheduler", comp: compScheduler, want: []string{"--leader-elect=false", "--secure-port=0"}, wantBin: "/ks", wantKube: "/d/kube-scheduler.kubeconfig"},
		{
			name:    "kwok manages the lab's nodes only, with the lab's stages",
			comp:    compKwok,
			want:    []string{"--manage-nodes-with-label-selector=type=kwok", "--config=/d/kwok.yaml"},
			wantNot: []string{"--manage-all-nodes"},
			wantBin: "/kwok", wantKube: "/d/kwok.kubeconfig",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := componentArgs(st, tc.comp, "/d", tc.host)
			if args[0] != tc.wantBin || !slices.Contains(args, "--kubeconfig="+tc.wantKube) {
				t.Errorf("args %v: want binary %s and kubeconfig %s", args, tc.wantBin, tc.wantKube)
			}
			for _, w := range tc.want {
				if !slices.Contains(args, w) {
					t.Errorf("args %v lack %s", args, w)
				}
			}
			for _, w := range tc.wantNot {
				if slices.Contains(args, w) {
					t.Errorf("args %v hold %s", args, w)
				}
			}
		})
	}

	controllers := func(host bool) []string {
		for _, a := range componentArgs(st, compControllerManager, "/d", host) {
			if list, ok := strings.CutPrefix(a, "--controllers="); ok {
				return strings.Split(list, ",")
			}
		}
		t.Fatal("no --controllers")
		return nil
	}
	member, host := controllers(false), controllers(true)
	for _, want := range []string{"namespace-controller", "garbage-collector-controller", "serviceaccount-token-controller"} {
		if !slices.Contains(member, want) || !slices.Contains(host, want) {
			t.Errorf("%s missing: member %v, host %v", want, member, host)
		}
	}
	for _, want := range []string{"deployment-controller", "replicaset-controller", "job-controller", "daemonset-controller", "statefulset-controller"} {
		if !slices.Contains(member, want) {
			t.Errorf("member controllers lack %s", want)
		}
		if slices.Contains(host, want) {
			t.Errorf("host controllers hold %s: the host runs no workloads", want)
		}
	}
}

func TestAPIServerArgsFollowTheMode(t *testing.T) {
	c := &clusterState{Name: "berlin", APIServerPort: 1}
	for _, tc := range []struct {
		mode          string
		wantAdmission bool
	}{
		{ModeFull, true},
		{ModePlain, false},
	} {
		args := apiserverArgs(&state{Mode: tc.mode, KubeAPIServer: "/kas"}, c, "/d")
		disabled := slices.Contains(args, "--disable-admission-plugins=ServiceAccount")
		if disabled == tc.wantAdmission {
			t.Errorf("%s lab: ServiceAccount admission disabled = %v; it needs the controller manager's default service accounts", tc.mode, disabled)
		}
	}
}

// TestKwokStages checks the rendered stages as data: kwok's own parser is
// not a dependency of this module, so the lab's integration test is what
// shows kwok accepts them.
func TestKwokStages(t *testing.T) {
	out := kwokStages()
	if bytes.Contains(out, []byte("key: FAILING")) {
		t.Fatal("the failure predicate was not filled in")
	}
	type selector struct {
		MatchExpressions []struct {
			JQ struct {
				Key      string   `json:"key"`
				Operator string   `json:"operator"`
				Values   []string `json:"values"`
			} `json:"jq"`
		} `json:"matchExpressions"`
	}
	type stage struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			ResourceRef struct {
				APIGroup string `json:"apiGroup"`
				Kind     string `json:"kind"`
			} `json:"resourceRef"`
			Selector selector         `json:"selector"`
			Steps    []map[string]any `json:"steps"`
		} `json:"spec"`
	}
	stages := map[string]stage{}
	for _, doc := range bytes.Split(out, []byte("\n---\n")) {
		var s stage
		if err := yaml.UnmarshalStrict(doc, &s); err != nil {
			t.Fatalf("stage does not parse: %v\n%s", err, doc)
		}
		if s.APIVersion != "kwok.x-k8s.io/v1alpha1" || s.Kind != "Stage" || len(s.Spec.Steps) == 0 {
			t.Errorf("stage %q: %s %s, %d steps", s.Metadata.Name, s.APIVersion, s.Kind, len(s.Spec.Steps))
		}
		stages[s.Metadata.Name] = s
	}
	for _, name := range []string{"node-ready", "pod-running", "pod-crashloop", "pod-succeeded", "pod-delete"} {
		if _, ok := stages[name]; !ok {
			t.Errorf("no stage %s", name)
		}
	}
	// The failure switch selects crash-looping pods, and keeps them out of
	// the stages that make pods ready or complete.
	for name, wantOp := range map[string]string{"pod-crashloop": "In", "pod-running": "NotIn", "pod-succeeded": "NotIn"} {
		found := false
		for _, e := range stages[name].Spec.Selector.MatchExpressions {
			if e.JQ.Key == failingJQ {
				found = true
				if e.JQ.Operator != wantOp || !slices.Equal(e.JQ.Values, []string{"true"}) {
					t.Errorf("%s: failure predicate %s %v, want %s [true]", name, e.JQ.Operator, e.JQ.Values, wantOp)
				}
			}
		}
		if !found {
			t.Errorf("%s does not test the failure switch", name)
		}
	}
	for _, want := range []string{FailLabel, FailImageSuffix} {
		if !strings.Contains(failingJQ, want) {
			t.Errorf("failure predicate %s does not test %s", failingJQ, want)
		}
	}
}

func TestNodeObject(t *testing.T) {
	n := Node{Name: "berlin-1", Zone: "eu-central-a", CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi"), Pods: 110}
	obj := nodeObject(n, "eu-central")
	for k, want := range map[string]string{
		NodeSelectorLabel: "kwok", RegionLabel: "eu-central", ZoneLabel: "eu-central-a", HostnameLabel: "berlin-1",
	} {
		if got := obj.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	for _, list := range []corev1.ResourceList{obj.Status.Capacity, obj.Status.Allocatable} {
		if list.Cpu().String() != "2" || list.Memory().String() != "8Gi" || list.Pods().Value() != 110 {
			t.Errorf("resources %v, want 2 CPU, 8Gi, 110 pods", list)
		}
	}
	if len(obj.Spec.Taints) != 0 || obj.Spec.Unschedulable {
		t.Error("a new node must take any pod")
	}
}

func TestReadyNodes(t *testing.T) {
	node := func(name string, conds ...corev1.NodeCondition) corev1.Node {
		n := corev1.Node{}
		n.Name, n.Status.Conditions = name, conds
		return n
	}
	got := readyNodes([]corev1.Node{
		node("ready", corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue}),
		node("unknown", corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}),
		node("new"),
	})
	if !reflect.DeepEqual(got, map[string]bool{"ready": true}) {
		t.Errorf("readyNodes = %v, want only the node whose Ready is True", got)
	}
}

func TestCompleteNode(t *testing.T) {
	big := Node{Name: "sf-1", Zone: "us-west-a", CPU: resource.MustParse("8"), Memory: resource.MustParse("32Gi"), Pods: 250}
	for _, tc := range []struct {
		name     string
		existing []Node
		cluster  string
		in       Node
		want     string
		wantErr  string
	}{
		{name: "like the last node, in the next zone", existing: []Node{big}, cluster: "sf", in: Node{Name: "sf-2"}, want: "sf-2@us-west-b/8/32Gi/250"},
		{name: "given capacity wins", existing: []Node{big}, cluster: "sf", in: Node{Name: "sf-2", CPU: resource.MustParse("1"), Memory: resource.MustParse("1Gi"), Zone: "us-west-z"}, want: "sf-2@us-west-z/1/1Gi/250"},
		{name: "a member without nodes takes its defaults", cluster: "berlin", in: Node{Name: "b"}, want: "b@us-west-a/2/8Gi/110"},
		{name: "a name taken", existing: []Node{big}, cluster: "sf", in: Node{Name: "sf-1"}, wantErr: "already has a node sf-1"},
		{name: "a name that is no DNS subdomain", cluster: "sf", in: Node{Name: "Big_One"}, wantErr: `node name "Big_One"`},
		{name: "negative pods", cluster: "sf", in: Node{Name: "x", Pods: -1}, wantErr: "must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := completeNode(tc.existing, tc.cluster, "us-west", tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one mentioning %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := nodeString(got); s != tc.want {
				t.Errorf("node %s, want %s", s, tc.want)
			}
		})
	}
}

func TestMemberNodes(t *testing.T) {
	cfg := Config{Mode: ModeFull, Clusters: []string{"host", "berlin", "edge"}, Members: map[string]Member{
		"edge": {Nodes: []NodePool{pool(2, "1", "2Gi")}},
	}}
	got, err := memberNodes(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["host"]; ok {
		t.Error("the host has nodes")
	}
	if b := got["berlin"]; b.region != "eu-central" || len(b.nodes) != 1 {
		t.Errorf("berlin: %+v, want its defaults", b)
	}
	if e := got["edge"]; e.region != "edge" || len(e.nodes) != 2 || e.nodes[1].Zone != "edge-b" {
		t.Errorf("edge: %+v, want 2 nodes in region edge", e)
	}
	cfg.Mode = ModePlain
	if got, err := memberNodes(cfg); err != nil || len(got) != 0 {
		t.Errorf("plain lab: %v, %v; want no nodes", got, err)
	}
	for _, bad := range []map[string]Member{{"paris": {}}, {"host": {}}} {
		if _, err := memberNodes(Config{Mode: ModeFull, Clusters: cfg.Clusters, Members: bad}); err == nil {
			t.Errorf("nodes for %v accepted", bad)
		}
	}
}
