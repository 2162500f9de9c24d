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
	// Capacity estimates read the member's nodes and every pod's requests.
	capacityRule = rbacv1.PolicyRule{
		APIGroups: []string{""}, Resources: []string{"nodes", "pods"}, Verbs: []string{"get", "list"},
	}
	// Waiting for a Deployment's rollout reads its ReplicaSets, to tell the
	// pods of the new revision from the old ones (the pods are read under
	// capacityRule).
	rolloutRule = rbacv1.PolicyRule{
		APIGroups: []string{"apps"}, Resources: []string{"replicasets"}, Verbs: []string{"get", "list"},
	}
)

// MemberRules are the rules of the ClusterRole a joined member grants the
// federation: discovery and health, the health probe's access review,
// reading its identity, reading nodes and pods for capacity estimates and ReplicaSets for
// rollouts, and the verbs of
// TypeVerbs on the target types of the federated types listed, one rule per
// API group, in a stable order so that the role only changes with the types.
func MemberRules(types []TypeResource) []rbacv1.PolicyRule {
	rules := []rbacv1.PolicyRule{
		{NonResourceURLs: slices.Clone(discoveryPaths), Verbs: []string{"get"}},
		deepCopyRule(accessReviewRule),
		deepCopyRule(identityRule),
		deepCopyRule(capacityRule),
		deepCopyRule(rolloutRule),
	}
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
	for _, g := range groups {
		plurals := byGroup[g]
		slices.Sort(plurals)
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: plurals, Verbs: slices.Clone(TypeVerbs)})
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
