package federation

import (
	"slices"
)

// groupKind is a kind with its API group, so that a custom resource that
// happens to be called Service is not taken for the core Service.
type groupKind struct{ group, kind string }

// installTiers are the kinds a cluster receives before others, tier by
// tier, much as Helm orders an install: what other objects refer to
// (namespaces, the definitions of custom resources, which Helm installs
// before a chart's templates, and the policies that admit pods) first, then
// identities and their permissions, then configuration, storage and
// services, then the workloads that use them. The kinds of one tier do not
// depend on each other. Kinds in no tier go after the workloads, and
// admission webhooks last: a webhook whose server is not running yet would
// refuse the set's other writes.
var installTiers = [][]groupKind{
	{{"", "Namespace"}, {"apiextensions.k8s.io", "CustomResourceDefinition"}},
	{
		{"networking.k8s.io", "NetworkPolicy"}, {"", "ResourceQuota"}, {"", "LimitRange"},
		{"policy", "PodSecurityPolicy"}, {"policy", "PodDisruptionBudget"}, {"scheduling.k8s.io", "PriorityClass"},
	},
	{{"", "ServiceAccount"}},
	{{"rbac.authorization.k8s.io", "ClusterRole"}, {"rbac.authorization.k8s.io", "Role"}},
	// A binding is checked against the role it grants, which must exist
	// unless the writer may bind any role.
	{{"rbac.authorization.k8s.io", "ClusterRoleBinding"}, {"rbac.authorization.k8s.io", "RoleBinding"}},
	{{"", "ConfigMap"}, {"", "Secret"}},
	{{"storage.k8s.io", "StorageClass"}, {"", "PersistentVolume"}, {"", "PersistentVolumeClaim"}},
	{{"", "Service"}},
	{
		{"apps", "DaemonSet"}, {"", "Pod"}, {"", "ReplicationController"}, {"apps", "ReplicaSet"},
		{"apps", "Deployment"}, {"apps", "StatefulSet"}, {"batch", "Job"}, {"batch", "CronJob"},
		{"autoscaling", "HorizontalPodAutoscaler"},
	},
}

// webhookKinds go after everything else.
var webhookKinds = []groupKind{
	{"admissionregistration.k8s.io", "MutatingWebhookConfiguration"},
	{"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"},
}

// tierOf places every kind: the install tiers, then a tier for the kinds
// in none, then the webhooks.
func tierOf(k Key) int {
	gk := groupKind{k.Group, k.Kind}
	for i, tier := range installTiers {
		if slices.Contains(tier, gk) {
			return i
		}
	}
	if slices.Contains(webhookKinds, gk) {
		return len(installTiers) + 1
	}
	return len(installTiers)
}

// ApplyOrder groups the objects a cluster receives into steps, in the
// order they are applied: every object of a step may be applied at once,
// and a step starts when the one before has been applied (accepted by the
// API server, not rolled out). Each step is sorted by key, and steps without
// objects are left out.
func ApplyOrder(keys []Key) [][]Key {
	steps := make([][]Key, len(installTiers)+2)
	for _, k := range keys {
		t := tierOf(k)
		steps[t] = append(steps[t], k)
	}
	var order [][]Key
	for _, step := range steps {
		if len(step) > 0 {
			slices.SortFunc(step, compareKeys)
			order = append(order, step)
		}
	}
	return order
}

// RemoveOrder is ApplyOrder's steps in reverse, for removing objects from a
// cluster: what uses an object goes before it, so a Deployment's pods stop
// before their ConfigMap goes, and a namespace goes last, with whatever is
// left in it.
func RemoveOrder(keys []Key) [][]Key {
	order := ApplyOrder(keys)
	slices.Reverse(order)
	return order
}

// Tier is the step of a cluster's apply an object belongs to: objects of
// a lower tier are applied before, and removed after, those of a higher one.
func Tier(k Key) int { return tierOf(k) }
