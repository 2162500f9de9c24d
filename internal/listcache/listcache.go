// Package listcache answers reads of objects by name, for one run of the
// provider, from one paged list per cluster, resource and namespace: the
// first read in a scope lists it, and every later read in that scope is
// answered from the list. A name the list lacks, or one this run wrote
// since, is read once more by name, so an object created after the list is
// never missed and a write is never read back stale.
package listcache

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// DefaultPageSize is how many objects one page of a list asks for: small
// enough that a page stays well under the API server's response limits,
// large enough that most scopes need one page.
const DefaultPageSize = 500

// Scope is what one list covers.
type Scope struct {
	// Cluster names the member the list is taken on; empty is the host.
	Cluster string
	// Resource and Namespace name the objects; an empty namespace is a
	// cluster-scoped resource.
	Resource  schema.GroupVersionResource
	Namespace string
	// LabelSelector narrows the list; objects outside it are read by name.
	LabelSelector string
}

func (s Scope) String() string {
	what := s.Resource.Resource
	if s.Resource.Group != "" {
		what += "." + s.Resource.Group
	}
	if s.Namespace != "" {
		what += " in namespace " + s.Namespace
	}
	if s.Cluster == "" {
		return what + " in the host"
	}
	return fmt.Sprintf("%s on cluster %q", what, s.Cluster)
}

// Source is how a scope's objects are fetched.
type Source interface {
	List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions, subresources ...string) (*unstructured.Unstructured, error)
}

var _ Source = dynamic.ResourceInterface(nil)

// Cache holds the lists of one run. Its zero value is not usable; a nil
// *Cache reads everything by name.
type Cache struct {
	pageSize int64

	mu     sync.Mutex
	scopes map[Scope]*listing
	// written are the names of each scope this run wrote, kept apart from
	// the scope's list so that a write before the first read of its scope
	// counts too: a list taken ahead of the write (Prefetch) holds its old
	// version.
	written map[Scope]map[string]bool
	// wide are the lists of a resource in every namespace taken ahead, by
	// their scope with no namespace.
	wide map[Scope]*Prefetched
}

// New returns an empty cache whose lists ask for pageSize objects a page.
func New(pageSize int64) *Cache {
	if pageSize < 1 {
		pageSize = DefaultPageSize
	}
	return &Cache{pageSize: pageSize, scopes: map[Scope]*listing{}, written: map[Scope]map[string]bool{}, wide: map[Scope]*Prefetched{}}
}

// listing is one scope's list: taken once, by the first reader, while the
// others wait for it.
type listing struct {
	done    chan struct{}
	objects map[string]*unstructured.Unstructured
	err     error
}

// Get returns the named object of the scope and whether it exists, from the
// scope's list when it has the name and nothing wrote it since, else by
// name. A list that fails is not kept as empty: every read of the scope is
// then made by name, and the next run lists again.
func (c *Cache) Get(ctx context.Context, scope Scope, src Source, name string) (*unstructured.Unstructured, bool, error) {
	if c != nil {
		l, err := c.listingOf(ctx, scope, src)
		if err != nil {
			return nil, false, err
		}
		if obj, ok := l.objects[name]; ok && l.err == nil && !c.wasWritten(scope, name) {
			return obj.DeepCopy(), true, nil
		}
	}
	obj, err := src.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return obj, true, nil
}

// GetListed is Get for checks that guard a create: a name the scope's list
// lacks counts as absent without a read by name, and so does every name of
// a scope whose resource the server does not serve (its list is not
// found: a CRD not created yet). An object created since the list, in this
// run, is missed as one created just after a read by name would be; names
// this run wrote are still read by name.
func (c *Cache) GetListed(ctx context.Context, scope Scope, src Source, name string) (*unstructured.Unstructured, bool, error) {
	if c == nil {
		return c.Get(ctx, scope, src, name)
	}
	l, err := c.listingOf(ctx, scope, src)
	if err != nil {
		return nil, false, err
	}
	written := c.wasWritten(scope, name)
	if apierrors.IsNotFound(l.err) && !written {
		return nil, false, nil
	}
	if l.err == nil && !written {
		obj, ok := l.objects[name]
		if !ok {
			return nil, false, nil
		}
		return obj.DeepCopy(), true, nil
	}
	return c.Get(ctx, scope, src, name)
}

// Forget marks name as written in this run: reads of it go by name from now
// on. Writers call it after every write, whether it succeeded or not.
func (c *Cache) Forget(scope Scope, name string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.written[scope] == nil {
		c.written[scope] = map[string]bool{}
	}
	c.written[scope][name] = true
}

func (c *Cache) wasWritten(scope Scope, name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.written[scope][name]
}

// listingOf returns the scope's list, taking it on the first call (from a
// whole prefetched list of its resource when there is one). It fails
// only when ctx ends while the list is being taken by another reader.
func (c *Cache) listingOf(ctx context.Context, scope Scope, src Source) (*listing, error) {
	c.mu.Lock()
	l, ok := c.scopes[scope]
	if !ok {
		l = &listing{done: make(chan struct{})}
		c.scopes[scope] = l
	}
	c.mu.Unlock()
	if !ok {
		var prefetched bool
		if l.objects, prefetched = c.fromPrefetch(ctx, scope); !prefetched {
			l.objects, l.err = listAll(ctx, src, scope.LabelSelector, c.pageSize)
		}
		if l.err != nil && ctx.Err() != nil {
			// Cut off by its own reader's deadline, not refused: the next
			// reader lists again.
			c.mu.Lock()
			delete(c.scopes, scope)
			c.mu.Unlock()
		}
		close(l.done)
	}
	select {
	case <-l.done:
		return l, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// listAll lists every object of src matching selector, page by page.
func listAll(ctx context.Context, src Source, selector string, pageSize int64) (map[string]*unstructured.Unstructured, error) {
	objects := map[string]*unstructured.Unstructured{}
	opts := metav1.ListOptions{LabelSelector: selector, Limit: pageSize}
	for {
		page, err := src.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range page.Items {
			objects[page.Items[i].GetName()] = &page.Items[i]
		}
		if page.GetContinue() == "" {
			return objects, nil
		}
		opts.Continue = page.GetContinue()
	}
}
