package member

import (
	"reflect"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestTypeResourceOf(t *testing.T) {
	tests := []struct {
		name       string
		configName string
		want       TypeResource
	}{
		{"core group", "configmaps", TypeResource{Plural: "configmaps"}},
		{"named group", "deployments.apps", TypeResource{Group: "apps", Plural: "deployments"}},
		{"dotted group", "ingresses.networking.k8s.io", TypeResource{Group: "networking.k8s.io", Plural: "ingresses"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TypeResourceOf(tt.configName)
			if got != tt.want {
				t.Errorf("TypeResourceOf(%q) = %+v, want %+v", tt.configName, got, tt.want)
			}
			if got.String() != tt.configName {
				t.Errorf("String() = %q, want the config name %q back", got.String(), tt.configName)
			}
		})
	}
}

func TestMemberRules(t *testing.T) {
	base := MemberRules(nil)
	if len(base) != 3 {
		t.Fatalf("without types: %d rules, want discovery, the access review and the identity: %+v", len(base), base)
	}
	if got := DescribeRule(base[2]); got != "get on namespaces kube-system" {
		t.Errorf("the identity's rule is %q, want get on namespaces kube-system", got)
	}
	reads := func(resources ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: resources, Verbs: []string{"get", "list"}}
	}
	replicaSets := rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"replicasets"}, Verbs: []string{"get", "list"}}
	tests := []struct {
		name  string
		types []TypeResource
		want  []rbacv1.PolicyRule
	}{
		{
			name:  "one rule per group, plurals sorted; a Deployment's waits and capacity read nodes, pods and ReplicaSets",
			types: []TypeResource{{Plural: "namespaces"}, {Group: "apps", Plural: "deployments"}, {Plural: "configmaps"}},
			want: []rbacv1.PolicyRule{
				reads("nodes", "pods"), replicaSets,
				{APIGroups: []string{""}, Resources: []string{"configmaps", "namespaces"}, Verbs: TypeVerbs},
				{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: TypeVerbs},
			},
		},
		{
			name:  "types without pods read neither nodes nor pods",
			types: []TypeResource{{Plural: "configmaps"}, {Plural: "services"}, {Group: "batch", Plural: "cronjobs"}},
			want: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"configmaps", "services"}, Verbs: TypeVerbs},
				{APIGroups: []string{"batch"}, Resources: []string{"cronjobs"}, Verbs: TypeVerbs},
			},
		},
		{
			name:  "a DaemonSet's waits read pods, and it has no capacity to estimate",
			types: []TypeResource{{Group: "apps", Plural: "daemonsets"}},
			want:  []rbacv1.PolicyRule{reads("pods"), {APIGroups: []string{"apps"}, Resources: []string{"daemonsets"}, Verbs: TypeVerbs}},
		},
		{
			name:  "a type listed twice counts once",
			types: []TypeResource{{Group: "batch", Plural: "jobs"}, {Group: "batch", Plural: "jobs"}},
			want:  []rbacv1.PolicyRule{{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: TypeVerbs}},
		},
		{
			name:  "the order of the types does not change the role; a StatefulSet reads no ReplicaSets",
			types: []TypeResource{{Group: "apps", Plural: "statefulsets"}, {Group: "apps", Plural: "daemonsets"}},
			want: []rbacv1.PolicyRule{reads("nodes", "pods"),
				{APIGroups: []string{"apps"}, Resources: []string{"daemonsets", "statefulsets"}, Verbs: TypeVerbs}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MemberRules(tt.types)
			if !reflect.DeepEqual(got[:len(base)], base) {
				t.Errorf("the fixed rules changed with the types: %+v", got[:len(base)])
			}
			if !reflect.DeepEqual(got[len(base):], tt.want) {
				t.Errorf("type rules = %+v, want %+v", got[len(base):], tt.want)
			}
		})
	}
}

func TestMemberRulesAreNotShared(t *testing.T) {
	first := MemberRules(nil)
	first[0].NonResourceURLs[0] = "/changed"
	first[1].Verbs[0] = "delete"
	second := MemberRules(nil)
	if second[0].NonResourceURLs[0] != "/api" || second[1].Verbs[0] != "create" {
		t.Errorf("changing one role's rules changed the next one's: %+v", second)
	}
}

func TestDescribeRules(t *testing.T) {
	got := DescribeRules(MemberRules([]TypeResource{{Plural: "configmaps"}, {Group: "apps", Plural: "deployments"}}))
	for _, want := range []string{
		"get on /api, /api/*",
		"create on selfsubjectaccessreviews.authorization.k8s.io",
		"get/list on nodes, pods",
		"get/list on replicasets.apps",
		"get/list/create/patch/delete on configmaps",
		"get/list/create/patch/delete on deployments.apps",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("description %q lacks %q", got, want)
		}
	}
}

func TestHostClusterName(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a plain context", "host", "host"},
		{"upper case and underscores", "GKE_project_zone_fed", "gke-project-zone-fed"},
		{"an EKS ARN", "arn:aws:eks:eu-central-1:123456789012:cluster/fed", "arn-aws-eks-eu-central-1-123456789012-cluster-fed"},
		{"an IP address", "127.0.0.1", "127-0-0-1"},
		{"leading and trailing junk", "--Fed--", "fed"},
		{"nothing usable", "::", "host"},
		{"too long", strings.Repeat("a", 60) + "-" + strings.Repeat("b", 10), strings.Repeat("a", 60) + "-bb"},
		{"cut at a dash", strings.Repeat("a", 62) + "-b", strings.Repeat("a", 62)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HostClusterName(tt.in); got != tt.want {
				t.Errorf("HostClusterName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNewJoinNamesFollowKubefedctl(t *testing.T) {
	got := NewJoinNames("kube-federation-system", "berlin", "host")
	want := JoinNames{
		Namespace: "kube-federation-system", ServiceAccount: "berlin-host",
		TokenSecret: "berlin-host-token", ClusterRole: "kubefed-controller-manager:berlin-host",
		ReaderServiceAccount: "berlin-host-reader", ReaderTokenSecret: "berlin-host-reader-token",
		ReaderClusterRole: "kubefed-reader:berlin-host",
	}
	if got != want {
		t.Errorf("NewJoinNames = %+v, want %+v", got, want)
	}
}

func TestJoinRuleDescriptionsEndWithTheReader(t *testing.T) {
	got := JoinRuleDescriptions([]TypeResource{{Plural: "configmaps"}, {Group: "apps", Plural: "daemonsets"}})
	want := []string{
		"get on /api, /api/*, /apis, /apis/*, /healthz, /livez, /readyz, /version",
		"create on selfsubjectaccessreviews.authorization.k8s.io",
		"get on namespaces kube-system",
		"get/list on pods",
		"get/list/create/patch/delete on configmaps",
		"get/list/create/patch/delete on daemonsets.apps",
		"read-only account: get/list/watch on configmaps",
		"read-only account: get/list/watch on daemonsets.apps",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("JoinRuleDescriptions =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
