package federation

import (
	"strings"
	"testing"
)

// Templates and manifests are cut into documents the same way, so that a
// template never hides a second object behind a marker the splitter missed.
func TestTemplatesAndManifestsSplitDocumentsAlike(t *testing.T) {
	tests := []struct {
		name, text string
		objects    int
	}{
		{"one object between markers", "---\n" + configMapDoc + "...\n", 1},
		{"one object after a marker with a tag", "--- !!map\n" + configMapDoc, 1},
		{"a second object after a document end marker", configMapDoc + "...\n" + deploymentDoc, 2},
		{"a second object on the marker's line", configMapDoc + "--- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}\n", 2},
		{"a separator with a comment", configMapDoc + "--- # next\n" + deploymentDoc, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := ParseManifests([]string{tt.text}, ManifestOptions{})
			if err != nil || len(ms) != tt.objects {
				t.Fatalf("manifests: %d objects (%v), want %d", len(ms), err, tt.objects)
			}
			_, err = NewRenderer(RenderSpec{Template: tt.text, Namespaced: true})
			switch {
			case tt.objects == 1 && err != nil:
				t.Fatalf("template refused: %v", err)
			case tt.objects > 1 && (err == nil || !strings.Contains(err.Error(), "more than one YAML document")):
				t.Fatalf("template of %d objects: error %v, want it refused as several documents", tt.objects, err)
			}
		})
	}
}
