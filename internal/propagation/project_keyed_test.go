package propagation

import (
	"encoding/json"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// deployment is a Deployment of the given pod spec, as JSON.
func deployment(podSpec string) string {
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},
		"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":` + podSpec + `}}}`
}

func TestProjectMatchesListElementsByMergeKey(t *testing.T) {
	const (
		web     = `{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}]}`
		liveWeb = `{"name":"web","image":"nginx:1.27","imagePullPolicy":"IfNotPresent","ports":[{"containerPort":80,"protocol":"TCP"}]}`
		sidecar = `{"name":"istio-proxy","image":"proxyv2"}`
		logger  = `{"name":"logger","image":"fluent-bit"}`
	)
	tests := []struct {
		name          string
		applied, live string
		// want is the projection; empty means the applied object itself.
		want string
	}{
		{
			name:    "a sidecar another manager injected is theirs",
			applied: deployment(`{"containers":[` + web + `]}`),
			live:    deployment(`{"containers":[` + liveWeb + `,` + sidecar + `]}`),
		},
		{
			name:    "reordered keyed elements are no change",
			applied: deployment(`{"containers":[` + web + `,` + logger + `]}`),
			live:    deployment(`{"containers":[` + logger + `,` + sidecar + `,` + liveWeb + `]}`),
		},
		{
			name:    "a container we applied that someone removed is missing",
			applied: deployment(`{"containers":[` + web + `,` + logger + `]}`),
			live:    deployment(`{"containers":[` + liveWeb + `,` + sidecar + `]}`),
			want:    deployment(`{"containers":[` + web + `]}`),
		},
		{
			name:    "a field changed in a keyed element shows",
			applied: deployment(`{"containers":[` + web + `]}`),
			live:    deployment(`{"containers":[{"name":"web","image":"nginx:tampered","ports":[{"containerPort":80,"protocol":"TCP"}]},` + sidecar + `]}`),
			want:    deployment(`{"containers":[{"name":"web","image":"nginx:tampered","ports":[{"containerPort":80}]}]}`),
		},
		{
			name:    "a port applied without its protocol is the TCP port the server defaulted",
			applied: deployment(`{"containers":[{"name":"web","ports":[{"containerPort":80},{"containerPort":53,"protocol":"UDP"}]}]}`),
			live:    deployment(`{"containers":[{"name":"web","ports":[{"containerPort":53,"protocol":"UDP"},{"containerPort":53,"protocol":"TCP"},{"containerPort":80,"protocol":"TCP"}]}]}`),
		},
		{
			name:    "a port changed to another protocol is missing",
			applied: deployment(`{"containers":[{"name":"web","ports":[{"containerPort":80}]}]}`),
			live:    deployment(`{"containers":[{"name":"web","ports":[{"containerPort":80,"protocol":"UDP"}]}]}`),
			want:    deployment(`{"containers":[{"name":"web","ports":[]}]}`),
		},
		{
			// Tolerations are an atomic list: whoever writes it writes all of
			// it, and the apply puts back the list it applied.
			name:    "a toleration another manager added to the atomic list shows",
			applied: deployment(`{"containers":[` + web + `],"tolerations":[{"key":"zone","operator":"Exists"}]}`),
			live: deployment(`{"containers":[` + liveWeb + `],"tolerations":[{"key":"zone","operator":"Exists"},` +
				`{"key":"gpu","operator":"Exists","effect":"NoSchedule"}]}`),
			want: deployment(`{"containers":[` + web + `],"tolerations":[{"key":"zone","operator":"Exists"},` +
				`{"key":"gpu","operator":"Exists","effect":"NoSchedule"}]}`),
		},
		{
			name:    "an atomic list of the same length is projected element by element",
			applied: deployment(`{"containers":[` + web + `],"tolerations":[{"key":"zone","operator":"Exists"}]}`),
			live:    deployment(`{"containers":[` + liveWeb + `],"tolerations":[{"key":"zone","operator":"Exists","tolerationSeconds":5}]}`),
		},
		{
			name:    "a finalizer another controller added is theirs",
			applied: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["example.com/ours"]}}`,
			live:    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","finalizers":["example.com/theirs","example.com/ours"]}}`,
		},
		{
			name:    "replicas left out of the template are never read back",
			applied: deployment(`{"containers":[` + web + `]}`),
			live: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},
				"spec":{"replicas":7,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[` + liveWeb + `]}}}}`,
		},
		{
			name:    "a custom resource's named elements are matched by name",
			applied: `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"parts":[{"name":"a","size":1},{"name":"b","size":2}]}}`,
			live:    `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"parts":[{"name":"b","size":2},{"name":"injected"},{"name":"a","size":1}]}}`,
		},
		{
			name:    "a custom resource's unnamed elements are compared whole",
			applied: `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"parts":[{"size":1}]}}`,
			live:    `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"parts":[{"size":1},{"size":2}]}}`,
			want:    `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"parts":[{"size":1},{"size":2}]}}`,
		},
		{
			name:    "a custom resource's elements sharing a name are compared by position",
			applied: `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"parts":[{"name":"a","size":1}]}}`,
			live:    `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"parts":[{"name":"a","size":1},{"name":"a","size":2}]}}`,
			want:    `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"parts":[{"name":"a","size":1},{"name":"a","size":2}]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var applied, live map[string]any
			if err := json.Unmarshal([]byte(tt.applied), &applied); err != nil {
				t.Fatal(err)
			}
			// The API server's answers decode with integers as int64.
			if err := utiljson.Unmarshal([]byte(tt.live), &live); err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = tt.applied
			}
			if got, want := canonicalJSON(t, Project(live, applied)), canonicalJSON(t, want); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// canonicalJSON writes v (an object, or JSON text) in one form, keys
// sorted, so that equal objects compare equal.
func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	if text, ok := v.(string); ok {
		var obj any
		if err := json.Unmarshal([]byte(text), &obj); err != nil {
			t.Fatal(err)
		}
		v = obj
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A read-back projects one object per cluster; the schema is parsed once
// per process, outside the loop.
func BenchmarkProjectDeployment(b *testing.B) {
	var applied, live map[string]any
	appliedText := deployment(`{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}]}]}`)
	liveText := deployment(`{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}]},` +
		`{"name":"istio-proxy","image":"proxyv2"}]}`)
	if err := json.Unmarshal([]byte(appliedText), &applied); err != nil {
		b.Fatal(err)
	}
	if err := utiljson.Unmarshal([]byte(liveText), &live); err != nil {
		b.Fatal(err)
	}
	Project(live, applied)
	b.ReportAllocs()
	for b.Loop() {
		Project(live, applied)
	}
}
