package federation

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// checkLabels checks the labels the cluster's operations leave: an object,
// or none, of keys and string values the API server accepts. A problem is
// the error of the operation that last wrote the label, which the API
// server would otherwise refuse at dry run or at apply.
func (r *Renderer) checkLabels(cluster Cluster, obj map[string]any, replicas *int64, targeting []int) error {
	if !r.mayWriteLabels(replicas, targeting) {
		// The template's labels were checked by NewRenderer.
		return nil
	}
	switch l := obj["metadata"].(map[string]any)["labels"].(type) {
	case nil:
	case map[string]any:
		for _, key := range slices.Sorted(maps.Keys(l)) {
			if key == ManagedLabel {
				continue
			}
			if err := checkLabel(key, l[key]); err != nil {
				return r.labelError(cluster, replicas, targeting, key, err)
			}
		}
	default:
		return r.labelError(cluster, replicas, targeting, "", fmt.Errorf("the overrides leave metadata.labels as %s, where the %s label must go", describe(l), ManagedLabel))
	}
	return nil
}

func (r *Renderer) mayWriteLabels(replicas *int64, targeting []int) bool {
	if replicas != nil && r.replicasLabels {
		return true
	}
	for _, i := range targeting {
		if r.rules[i].labels {
			return true
		}
	}
	return false
}

// labelError attributes err, about the label key or, when key is empty,
// about the labels as a whole, to the last operation that wrote it.
func (r *Renderer) labelError(cluster Cluster, replicas *int64, targeting []int, key string, err error) error {
	at := labelsPath
	if key != "" {
		at = append(slices.Clone(labelsPath), key)
	}
	steps := r.steps(replicas, targeting)
	for k := len(steps) - 1; k >= 0; k-- {
		s := steps[k]
		if s.op.Kind() != OpRemove && len(s.path) <= len(at) && slices.Equal(at[:len(s.path)], s.path) {
			return r.stepError(cluster, replicas, s, err)
		}
	}
	return fmt.Errorf("cluster %q: %w", cluster.Name, err)
}

// checkLabel checks one label as the API server would, and says what to
// write instead.
func checkLabel(key string, value any) error {
	var s string
	switch v := value.(type) {
	case string:
		s = v
	case nil:
		return fmt.Errorf("label %q is null, but label values are strings; remove the label with op %q instead", key, OpRemove)
	case json.Number, bool:
		return fmt.Errorf("label %q is %s, but label values are strings; write %q, in JSON quotes", key, describe(v), fmt.Sprint(v))
	default:
		return fmt.Errorf("label %q is %s, but label values are strings", key, describe(v))
	}
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return fmt.Errorf("label key %q is not valid: %s", key, strings.Join(errs, "; "))
	}
	if errs := validation.IsValidLabelValue(s); len(errs) > 0 {
		return fmt.Errorf("label %q: value %s is not valid: %s", key, clip(s), strings.Join(errs, "; "))
	}
	return nil
}

// templateLabelProblems lists what is wrong with the labels of a template,
// whose metadata.labels is an object. The ManagedLabel is not checked: it
// is set anyway.
func templateLabelProblems(labels map[string]any) []string {
	var problems []string
	for _, key := range slices.Sorted(maps.Keys(labels)) {
		if key == ManagedLabel {
			continue
		}
		if err := checkLabel(key, labels[key]); err != nil {
			problems = append(problems, "metadata.labels: "+err.Error())
		}
	}
	return problems
}
