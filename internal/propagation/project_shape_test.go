package propagation

import "testing"

func TestContainsList(t *testing.T) {
	cases := []struct {
		name string
		obj  map[string]any
		want bool
	}{
		{"a ConfigMap", map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "a", "labels": map[string]any{"x": "y"}}, "data": map[string]any{"k": "v"}}, false},
		{"an empty list at the top", map[string]any{"items": []any{}}, true},
		{"a list deep down", map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c"}}}}}}, true},
		{"nothing", map[string]any{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := containsList(tc.obj); got != tc.want {
				t.Errorf("containsList = %v, want %v", got, tc.want)
			}
		})
	}
}
