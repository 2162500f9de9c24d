package federation

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// BenchmarkParseManifests30Objects parses a chart of ten components, each a
// ConfigMap, a Service and a Deployment as `helm template` prints them,
// comments and empty documents included: 30 objects in one element, as a
// plan of an application reads them.
func BenchmarkParseManifests30Objects(b *testing.B) {
	chart, err := os.ReadFile(helmChartFile)
	if err != nil {
		b.Fatal(err)
	}
	component := string(chart[strings.Index(string(chart), "# Source: shop/templates/configmap.yaml"):])
	var text strings.Builder
	for i := range 10 {
		text.WriteString("---\n")
		text.WriteString(strings.ReplaceAll(component, "shop-web", fmt.Sprintf("shop-web-%d", i)))
	}
	elements := []string{text.String()}
	if ms, err := ParseManifests(elements, ManifestOptions{}); err != nil || len(ms) != 30 {
		b.Fatalf("the chart holds %d objects (%v), want 30", len(ms), err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseManifests(elements, ManifestOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*30), "ns/object")
}
