package listcache

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Prefetched is one list of a resource in every namespace, taken ahead of
// the reads it answers.
type Prefetched struct {
	done chan struct{}
	// byNamespace holds the listed objects by namespace and name; nil
	// unless the list was whole.
	byNamespace map[string]map[string]*unstructured.Unstructured
}

// Prefetch starts, in the background, one list of the scope's resource in
// every namespace (src must list them all), for the objects of the scope's
// selector; the scope's Namespace is ignored. When that list fits in one
// page, it answers every namespaced scope of the same cluster, resource and
// selector that the run reads from then on, without a list of its own. A
// list that fails, or needs more pages than one, answers nothing: those
// scopes are listed on their own, as without it. So a run can list what it
// will read while it waits for something else, at the cost of one page at
// most. A second Prefetch of the same scope returns the first.
func (c *Cache) Prefetch(ctx context.Context, scope Scope, src Source) *Prefetched {
	if c == nil {
		p := &Prefetched{done: make(chan struct{})}
		close(p.done)
		return p
	}
	key := wideKey(scope)
	c.mu.Lock()
	if p, ok := c.wide[key]; ok {
		c.mu.Unlock()
		return p
	}
	p := &Prefetched{done: make(chan struct{})}
	c.wide[key] = p
	c.mu.Unlock()
	go func() {
		defer close(p.done)
		page, err := src.List(ctx, metav1.ListOptions{LabelSelector: scope.LabelSelector, Limit: c.pageSize})
		if err != nil || page.GetContinue() != "" {
			return
		}
		p.byNamespace = map[string]map[string]*unstructured.Unstructured{}
		for i := range page.Items {
			o := &page.Items[i]
			if p.byNamespace[o.GetNamespace()] == nil {
				p.byNamespace[o.GetNamespace()] = map[string]*unstructured.Unstructured{}
			}
			p.byNamespace[o.GetNamespace()][o.GetName()] = o
		}
	}()
	return p
}

// Wait waits for the list and reports whether it answers reads (it was
// whole); false when ctx ends first.
func (p *Prefetched) Wait(ctx context.Context) (whole bool) {
	select {
	case <-p.done:
		return p.byNamespace != nil
	case <-ctx.Done():
		return false
	}
}

// wideKey is the scope a prefetch of scope is kept under: every namespace.
func wideKey(scope Scope) Scope {
	scope.Namespace = ""
	return scope
}

// fromPrefetch returns the objects of a namespaced scope from a whole
// prefetched list of its resource, waiting for that list when it is still
// being taken; false when there is none, it was not whole, or ctx ends.
func (c *Cache) fromPrefetch(ctx context.Context, scope Scope) (map[string]*unstructured.Unstructured, bool) {
	if scope.Namespace == "" {
		return nil, false
	}
	c.mu.Lock()
	p, ok := c.wide[wideKey(scope)]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	if !p.Wait(ctx) {
		return nil, false
	}
	objects := p.byNamespace[scope.Namespace]
	if objects == nil {
		objects = map[string]*unstructured.Unstructured{}
	}
	return objects, true
}
