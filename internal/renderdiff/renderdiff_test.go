package renderdiff

import (
	"maps"
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	deployment   = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":3,"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"web"}]}}}}`
	minReadyFive = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"minReadySeconds":5,"replicas":3,"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"web"}]}}}}`
	twoReplicas  = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":2,"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"web"}]}}}}`
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name      string
		byCluster map[string]string
		want      View
	}{
		{"no cluster", nil, View{}},
		{"every cluster receives the same object", map[string]string{"sf": deployment, "ny": deployment, "berlin": deployment},
			View{Manifest: deployment, Clusters: []string{"berlin", "ny", "sf"}}},
		{"one cluster's override adds a field", map[string]string{"sf": deployment, "ny": deployment, "berlin": minReadyFive},
			View{Manifest: deployment, Clusters: []string{"berlin", "ny", "sf"},
				Differences: map[string]string{"berlin": `[{"op":"add","path":"/spec/minReadySeconds","value":5}]`}}},
		{"a replica split where no two clusters agree: the shorter text, then the first", map[string]string{"sf": minReadyFive, "ny": twoReplicas, "berlin": deployment},
			View{Manifest: twoReplicas, Clusters: []string{"berlin", "ny", "sf"}, Differences: map[string]string{
				"berlin": `[{"op":"replace","path":"/spec/replicas","value":3}]`,
				"sf":     `[{"op":"add","path":"/spec/minReadySeconds","value":5},{"op":"replace","path":"/spec/replicas","value":3}]`}}},
		{"a cluster whose write was cut off", map[string]string{"sf": deployment, "ny": Unknown},
			View{Manifest: deployment, Clusters: []string{"ny", "sf"}, Differences: map[string]string{"ny": Unknown}}},
		{"unknown on most clusters: the known text is the manifest", map[string]string{"sf": deployment, "ny": Unknown, "berlin": Unknown},
			View{Manifest: deployment, Clusters: []string{"berlin", "ny", "sf"}, Differences: map[string]string{"berlin": Unknown, "ny": Unknown}}},
		{"unknown everywhere", map[string]string{"sf": Unknown},
			View{Manifest: Unknown, Clusters: []string{"sf"}}},
		{"an object that shares nothing is written whole", map[string]string{"sf": deployment, "ny": deployment, "berlin": `{"kind":"ConfigMap"}`},
			View{Manifest: deployment, Clusters: []string{"berlin", "ny", "sf"}, Differences: map[string]string{"berlin": `{"kind":"ConfigMap"}`}}},
		{"text that is not canonical JSON is written whole, not re-spelt", map[string]string{"sf": deployment, "ny": deployment, "berlin": strings.Replace(deployment, `"replicas":3`, `"replicas":3.0`, 1)},
			View{Manifest: deployment, Clusters: []string{"berlin", "ny", "sf"},
				Differences: map[string]string{"berlin": `[{"op":"replace","path":"/spec/replicas","value":3.0}]`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.byCluster)
			if got.Manifest != tt.want.Manifest || strings.Join(got.Clusters, ",") != strings.Join(tt.want.Clusters, ",") ||
				!maps.Equal(got.Differences, tt.want.Differences) {
				t.Fatalf("Split =\n%#v\nwant\n%#v", got, tt.want)
			}
			back, err := got.Join()
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.byCluster) > 0 && !maps.Equal(back, tt.byCluster) {
				t.Fatalf("Join = %v, want %v", back, tt.byCluster)
			}
		})
	}
}

func TestJoinRefuses(t *testing.T) {
	tests := []struct {
		name string
		view View
		want string
	}{
		{"a difference for a cluster not listed", View{Manifest: deployment, Clusters: []string{"sf"}, Differences: map[string]string{"ny": "[]"}},
			`differences name "ny", which is not among the clusters [sf]`},
		{"a patch whose path is missing", View{Manifest: deployment, Clusters: []string{"sf"},
			Differences: map[string]string{"sf": `[{"op":"replace","path":"/spec/paused","value":true}]`}}, `no member "paused"`},
		{"a patch without a value", View{Manifest: deployment, Clusters: []string{"sf"},
			Differences: map[string]string{"sf": `[{"op":"add","path":"/spec/paused"}]`}}, "has no value"},
		{"an unknown op", View{Manifest: deployment, Clusters: []string{"sf"},
			Differences: map[string]string{"sf": `[{"op":"move","path":"/spec","value":1}]`}}, `unknown op "move"`},
		{"neither a patch nor an object", View{Manifest: deployment, Clusters: []string{"sf"},
			Differences: map[string]string{"sf": `7`}}, "neither a JSON Patch, an object nor a string"},
		{"a patch over a manifest that is not JSON", View{Manifest: "nope", Clusters: []string{"sf"},
			Differences: map[string]string{"sf": `[]`}}, "the manifest is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.view.Join()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Join error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestDiffAndApply(t *testing.T) {
	tests := []struct {
		name, from, to, patch string
	}{
		{"equal", `{"a":1}`, `{"a":1}`, `[]`},
		{"a key with a slash and a tilde", `{"m":{"a/b~c":"x"}}`, `{"m":{"a/b~c":"y"}}`, `[{"op":"replace","path":"/m/a~1b~0c","value":"y"}]`},
		{"a removed key", `{"a":1,"b":2}`, `{"a":1}`, `[{"op":"remove","path":"/b"}]`},
		{"an array that grows", `{"a":[1,2]}`, `{"a":[1,2,3,4]}`, `[{"op":"add","path":"/a/2","value":3},{"op":"add","path":"/a/3","value":4}]`},
		{"an array that shrinks, from its end", `{"a":[1,2,3,4]}`, `{"a":[1]}`, `[{"op":"remove","path":"/a/3"},{"op":"remove","path":"/a/2"},{"op":"remove","path":"/a/1"}]`},
		{"an element changed inside", `{"c":[{"env":[{"name":"A","value":"1"}]}]}`, `{"c":[{"env":[{"name":"A","value":"2"}]}]}`, `[{"op":"replace","path":"/c/0/env/0/value","value":"2"}]`},
		{"a change of type", `{"a":{"b":1}}`, `{"a":[1]}`, `[{"op":"replace","path":"/a","value":[1]}]`},
		{"a null value added", `{}`, `{"a":null}`, `[{"op":"add","path":"/a","value":null}]`},
		{"a top-level array that grows", `[1]`, `[1,2]`, `[{"op":"add","path":"/1","value":2}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, _ := decode(tt.from)
			to, _ := decode(tt.to)
			patch, err := encode(Diff(from, to))
			if err != nil {
				t.Fatal(err)
			}
			if tt.patch == `[]` && patch == "null" {
				patch = `[]`
			}
			if patch != tt.patch {
				t.Fatalf("Diff = %s, want %s", patch, tt.patch)
			}
			got, err := applyText(from, patch)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.to {
				t.Fatalf("applied: %s, want %s", got, tt.to)
			}
		})
	}
}

// FuzzSplitJoin checks that Join gives back every cluster's text, whatever
// the texts: near-equal objects, unrelated ones, Unknown and non-JSON
// (UTF-8, as every string Terraform stores).
func FuzzSplitJoin(f *testing.F) {
	f.Add(deployment, minReadyFive, twoReplicas)
	f.Add(`{"a":[1,2,{"b":"~/"}]}`, `{"a":[1]}`, ``)
	f.Add(`{"a":1e3}`, `{"a":1000}`, `not json`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || !utf8.ValidString(c) {
			t.Skip("Terraform's strings are UTF-8")
		}
		in := map[string]string{"a": a, "b": b, "c": c, "d": a}
		view := Split(in)
		back, err := view.Join()
		if err != nil {
			t.Fatalf("Join of %#v: %v", view, err)
		}
		if !maps.Equal(back, in) {
			t.Fatalf("Join = %#v, want %#v (view %#v)", back, in, view)
		}
		for cluster, d := range view.Differences {
			if d != Unknown && len(d) > len(whole(in[cluster])) {
				t.Fatalf("the difference of %s (%d bytes) is longer than its text (%d)", cluster, len(d), len(in[cluster]))
			}
		}
	})
}
