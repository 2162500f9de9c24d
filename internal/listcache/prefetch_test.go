package listcache

import (
	"context"
	"errors"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// wideSource is a resource in every namespace on a pretend API server: its
// lists span namespaces, as a list without a namespace does, and page the
// way the API server does. ns narrows it to one namespace, as the client
// of a namespaced scope is.
type wideSource struct {
	mu      sync.Mutex
	objects []*unstructured.Unstructured
	ns      string
	lists   int
	listErr error
}

func (s *wideSource) in(ns string) *wideSource {
	return &wideSource{objects: s.objects, ns: ns}
}

func (s *wideSource) add(ns, name string) {
	u := object(name, map[string]string{"kubefed.io/managed": "true"})
	u.SetNamespace(ns)
	s.objects = append(s.objects, u)
}

func (s *wideSource) List(_ context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	if s.listErr != nil {
		return nil, s.listErr
	}
	var matching []*unstructured.Unstructured
	for _, o := range s.objects {
		if s.ns == "" || o.GetNamespace() == s.ns {
			matching = append(matching, o)
		}
	}
	return pageOf(matching, opts), nil
}

func (s *wideSource) Get(_ context.Context, name string, _ metav1.GetOptions, _ ...string) (*unstructured.Unstructured, error) {
	return nil, errors.New("read by name: " + name)
}

func (s *wideSource) listCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}

func TestPrefetch(t *testing.T) {
	all := &wideSource{}
	all.add("shop", "a")
	all.add("shop", "b")
	all.add("blog", "c")
	tests := []struct {
		name     string
		pageSize int64
		listErr  error
		// answers is whether the prefetched list answers the scopes' reads.
		answers bool
	}{
		{name: "a list of one page answers every namespace", pageSize: 10, answers: true},
		{name: "a list of more pages answers nothing", pageSize: 2, answers: false},
		{name: "a list that fails answers nothing", pageSize: 10, listErr: errors.New("forbidden"), answers: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c := New(tt.pageSize)
			wide := &wideSource{objects: all.objects, listErr: tt.listErr}
			p := c.Prefetch(ctx, scope, wide)
			whole := p.Wait(ctx)
			if whole != tt.answers {
				t.Fatalf("whole = %v, want %v", whole, tt.answers)
			}
			if objects := prefetchedObjects(p); whole && objects != 3 {
				t.Errorf("objects = %d, want 3", objects)
			}
			shop, blog, empty := all.in("shop"), all.in("blog"), all.in("empty")
			inShop, inBlog, inEmpty := scope, scope, scope
			inBlog.Namespace, inEmpty.Namespace = "blog", "empty"
			for _, read := range []struct {
				scope Scope
				src   *wideSource
				name  string
				found bool
			}{
				{inShop, shop, "a", true}, {inShop, shop, "b", true}, {inBlog, blog, "c", true},
				{inBlog, blog, "a", false}, {inEmpty, empty, "a", false},
			} {
				_, found, err := c.GetListed(ctx, read.scope, read.src, read.name)
				if err != nil || found != read.found {
					t.Errorf("GetListed(%s, %q) = %v, %v; want %v", read.scope.Namespace, read.name, found, err, read.found)
				}
			}
			lists := shop.listCount() + blog.listCount() + empty.listCount()
			if want := map[bool]int{true: 0, false: 3}[tt.answers]; lists != want {
				t.Errorf("the namespaces were listed %d times, want %d", lists, want)
			}
			if wide.listCount() != 1 {
				t.Errorf("the prefetch listed %d times, want 1", wide.listCount())
			}
		})
	}
}

func TestPrefetch_isTakenOncePerResource(t *testing.T) {
	c := New(10)
	wide := &wideSource{}
	wide.add("shop", "a")
	first := c.Prefetch(context.Background(), scope, wide)
	other := scope
	other.Namespace = "blog"
	if c.Prefetch(context.Background(), other, wide) != first {
		t.Fatal("a second prefetch of the same resource started another list")
	}
	first.Wait(context.Background())
	if wide.listCount() != 1 {
		t.Errorf("listed %d times, want 1", wide.listCount())
	}
}

func TestPrefetch_answersNeitherOtherClustersNorOtherSelectors(t *testing.T) {
	ctx := context.Background()
	c, wide := prefetchedShop(t)
	for _, other := range []Scope{
		{Cluster: "paris", Resource: scope.Resource, Namespace: "shop", LabelSelector: scope.LabelSelector},
		{Cluster: scope.Cluster, Resource: scope.Resource, Namespace: "shop", LabelSelector: "team=a"},
	} {
		src := wide.in("shop")
		if _, _, err := c.GetListed(ctx, other, src, "a"); err != nil {
			t.Fatal(err)
		}
		if src.listCount() != 1 {
			t.Errorf("%s: listed %d times on its own, want 1", other, src.listCount())
		}
	}
}

func TestPrefetch_aWrittenNameIsReadByName(t *testing.T) {
	ctx := context.Background()
	c, wide := prefetchedShop(t)
	shop := wide.in("shop")
	if _, found, _ := c.Get(ctx, scope, shop, "a"); !found {
		t.Fatal("a prefetched object was not found")
	}
	c.Forget(scope, "a")
	if _, _, err := c.Get(ctx, scope, shop, "a"); err == nil {
		t.Error("a name written since the prefetch was answered from it, not read by name")
	}
}

func TestPrefetch_aNilCacheTakesNoList(t *testing.T) {
	var c *Cache
	wide := &wideSource{}
	if c.Prefetch(context.Background(), scope, wide).Wait(context.Background()) {
		t.Error("a nil cache's prefetch answers reads")
	}
	if wide.listCount() != 0 {
		t.Errorf("listed %d times, want 0", wide.listCount())
	}
}

func TestPrefetch_aNameWrittenBeforeItsScopeIsReadIsReadByName(t *testing.T) {
	ctx := context.Background()
	c, wide := prefetchedShop(t)
	c.Forget(scope, "a")
	for _, read := range []func() error{
		func() error { _, _, err := c.Get(ctx, scope, wide.in("shop"), "a"); return err },
		func() error { _, _, err := c.GetListed(ctx, scope, wide.in("shop"), "a"); return err },
	} {
		if err := read(); err == nil {
			t.Error("a name written before its namespace was first read was answered from the list taken ahead of the write")
		}
	}
}

// prefetchedShop is a cache whose whole list of the scope's resource, one
// object "a" in namespace shop, is taken, and that resource's source.
func prefetchedShop(t *testing.T) (*Cache, *wideSource) {
	t.Helper()
	c := New(10)
	wide := &wideSource{}
	wide.add("shop", "a")
	if !c.Prefetch(context.Background(), scope, wide).Wait(context.Background()) {
		t.Fatal("the prefetch of one object is not whole")
	}
	return c, wide
}

// prefetchedObjects is how many objects a whole prefetched list holds.
func prefetchedObjects(p *Prefetched) int {
	n := 0
	for _, objects := range p.byNamespace {
		n += len(objects)
	}
	return n
}
