package capacity

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func container(name string, requests corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests}}
}

func sidecar(name string, requests corev1.ResourceList) corev1.Container {
	c := container(name, requests)
	always := corev1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

// sameList compares quantities by value, so that 1000m equals 1.
func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		other, ok := b[name]
		if !ok || q.Cmp(other) != 0 {
			return false
		}
	}
	return true
}

func TestRequestsFromPodSpec(t *testing.T) {
	cases := []struct {
		name string
		spec corev1.PodSpec
		want corev1.ResourceList
	}{
		{
			name: "containers add up",
			spec: corev1.PodSpec{Containers: []corev1.Container{
				container("app", list("cpu", "500m", "memory", "256Mi")),
				container("proxy", list("cpu", "100m", "memory", "64Mi", "ephemeral-storage", "1Gi")),
			}},
			want: list("cpu", "600m", "memory", "320Mi", "ephemeral-storage", "1Gi"),
		},
		{
			name: "an init container bigger than the containers sets the request",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{container("migrate", list("cpu", "2", "memory", "128Mi"))},
				Containers:     []corev1.Container{container("app", list("cpu", "500m", "memory", "1Gi"))},
			},
			want: list("cpu", "2", "memory", "1Gi"),
		},
		{
			name: "init containers run one at a time, so the largest counts and not their sum",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{container("one", list("cpu", "1")), container("two", list("cpu", "1500m"))},
				Containers:     []corev1.Container{container("app", list("cpu", "200m"))},
			},
			want: list("cpu", "1500m"),
		},
		{
			name: "sidecars run next to the containers and to the init containers after them",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{
					container("before", list("cpu", "1")),
					sidecar("mesh", list("cpu", "300m")),
					container("after", list("cpu", "1")),
				},
				Containers: []corev1.Container{container("app", list("cpu", "500m"))},
			},
			want: list("cpu", "1300m"),
		},
		{
			name: "limits stand in for requests a container does not set",
			spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Limits: list("cpu", "1", "memory", "512Mi"), Requests: list("cpu", "250m")}}}},
			want: list("cpu", "250m", "memory", "512Mi"),
		},
		{
			name: "the pod overhead is added",
			spec: corev1.PodSpec{Overhead: list("cpu", "250m", "memory", "120Mi"),
				Containers: []corev1.Container{container("app", list("cpu", "1", "memory", "1Gi"))}},
			want: list("cpu", "1250m", "memory", "1144Mi"),
		},
		{
			name: "pod-level requests replace the containers' cpu and memory but not storage",
			spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: list("cpu", "2", "memory", "2Gi")},
				Containers: []corev1.Container{container("app", list("cpu", "500m", "memory", "1Gi", "ephemeral-storage", "1Gi"))},
			},
			want: list("cpu", "2", "memory", "2Gi", "ephemeral-storage", "1Gi"),
		},
		{
			name: "pod-level limits stand in for requests nothing else sets",
			spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Limits: list("cpu", "4", "memory", "1Gi")},
				Containers: []corev1.Container{container("app", list("cpu", "500m"))},
			},
			want: list("cpu", "500m", "memory", "1Gi"),
		},
		{
			name: "a pod without requests requests nothing",
			spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
			want: list(),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := RequestsFromPodSpec(tc.spec); !sameList(got, tc.want) {
				t.Errorf("requests = %v, want %v", got, tc.want)
			}
		})
	}
}

// Quantities in decimal form share their value through a pointer, so an
// addition on a shallow copy would change the pod spec it was read from.
func TestRequestsFromPodSpecLeavesTheSpecAlone(t *testing.T) {
	decimal := func(s string) corev1.ResourceList {
		q := resource.MustParse(s)
		q.ToDec()
		return corev1.ResourceList{corev1.ResourceCPU: q}
	}
	spec := corev1.PodSpec{
		InitContainers: []corev1.Container{sidecar("mesh", decimal("300m"))},
		Containers:     []corev1.Container{container("app", decimal("500m"))},
		Overhead:       decimal("100m"),
		Resources:      &corev1.ResourceRequirements{Limits: decimal("2")},
	}
	RequestsFromPodSpec(spec)
	RequestsFromPodSpec(spec)
	if got := spec.Containers[0].Resources.Requests.Cpu().String(); got != "500m" {
		t.Fatalf("the container's request changed to %s", got)
	}
	third := RequestsFromPodSpec(spec)
	if got := third.Cpu().MilliValue(); got != 900 {
		t.Fatalf("third call gives %dm, want 900m", got)
	}
}

func TestParseRequests(t *testing.T) {
	cases := []struct {
		name     string
		raw      map[string]string
		want     corev1.ResourceList
		resource string
		text     string
	}{
		{name: "cpu and memory", raw: map[string]string{"cpu": "500m", "memory": "256Mi"}, want: list("cpu", "500m", "memory", "256Mi")},
		{name: "storage, hugepages and an extended resource",
			raw:  map[string]string{"ephemeral-storage": "1Gi", "hugepages-2Mi": "64Mi", "example.com/gpu": "1"},
			want: list("ephemeral-storage", "1Gi", "hugepages-2Mi", "64Mi", "example.com/gpu", "1")},
		{name: "an empty map requests nothing", raw: map[string]string{}, want: list()},
		{name: "a value that is not a quantity", raw: map[string]string{"cpu": "half"}, resource: "cpu", text: `"half" is not a quantity`},
		{name: "a negative value", raw: map[string]string{"memory": "-1Gi"}, resource: "memory", text: "must not be negative"},
		{name: "the pod count", raw: map[string]string{"pods": "1"}, resource: "pods", text: "each replica is one pod already"},
		{name: "a misspelt resource", raw: map[string]string{"cpus": "1"}, resource: "cpus", text: "unknown resource"},
		{name: "hugepages without a page size", raw: map[string]string{"hugepages-big": "1Gi"}, resource: "hugepages-big", text: "page size"},
		{name: "the first bad entry in name order is reported",
			raw: map[string]string{"memory": "lots", "cpu": "many"}, resource: "cpu", text: `"many"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRequests(tc.raw)
			if tc.resource == "" {
				if err != nil {
					t.Fatalf("ParseRequests: %v", err)
				}
				if !sameList(got, tc.want) {
					t.Fatalf("requests = %v, want %v", got, tc.want)
				}
				return
			}
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("error = %v, want a *RequestError", err)
			}
			if re.Resource != tc.resource || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q names %q, want %q saying %q", err, re.Resource, tc.resource, tc.text)
			}
		})
	}
}
