package federation

import (
	"fmt"
	"slices"
	"strings"
)

// HookAnnotation marks the objects of a chart that Helm does not install
// but runs at a release event (pre-install, post-upgrade, ...) or on `helm
// test`. `helm template` prints them among the chart's objects.
const HookAnnotation = "helm.sh/hook"

// hookOf is the value of obj's hook annotation, empty when it has none.
func hookOf(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	hook, _ := annotations[HookAnnotation].(string)
	return hook
}

// SplitHooks separates Helm's hooks and tests from the objects a set
// federates. A federated set has no release events to run them at, and a
// test Pod's name is often random (randAlphaNum), so that each rendering of
// the chart would otherwise be a new object.
func SplitHooks(ms []Manifest) (objects, hooks []Manifest) {
	for _, m := range ms {
		if m.Hook == "" {
			objects = append(objects, m)
		} else {
			hooks = append(hooks, m)
		}
	}
	return objects, hooks
}

// HookNames names each hook as a message shows it, as in
// "Pod web/web-test-connection (helm.sh/hook: test)".
func HookNames(hooks []Manifest) []string {
	out := make([]string, len(hooks))
	for i, h := range hooks {
		out[i] = fmt.Sprintf("%s (%s: %s)", h.Key.Object(), HookAnnotation, h.Hook)
	}
	return out
}

// SameObjects reports whether two texts of a set's manifests, read with
// the same options, hold the same objects: they differ in layout, comments,
// key order, the split into elements, the order of the objects and hooks
// only, so that the earlier text stands for the later one. A chart rendered
// again with the same values changes nothing, and neither does a set
// imported from the host (one element per object) against the
// configuration's text. Texts that do not parse are not the same.
func SameObjects(a, b []string, opts ManifestOptions) bool {
	parsedA, errA := ParseManifests(a, opts)
	parsedB, errB := ParseManifests(b, opts)
	if errA != nil || errB != nil {
		return false
	}
	objectsA, _ := SplitHooks(parsedA)
	objectsB, _ := SplitHooks(parsedB)
	byKey := func(x, y Manifest) int { return strings.Compare(x.Key.String(), y.Key.String()) }
	slices.SortFunc(objectsA, byKey)
	slices.SortFunc(objectsB, byKey)
	return slices.EqualFunc(objectsA, objectsB, func(x, y Manifest) bool {
		return x.Key == y.Key && x.Template == y.Template
	})
}
