package capacity

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// RequestsFromPodSpec returns what one pod of spec asks of a node, as the
// scheduler counts it: the containers' requests added up together with the
// sidecars (init containers that restart always, since they keep running),
// raised to what the init phase needs at its peak (each ordinary init
// container runs alone, next to the sidecars started before it), then
// replaced by the pod-level requests where the pod sets them (cpu, memory,
// hugepages), plus the pod's overhead. A container that sets a limit and no
// request requests its limit, as the API server defaults it.
func RequestsFromPodSpec(spec corev1.PodSpec) corev1.ResourceList {
	running := make(corev1.ResourceList, 4)
	for i := range spec.Containers {
		addTo(running, containerRequests(&spec.Containers[i]))
	}
	if len(spec.InitContainers) > 0 {
		raiseTo(running, initPhase(spec.InitContainers, running))
	}
	applyPodLevel(running, spec.Resources)
	addTo(running, spec.Overhead)
	return running
}

// initPhase returns the peak of the init phase and adds the sidecars to
// running, since they keep running next to the containers.
func initPhase(initContainers []corev1.Container, running corev1.ResourceList) corev1.ResourceList {
	peak := corev1.ResourceList{}
	sidecars := corev1.ResourceList{}
	for i := range initContainers {
		c := &initContainers[i]
		requests := containerRequests(c)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addTo(running, requests)
			addTo(sidecars, requests)
			raiseTo(peak, sidecars)
			continue
		}
		step := sidecars.DeepCopy()
		addTo(step, requests)
		raiseTo(peak, step)
	}
	return peak
}

// containerRequests is the container's requests, with its limits standing in
// for the requests it does not set. The result may be the container's own
// map: callers only read it.
func containerRequests(c *corev1.Container) corev1.ResourceList {
	missing := false
	for name := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[name]; !ok {
			missing = true
			break
		}
	}
	if !missing {
		return c.Resources.Requests
	}
	out := make(corev1.ResourceList, len(c.Resources.Limits)+len(c.Resources.Requests))
	for name, q := range c.Resources.Limits {
		out[name] = q
	}
	for name, q := range c.Resources.Requests {
		out[name] = q
	}
	return out
}

// applyPodLevel lets pod-level requests replace the containers' sum for the
// resources the pod-level field governs. Pod-level limits stand in for
// requests where the pod sets none and no container requests the resource,
// as defaulting does.
func applyPodLevel(requests corev1.ResourceList, pod *corev1.ResourceRequirements) {
	if pod == nil {
		return
	}
	for name, q := range pod.Limits {
		if _, set := pod.Requests[name]; !set && podLevel(name) && requests.Name(name, resource.DecimalSI).IsZero() {
			requests[name] = q.DeepCopy()
		}
	}
	for name, q := range pod.Requests {
		if podLevel(name) {
			requests[name] = q.DeepCopy()
		}
	}
}

func podLevel(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU || name == corev1.ResourceMemory ||
		strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// addTo adds more into list. Quantities may share their decimal form with
// the spec they came from, so list only ever holds copies it owns.
func addTo(list, more corev1.ResourceList) {
	for name, q := range more {
		sum, ok := list[name]
		if !ok {
			list[name] = q.DeepCopy()
			continue
		}
		sum.Add(q)
		list[name] = sum
	}
}

func raiseTo(list, other corev1.ResourceList) {
	for name, q := range other {
		if current, ok := list[name]; !ok || q.Cmp(current) > 0 {
			list[name] = q.DeepCopy()
		}
	}
}

// RequestError reports an entry of an explicit requests map that
// ParseRequests refuses, naming the entry.
type RequestError struct {
	Resource string
	Reason   string
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("%q: %s", e.Resource, e.Reason)
}

// ParseRequests reads explicit per-replica requests such as
// {"cpu": "500m", "memory": "256Mi"}. It accepts cpu, memory,
// ephemeral-storage, hugepages-<size> and extended resources (a name with a
// domain, such as example.com/gpu), each a non-negative quantity, and refuses
// "pods": every replica is one pod already. Entries are checked in name
// order, so the error reported does not vary with map order.
func ParseRequests(raw map[string]string) (corev1.ResourceList, error) {
	out := make(corev1.ResourceList, len(raw))
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		if err := checkResourceName(name); err != nil {
			return nil, err
		}
		q, err := resource.ParseQuantity(raw[name])
		if err != nil {
			return nil, &RequestError{Resource: name, Reason: fmt.Sprintf("%q is not a quantity (examples: 500m, 2, 256Mi, 1Gi)", raw[name])}
		}
		if q.Sign() < 0 {
			return nil, &RequestError{Resource: name, Reason: fmt.Sprintf("must not be negative, got %s", raw[name])}
		}
		out[corev1.ResourceName(name)] = q
	}
	return out, nil
}

func checkResourceName(name string) error {
	switch {
	case name == string(corev1.ResourcePods):
		return &RequestError{Resource: name, Reason: "each replica is one pod already; remove this entry"}
	case name == string(corev1.ResourceCPU), name == string(corev1.ResourceMemory),
		name == string(corev1.ResourceEphemeralStorage):
		return nil
	case strings.HasPrefix(name, corev1.ResourceHugePagesPrefix):
		if _, err := resource.ParseQuantity(strings.TrimPrefix(name, corev1.ResourceHugePagesPrefix)); err != nil {
			return &RequestError{Resource: name, Reason: "a hugepages resource names its page size, such as hugepages-2Mi"}
		}
		return nil
	case strings.Contains(name, "/") && len(validation.IsQualifiedName(name)) == 0:
		return nil
	}
	return &RequestError{Resource: name, Reason: "unknown resource; use cpu, memory, ephemeral-storage, hugepages-<size> " +
		"or an extended resource with its domain, such as example.com/gpu"}
}
