package federation

import "bytes"

// document is one YAML document of a text and the line it starts on.
type document struct {
	line int
	text []byte
}

// splitDocuments cuts text into its YAML documents at the "---" and "..."
// markers that start a line. A marker followed by content, as in
// "--- {kind: ...}", starts the next document; sigs.k8s.io/yaml, given two
// documents, would silently read only the first.
func splitDocuments(text string) []document {
	b := []byte(text)
	var docs []document
	start, startLine, offset, line := 0, 1, 0, 0
	for l := range bytes.Lines(b) {
		line++
		offset += len(l)
		marker, content := documentMarker(l)
		if !marker {
			continue
		}
		docs = append(docs, document{line: startLine, text: b[start : offset-len(l)]})
		start, startLine = offset, line+1
		if content {
			start, startLine = offset-len(l), line
		}
	}
	return append(docs, document{line: startLine, text: b[start:]})
}

// documentMarker reports whether line is a document marker, "---" or
// "..." followed by nothing or by blanks, and whether content other than a
// comment follows it on the line.
func documentMarker(line []byte) (marker, content bool) {
	for _, m := range []string{"---", "..."} {
		rest, ok := bytes.CutPrefix(line, []byte(m))
		if !ok || len(rest) > 0 && !isBlank(rest[0]) {
			continue
		}
		rest = bytes.TrimSpace(rest)
		return true, len(rest) > 0 && rest[0] != '#'
	}
	return false, false
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
