package member

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// TypeResource is a federated type as a member's RBAC sees it: the API group
// and plural of its target type.
type TypeResource struct {
	Group  string
	Plural string
}

// TypeResourceOf reads a FederatedTypeConfig name, `<plural>.<group>` or
// `<plural>` for the core group. A plural never holds a dot, so the first
// dot splits the two.
func TypeResourceOf(configName string) TypeResource {
	plural, group, _ := strings.Cut(configName, ".")
	return TypeResource{Group: group, Plural: plural}
}

// String is the FederatedTypeConfig name of the type.
func (t TypeResource) String() string {
	if t.Group == "" {
		return t.Plural
	}
	return t.Plural + "." + t.Group
}

// What the federation does on a member, as RBAC verbs: objects of the
// federated types are written with server-side apply (patch, and create
// when the object is new), read back (get, list) and removed (delete);
// dry runs take the same verbs as the writes they check.
var (
	TypeVerbs      = []string{"get", "list", "create", "patch", "delete"}
	discoveryPaths = []string{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/readyz", "/version"}
	// The health probe posts a SelfSubjectAccessReview to learn whether the
	// member takes the credentials.
	accessReviewRule = rbacv1.PolicyRule{
		APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews"}, Verbs: []string{"create"},
	}
	// Every write of a run first confirms the member's identity, the UID
	// of its kube-system namespace (Pool.Confirm), and so may a join's
	// registration read it.
	identityRule = rbacv1.PolicyRule{
		APIGroups: []string{""}, Resources: []string{"namespaces"}, ResourceNames: []string{identityNamespace}, Verbs: []string{"get"},
	}
	// Waiting for a Deployment's rollout reads its ReplicaSets, to tell the
	// pods of the new revision from the old ones.
	rolloutRule = rbacv1.PolicyRule{
		APIGroups: []string{"apps"}, Resources: []string{"replicasets"}, Verbs: []string{"get", "list"},
	}
	// Capacity estimates of the workloads a scheduling preference splits
	// read the member's nodes and every pod's requests.
	capacityReaders = []TypeResource{{"apps", "deployments"}, {"apps", "statefulsets"}, {"apps", "replicasets"}}
	// Waits for a workload's rollout read its pods, to say why it is not
	// ready; capacity estimates read them too.
	podReaders = append([]TypeResource{{"apps", "daemonsets"}}, capacityReaders...)
)

// workloadRules are the reads of nodes, pods and ReplicaSets that the
// types need, for capacity estimates and rollout waits; none for types
// without pods.
func workloadRules(types []TypeResource) []rbacv1.PolicyRule {
	needs := func(readers []TypeResource) bool {
		return slices.ContainsFunc(types, func(t TypeResource) bool { return slices.Contains(readers, t) })
	}
	var core []string
	if needs(capacityReaders) {
		core = append(core, "nodes")
	}
	if needs(podReaders) {
		core = append(core, "pods")
	}
	var rules []rbacv1.PolicyRule
	if len(core) > 0 {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: core, Verbs: []string{"get", "list"}})
	}
	if needs([]TypeResource{{"apps", "deployments"}}) {
		rules = append(rules, deepCopyRule(rolloutRule))
	}
	return rules
}

// MemberRules are the rules of the ClusterRole a joined member grants the
// federation: discovery and health, the health probe's access review,
// reading its identity, reading nodes, pods and ReplicaSets where the
// types need them (workloadRules), and the verbs of
// TypeVerbs on the target types of the federated types listed, one rule per
// API group, in a stable order so that the role only changes with the types.
func MemberRules(types []TypeResource) []rbacv1.PolicyRule {
	rules := []rbacv1.PolicyRule{
		{NonResourceURLs: slices.Clone(discoveryPaths), Verbs: []string{"get"}},
		deepCopyRule(accessReviewRule),
		deepCopyRule(identityRule),
	}
	rules = append(rules, workloadRules(types)...)
	return append(rules, typeRules(types, TypeVerbs)...)
}

// ReaderVerbs are what the read-only account of a join may do with the
// federated types: read them, nothing else.
var ReaderVerbs = []string{"get", "list", "watch"}

// ReaderRules are the rules of the ClusterRole of a join's read-only
// account, the registration's read credentials: the verbs of ReaderVerbs
// on the target types of the federated types listed, and nothing else (a
// planner learns the member's health from the host's record, and
// discovery and access reviews are every authenticated user's).
func ReaderRules(types []TypeResource) []rbacv1.PolicyRule {
	return typeRules(types, ReaderVerbs)
}

// typeRules grant verbs on the types, one rule per API group, in a stable
// order so that a role only changes with the types.
func typeRules(types []TypeResource, verbs []string) []rbacv1.PolicyRule {
	byGroup := map[string][]string{}
	for _, t := range types {
		if !slices.Contains(byGroup[t.Group], t.Plural) {
			byGroup[t.Group] = append(byGroup[t.Group], t.Plural)
		}
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	rules := make([]rbacv1.PolicyRule, 0, len(groups))
	for _, g := range groups {
		plurals := byGroup[g]
		slices.Sort(plurals)
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: plurals, Verbs: slices.Clone(verbs)})
	}
	return rules
}

func deepCopyRule(r rbacv1.PolicyRule) rbacv1.PolicyRule { return *r.DeepCopy() }

// DescribeRules says in one line what rules grant, for a plan's warning.
func DescribeRules(rules []rbacv1.PolicyRule) string {
	parts := make([]string, 0, len(rules))
	for _, r := range rules {
		parts = append(parts, DescribeRule(r))
	}
	return strings.Join(parts, "; ")
}

// DescribeRule says what one rule grants: its verbs, then its paths or
// its resources named as FederatedTypeConfigs name them
// ("get/list on nodes, pods", "create on selfsubjectaccessreviews.authorization.k8s.io").
func DescribeRule(r rbacv1.PolicyRule) string {
	if len(r.NonResourceURLs) > 0 {
		return fmt.Sprintf("%s on %s", strings.Join(r.Verbs, "/"), strings.Join(r.NonResourceURLs, ", "))
	}
	resources := make([]string, 0, len(r.Resources))
	for _, group := range r.APIGroups {
		for _, res := range r.Resources {
			resources = append(resources, TypeResource{Group: group, Plural: res}.String())
		}
	}
	if len(r.ResourceNames) > 0 {
		return fmt.Sprintf("%s on %s %s", strings.Join(r.Verbs, "/"), strings.Join(resources, ", "), strings.Join(r.ResourceNames, ", "))
	}
	return fmt.Sprintf("%s on %s", strings.Join(r.Verbs, "/"), strings.Join(resources, ", "))
}

// ReaderRulePrefix marks, among a join's rule descriptions, the rules of
// its read-only account.
const ReaderRulePrefix = "read-only account: "

// JoinRuleDescriptions say what the two roles of a join grant, one rule
// per element: the federation's role (MemberRules), then the read-only
// account's (ReaderRules), each of those prefixed with ReaderRulePrefix.
func JoinRuleDescriptions(types []TypeResource) []string {
	var out []string
	for _, r := range MemberRules(types) {
		out = append(out, DescribeRule(r))
	}
	for _, r := range ReaderRules(types) {
		out = append(out, ReaderRulePrefix+DescribeRule(r))
	}
	return out
}
