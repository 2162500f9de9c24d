package propagation

// Project returns the parts of live found at the paths present in applied:
// the fields the federation set. Server defaults, server-assigned fields
// (a Service's clusterIP) and fields of other managers fall away, so that
// reading back an untouched object gives exactly what was applied, while a
// field that was applied and then changed keeps its changed value.
//
// Lists are projected element by element when both sides have the same
// length; otherwise the live list is kept whole, because elements added or
// removed by someone else are a change of a field that was applied.
func Project(live, applied map[string]any) map[string]any {
	out := make(map[string]any, len(applied))
	for key, want := range applied {
		got, ok := live[key]
		if !ok {
			continue
		}
		out[key] = projectValue(got, want)
	}
	return out
}

func projectValue(got, want any) any {
	switch w := want.(type) {
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			return Project(g, w)
		}
	case []any:
		if g, ok := got.([]any); ok && len(g) == len(w) {
			out := make([]any, len(g))
			for i := range g {
				out[i] = projectValue(g[i], w[i])
			}
			return out
		}
	}
	return got
}
