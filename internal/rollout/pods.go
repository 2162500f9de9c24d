package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
)

// The labels and annotations by which the controllers say which revision
// a pod runs.
const (
	// Deployments: the current ReplicaSet's pods carry its
	// pod-template-hash.
	podTemplateHashLabel = "pod-template-hash"
	// StatefulSets: a pod's revision label names its ControllerRevision,
	// which status.updateRevision names for the revision rolling out.
	controllerRevisionLabel = "controller-revision-hash"
	// DaemonSets: the API server counts template changes in an
	// annotation, and the controller copies the count onto each pod.
	templateGenerationAnnotation = "deprecated.daemonset.template.generation"
	templateGenerationLabel      = "pod-template-generation"
)

// The waiting reasons of a container that end a rollout early: they do not
// clear without a change to the object or the cluster.
var containerFailures = map[string]bool{
	"CrashLoopBackOff":           true,
	"ImagePullBackOff":           true,
	"ErrImagePull":               true,
	"InvalidImageName":           true,
	"CreateContainerConfigError": true,
}

// ReasonUnschedulable is the reason of a pod the scheduler finds no node for.
const ReasonUnschedulable = corev1.PodReasonUnschedulable

// DefaultUnschedulableFor is how long a pod may wait for a node before the
// rollout fails: long enough for a node to join or a pod to be evicted to
// make room, short enough to fail well before a rollout's timeout.
const DefaultUnschedulableFor = time.Minute

// PodFailure is a pod that stops a rollout.
type PodFailure struct {
	// Reason is the container's waiting reason, such as CrashLoopBackOff,
	// or ReasonUnschedulable.
	Reason string
	Pod    string
	// Container is empty for an unschedulable pod.
	Container string
	Restarts  int32
	// Message says what happened, without the reason, on one line.
	Message string
}

// String is the reason and the message.
func (f PodFailure) String() string { return f.Reason + ": " + f.Message }

// PodSelector is the label selector of a workload's pods, its
// spec.selector; ok is false for an object that has no pod template and
// selector.
func PodSelector(obj map[string]any) (sel labels.Selector, ok bool, err error) {
	raw, found, _ := unstructured.NestedFieldNoCopy(obj, "spec", "selector")
	selector, isMap := raw.(map[string]any)
	if _, templated, _ := unstructured.NestedFieldNoCopy(obj, "spec", "template"); !found || !isMap || !templated {
		return nil, false, nil
	}
	name := fmt.Sprintf("%s %s", text(obj, "kind"), text(obj, "metadata", "name"))
	var ls metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(selector, &ls); err != nil {
		return nil, false, fmt.Errorf("the spec.selector of %s is not a label selector: %w", name, err)
	}
	if len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0 {
		return nil, false, fmt.Errorf("the spec.selector of %s is empty, so it would select every pod of the namespace: give it matchLabels", name)
	}
	sel, err = metav1.LabelSelectorAsSelector(&ls)
	if err != nil {
		return nil, false, fmt.Errorf("the spec.selector of %s: %w", name, err)
	}
	return sel, true, nil
}

// CurrentPodSelector selects the pods of the revision a workload is
// rolling out to: its selector plus the label of that revision, so that
// old pods on their way out (crash-looping ones, say, that the rollout
// replaces) do not count against it. For a Deployment, pass the
// ReplicaSets its selector matches: the one it controls whose template is
// its own says the revision.
// ok is false when the object has no pods, or when the revision cannot be
// told yet (the controller has not observed the latest spec).
func CurrentPodSelector(obj map[string]any, replicaSets []map[string]any) (sel labels.Selector, ok bool, err error) {
	sel, ok, err = PodSelector(obj)
	if !ok || err != nil {
		return nil, false, err
	}
	if _, seen := observed(obj); !seen && workload(obj) != "" {
		return nil, false, nil
	}
	key, value, known := revisionLabel(obj, replicaSets)
	if !known {
		return nil, false, nil
	}
	if key == "" {
		return sel, true, nil
	}
	req, err := labels.NewRequirement(key, selection.Equals, []string{value})
	if err != nil {
		return nil, false, fmt.Errorf("the revision of %s %s: %w", text(obj, "kind"), text(obj, "metadata", "name"), err)
	}
	return sel.Add(*req), true, nil
}

// revisionLabel is the label and value of the current revision's pods; an
// empty key means every selected pod is current (a Job's template cannot
// change).
func revisionLabel(obj map[string]any, replicaSets []map[string]any) (key, value string, ok bool) {
	switch workload(obj) {
	case "Deployment":
		return deploymentRevision(obj, replicaSets)
	case "StatefulSet":
		value = text(obj, "status", "updateRevision")
		return controllerRevisionLabel, value, value != ""
	case "DaemonSet":
		value = text(obj, "metadata", "annotations", templateGenerationAnnotation)
		return templateGenerationLabel, value, value != ""
	}
	return "", "", true
}

// deploymentRevision finds the Deployment's current ReplicaSet as the
// Deployment controller does: the oldest it controls whose pod template,
// but for the pod-template-hash label, is the Deployment's.
func deploymentRevision(obj map[string]any, replicaSets []map[string]any) (key, value string, ok bool) {
	want, err := podTemplate(obj)
	if err != nil {
		return "", "", false
	}
	uid := text(obj, "metadata", "uid")
	owned := slices.DeleteFunc(slices.Clone(replicaSets), func(rs map[string]any) bool { return !controlledBy(rs, uid) })
	slices.SortStableFunc(owned, func(a, b map[string]any) int {
		return strings.Compare(text(a, "metadata", "creationTimestamp"), text(b, "metadata", "creationTimestamp"))
	})
	for _, rs := range owned {
		got, err := podTemplate(rs)
		hash := got.Labels[podTemplateHashLabel]
		delete(got.Labels, podTemplateHashLabel)
		if err == nil && hash != "" && apiequality.Semantic.DeepEqual(got, want) {
			return podTemplateHashLabel, hash, true
		}
	}
	return "", "", false
}

// podTemplate is the spec.template of obj, typed so that it compares as
// the controllers compare it (quantities by value, say).
func podTemplate(obj map[string]any) (corev1.PodTemplateSpec, error) {
	var t corev1.PodTemplateSpec
	raw, _, _ := unstructured.NestedFieldNoCopy(obj, "spec", "template")
	m, ok := raw.(map[string]any)
	if !ok {
		return t, fmt.Errorf("%s %s has no pod template", text(obj, "kind"), text(obj, "metadata", "name"))
	}
	err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &t)
	return t, err
}

// controlledBy says whether obj's controller is the object with uid.
func controlledBy(obj map[string]any, uid string) bool {
	raw, _, _ := unstructured.NestedFieldNoCopy(obj, "metadata", "ownerReferences")
	refs, _ := raw.([]any)
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		if controller, _ := ref["controller"].(bool); controller && uid != "" && text(ref, "uid") == uid {
			return true
		}
	}
	return false
}

// MatchPods is the pods sel selects that are not being deleted.
func MatchPods(sel labels.Selector, pods []corev1.Pod) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// FailingPods is, sorted by pod name, the pods that stop a rollout: a
// container waiting for a reason that does not clear by itself (a crash
// loop, an image that cannot be pulled, a configuration that cannot be
// made), or a pod no node has been found for in longer than
// unschedulableFor. Pods being deleted do not count.
func FailingPods(pods []corev1.Pod, now time.Time, unschedulableFor time.Duration) []PodFailure {
	var out []PodFailure
	for i := range pods {
		if f, ok := podFailure(&pods[i], now, unschedulableFor); ok {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b PodFailure) int { return strings.Compare(a.Pod, b.Pod) })
	return out
}

// podFailure is the first failing container of p, init containers first,
// or p being unschedulable too long.
func podFailure(p *corev1.Pod, now time.Time, unschedulableFor time.Duration) (PodFailure, bool) {
	if p.DeletionTimestamp != nil {
		return PodFailure{}, false
	}
	for _, cs := range slices.Concat(p.Status.InitContainerStatuses, p.Status.ContainerStatuses) {
		if w := cs.State.Waiting; w != nil && containerFailures[w.Reason] {
			return containerFailure(p.Name, cs), true
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Type != corev1.PodScheduled || c.Status != corev1.ConditionFalse || c.Reason != ReasonUnschedulable {
			continue
		}
		since := c.LastTransitionTime.Time
		if since.IsZero() {
			since = p.CreationTimestamp.Time
		}
		if held := now.Sub(since); !since.IsZero() && held > unschedulableFor {
			msg := fmt.Sprintf("pod %s has found no node for %s", p.Name, held.Round(time.Second))
			if d := oneLine(c.Message); d != "" {
				msg += ": " + d
			}
			return PodFailure{Reason: ReasonUnschedulable, Pod: p.Name, Message: msg}, true
		}
	}
	return PodFailure{}, false
}

// containerFailure describes a container waiting for one of
// containerFailures: restarts and the last exit for a crash loop, the
// kubelet's message (which names the image, or the missing Secret) for the
// others.
func containerFailure(pod string, cs corev1.ContainerStatus) PodFailure {
	reason := cs.State.Waiting.Reason
	msg := fmt.Sprintf("pod %s, container %s", pod, cs.Name)
	if cs.RestartCount > 0 {
		msg += fmt.Sprintf(", restarted %s", plural(int64(cs.RestartCount), "time"))
	}
	detail := oneLine(cs.State.Waiting.Message)
	switch {
	case reason == "CrashLoopBackOff":
		detail = ""
		if t := cs.LastTerminationState.Terminated; t != nil {
			msg += fmt.Sprintf(", last exit code %d", t.ExitCode)
			if t.Reason != "" {
				msg += " (" + t.Reason + ")"
			}
		}
	case detail == "" && cs.Image != "":
		detail = fmt.Sprintf("image %q", cs.Image)
	}
	if detail != "" {
		msg += ": " + detail
	}
	return PodFailure{Reason: reason, Pod: pod, Container: cs.Name, Restarts: cs.RestartCount, Message: msg}
}
