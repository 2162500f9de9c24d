// Package renderdiff writes what the clusters receive of one object the
// way a plan shows it: the manifest most of them receive, once; the
// clusters that receive the object; and, for each cluster that receives
// something else, how it differs, as a JSON Patch (RFC 6902). Join gives
// every cluster's exact text back, so the view determines each cluster's
// object as fully as a copy per cluster would.
package renderdiff

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Unknown is a cluster's text when what it holds is not known (a write was
// cut off); it is kept as an empty difference.
const Unknown = ""

// View is one object's texts on its clusters.
type View struct {
	// Manifest is the canonical JSON most clusters receive; ties go to the
	// shorter text, then the one that sorts first.
	Manifest string
	// Clusters are the clusters that receive or hold the object, sorted.
	Clusters []string
	// Differences holds, for each cluster whose text is not Manifest, a
	// JSON Patch that turns Manifest into it, Unknown, or, when a patch
	// would not be shorter or would not give the text back byte for byte,
	// the text itself (an object; any other text as a JSON string).
	Differences map[string]string
}

// Split is the view of the texts of an object by cluster.
func Split(byCluster map[string]string) View {
	if len(byCluster) == 0 {
		return View{}
	}
	view := View{Clusters: slices.Sorted(maps.Keys(byCluster))}
	view.Manifest = mostCommon(byCluster, view.Clusters)
	var base any
	for _, cluster := range view.Clusters {
		text := byCluster[cluster]
		if text == view.Manifest {
			continue
		}
		if view.Differences == nil {
			view.Differences = map[string]string{}
		}
		if text == Unknown {
			view.Differences[cluster] = Unknown
			continue
		}
		if base == nil {
			base, _ = decode(view.Manifest)
		}
		view.Differences[cluster] = difference(base, text)
	}
	return view
}

// mostCommon is the text most clusters have, Unknown last.
func mostCommon(byCluster map[string]string, clusters []string) string {
	counts := map[string]int{}
	for _, cluster := range clusters {
		counts[byCluster[cluster]]++
	}
	texts := slices.Collect(maps.Keys(counts))
	slices.SortFunc(texts, func(a, b string) int {
		if (a == Unknown) != (b == Unknown) {
			if a == Unknown {
				return 1
			}
			return -1
		}
		return cmp.Or(counts[b]-counts[a], len(a)-len(b), cmp.Compare(a, b))
	})
	return texts[0]
}

// difference is how text differs from base (decoded; nil when the
// manifest is not JSON): a patch when that is shorter and gives the text
// back exactly, the text otherwise.
func difference(base any, text string) string {
	if base == nil {
		return whole(text)
	}
	target, err := decode(text)
	if err != nil {
		return whole(text)
	}
	patch, err := encode(Diff(base, target))
	if err != nil || len(patch) >= len(text) {
		return whole(text)
	}
	if back, err := applyText(base, patch); err != nil || back != text {
		return whole(text)
	}
	return patch
}

// whole is a cluster's text as its own difference: an object as it is,
// any other text quoted, so that Join tells it from a patch.
func whole(text string) string {
	if strings.HasPrefix(text, "{") {
		return text
	}
	quoted, _ := json.Marshal(text)
	return string(quoted)
}

// Join is every cluster's text, the inverse of Split.
func (v View) Join() (map[string]string, error) {
	out := make(map[string]string, len(v.Clusters))
	for cluster := range v.Differences {
		if !slices.Contains(v.Clusters, cluster) {
			return nil, fmt.Errorf("differences name %q, which is not among the clusters %v", cluster, v.Clusters)
		}
	}
	var base any
	for _, cluster := range v.Clusters {
		d, differs := v.Differences[cluster]
		switch {
		case !differs:
			out[cluster] = v.Manifest
		case d == Unknown || d[0] == '{':
			out[cluster] = d
		case d[0] == '"':
			var text string
			if err := json.Unmarshal([]byte(d), &text); err != nil {
				return nil, fmt.Errorf("the difference of cluster %q: %w", cluster, err)
			}
			out[cluster] = text
		case d[0] == '[':
			if base == nil {
				var err error
				if base, err = decode(v.Manifest); err != nil {
					return nil, fmt.Errorf("the manifest is not JSON: %w", err)
				}
			}
			text, err := applyText(base, d)
			if err != nil {
				return nil, fmt.Errorf("the difference of cluster %q: %w", cluster, err)
			}
			out[cluster] = text
		default:
			return nil, fmt.Errorf("the difference of cluster %q is neither a JSON Patch, an object nor a string", cluster)
		}
	}
	return out, nil
}

// applyText applies a patch's text to a copy of base and encodes the
// result.
func applyText(base any, patchText string) (string, error) {
	ops, err := decodePatch(patchText)
	if err != nil {
		return "", err
	}
	doc, err := Apply(deepCopy(base), ops)
	if err != nil {
		return "", err
	}
	return encode(doc)
}
