package federation

import (
	"strconv"
	"sync"
)

// maxShared bounds how many rendered objects a Renderer keeps for sharing.
const maxShared = 4096

// sharedRenders holds the objects a Renderer has rendered, by shareKey, so
// that clusters that receive the same object share one rendering. Only
// successes are kept: an error names the cluster it is about.
type sharedRenders struct {
	mu      sync.Mutex
	renders map[string]sharedRender
}

// sharedRender is a Rendered without its warnings, which Render copies from
// the Renderer, with its object as a string, which no caller can modify,
// and with notes that name no cluster.
type sharedRender struct {
	object, display string
	sensitive       bool
	notes           []Note
}

// shareKey names what a rendered object depends on besides the Renderer:
// the options and the rules that target the cluster.
func shareKey(opts RenderOptions, targeting []int) string {
	b := make([]byte, 0, 8+4*len(targeting))
	switch {
	case opts.RetainReplicas:
		b = append(b, 'r')
	case opts.Replicas != nil:
		b = strconv.AppendInt(b, *opts.Replicas, 10)
	}
	for _, i := range targeting {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(i), 10)
	}
	return string(b)
}

// get returns the object shared under key, with its notes about cluster.
func (s *sharedRenders) get(key, cluster string) (Rendered, bool) {
	s.mu.Lock()
	e, ok := s.renders[key]
	s.mu.Unlock()
	if !ok {
		return Rendered{}, false
	}
	out := Rendered{Display: e.display, Object: []byte(e.object), Sensitive: e.sensitive}
	for _, n := range e.notes {
		n.Cluster = cluster
		out.Notes = append(out.Notes, n)
	}
	return out, true
}

func (s *sharedRenders) put(key string, out Rendered) {
	e := sharedRender{display: out.Display, sensitive: out.Sensitive}
	for _, n := range out.Notes {
		n.Cluster = ""
		e.notes = append(e.notes, n)
	}
	if out.Display == string(out.Object) {
		e.object = out.Display
	} else {
		e.object = string(out.Object)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.renders == nil {
		s.renders = map[string]sharedRender{}
	}
	if len(s.renders) < maxShared {
		s.renders[key] = e
	}
}
