package federation

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

const (
	helmChartFile   = "testdata/helm-shop.yaml"
	helmGoldenFile  = "testdata/helm-shop-golden.json"
	helmObjectCount = 4
)

// helmGolden is what a chart rendered by `helm template` becomes: its
// objects, where they were found, the order a cluster receives them in,
// and what berlin receives of each.
type helmGolden struct {
	Objects []helmGoldenObject `json:"objects"`
	Apply   [][]string         `json:"apply"`
	Remove  [][]string         `json:"remove"`
}

type helmGoldenObject struct {
	Key      string `json:"key"`
	Position string `json:"position"`
	Rendered string `json:"rendered"`
}

func helmChartGolden(t *testing.T) helmGolden {
	t.Helper()
	chart, err := os.ReadFile(helmChartFile)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseManifests([]string{string(chart)}, ManifestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out helmGolden
	var objects []Key
	for _, m := range ms {
		r, err := NewRenderer(RenderSpec{Template: m.Template, Namespaced: m.Key.Namespace != ""})
		if err != nil {
			t.Fatalf("%s: %v", m.Key, err)
		}
		got, err := r.Render(berlin, nil)
		if err != nil {
			t.Fatalf("%s: %v", m.Key, err)
		}
		out.Objects = append(out.Objects, helmGoldenObject{Key: m.Key.String(), Position: m.String(), Rendered: got.Display})
		objects = append(objects, m.Key)
	}
	out.Apply, out.Remove = stepStrings(ApplyOrder(objects)), stepStrings(RemoveOrder(objects))
	return out
}

// TestHelmTemplateOutputGolden reads a chart as `helm template` prints it,
// with its "# Source:" comments, a template that rendered nothing and an
// empty document, and compares the objects, their positions, the order and
// what berlin receives with the recorded ones. Run with -update to record a
// deliberate change.
func TestHelmTemplateOutputGolden(t *testing.T) {
	got := helmChartGolden(t)
	if len(got.Objects) != helmObjectCount {
		t.Fatalf("found %d objects in the chart, want %d", len(got.Objects), helmObjectCount)
	}
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(helmGoldenFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(helmGoldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var want helmGolden
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		t.Fatalf("the chart reads differently from %s:\n%s", helmGoldenFile, g)
	}
}
