package listcache

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fakeSource is a scope's objects on a pretend API server, paging lists the
// way the API server does, and counting the requests it answers.
type fakeSource struct {
	mu      sync.Mutex
	objects map[string]map[string]string // name -> labels
	lists   int
	gets    int
	listErr error
	block   chan struct{} // when set, List waits for it to close
}

func newSource(names ...string) *fakeSource {
	s := &fakeSource{objects: map[string]map[string]string{}}
	for _, n := range names {
		s.objects[n] = map[string]string{"kubefed.io/managed": "true"}
	}
	return s
}

func object(name string, lbls map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
	u.SetName(name)
	u.SetLabels(lbls)
	return u
}

func (s *fakeSource) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	if s.block != nil {
		select {
		case <-s.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	if s.listErr != nil {
		return nil, s.listErr
	}
	selector, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, err
	}
	var names []string
	for n, l := range s.objects {
		if selector.Matches(labels.Set(l)) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var items []*unstructured.Unstructured
	for _, n := range names {
		items = append(items, object(n, s.objects[n]))
	}
	return pageOf(items, opts), nil
}

// pageOf is the page of items that opts asks for, with a continue token
// when more follow, as the API server pages a list.
func pageOf(items []*unstructured.Unstructured, opts metav1.ListOptions) *unstructured.UnstructuredList {
	start := 0
	if opts.Continue != "" {
		start, _ = strconv.Atoi(opts.Continue)
	}
	end := min(start+int(opts.Limit), len(items))
	list := &unstructured.UnstructuredList{}
	for _, o := range items[start:end] {
		list.Items = append(list.Items, *o.DeepCopy())
	}
	if end < len(items) {
		list.SetContinue(strconv.Itoa(end))
	}
	return list
}

func (s *fakeSource) Get(ctx context.Context, name string, _ metav1.GetOptions, _ ...string) (*unstructured.Unstructured, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	l, ok := s.objects[name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
	}
	return object(name, l), nil
}

func (s *fakeSource) counts() (lists, gets int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists, s.gets
}

var scope = Scope{Cluster: "berlin", Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
	Namespace: "shop", LabelSelector: "kubefed.io/managed=true"}

func mustGet(t *testing.T, c *Cache, src Source, name string) bool {
	t.Helper()
	obj, found, err := c.Get(context.Background(), scope, src, name)
	if err != nil {
		t.Fatalf("Get(%q): %v", name, err)
	}
	if found && obj.GetName() != name {
		t.Fatalf("Get(%q) returned %q", name, obj.GetName())
	}
	return found
}

func TestGet(t *testing.T) {
	tests := []struct {
		name      string
		objects   []string
		unlabeled []string // exist, but outside the list's selector
		read      []string
		want      []bool
		lists     int
		gets      int
	}{
		{name: "reads of listed objects make one list", objects: []string{"a", "b", "c"}, read: []string{"a", "b", "c", "a"},
			want: []bool{true, true, true, true}, lists: 1},
		{name: "a name missing from the list is read by name before it counts as gone", objects: []string{"a"},
			read: []string{"a", "gone"}, want: []bool{true, false}, lists: 1, gets: 1},
		{name: "an object outside the selector is found by name", objects: []string{"a"}, unlabeled: []string{"edited"},
			read: []string{"edited"}, want: []bool{true}, lists: 1, gets: 1},
		{name: "more objects than a page are listed page by page", objects: names(7), read: []string{"o0", "o6"},
			want: []bool{true, true}, lists: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := newSource(tc.objects...)
			for _, n := range tc.unlabeled {
				src.objects[n] = map[string]string{}
			}
			c := New(3)
			for i, name := range tc.read {
				if got := mustGet(t, c, src, name); got != tc.want[i] {
					t.Errorf("Get(%q) found = %v, want %v", name, got, tc.want[i])
				}
			}
			if lists, gets := src.counts(); lists != tc.lists || gets != tc.gets {
				t.Errorf("lists, gets = %d, %d; want %d, %d", lists, gets, tc.lists, tc.gets)
			}
		})
	}
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("o%d", i)
	}
	return out
}

func TestGet_anObjectCreatedAfterTheListIsFound(t *testing.T) {
	src := newSource("a")
	c := New(0)
	mustGet(t, c, src, "a")
	src.mu.Lock()
	src.objects["late"] = map[string]string{"kubefed.io/managed": "true"}
	src.mu.Unlock()
	if !mustGet(t, c, src, "late") {
		t.Fatal("an object created after the list was not found")
	}
}

func TestGet_aNameWrittenSinceTheListIsReadByName(t *testing.T) {
	src := newSource("a")
	c := New(0)
	mustGet(t, c, src, "a")
	src.mu.Lock()
	delete(src.objects, "a")
	src.mu.Unlock()
	c.Forget(scope, "a")
	if mustGet(t, c, src, "a") {
		t.Fatal("a name written since the list was answered from the list")
	}
	if _, gets := src.counts(); gets != 1 {
		t.Errorf("gets = %d, want 1", gets)
	}
}

func TestGet_aFailedListFallsBackToReadsByName(t *testing.T) {
	src := newSource("a")
	src.listErr = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no list"))
	c := New(0)
	for range 3 {
		if !mustGet(t, c, src, "a") {
			t.Fatal("not found by name after a failed list")
		}
	}
	if lists, gets := src.counts(); lists != 1 || gets != 3 {
		t.Errorf("lists, gets = %d, %d; want 1 list kept as failed and 3 gets", lists, gets)
	}
}

func TestGet_concurrentReadersShareOneList(t *testing.T) {
	src := newSource(names(40)...)
	src.block = make(chan struct{})
	c := New(0)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for _, name := range names(40) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, found, err := c.Get(context.Background(), scope, src, name); err != nil || !found {
				errs <- fmt.Errorf("Get(%q) = %v: %w", name, found, err)
			}
		}()
	}
	close(src.block)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if lists, gets := src.counts(); lists != 1 || gets != 0 {
		t.Errorf("lists, gets = %d, %d; want 1, 0", lists, gets)
	}
}

func TestGet_aListCutOffByItsReaderIsTakenAgain(t *testing.T) {
	src := newSource("a")
	src.block = make(chan struct{})
	c := New(0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.Get(ctx, scope, src, "a"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with an ended context: err = %v, want context.Canceled", err)
	}
	close(src.block)
	if !mustGet(t, c, src, "a") {
		t.Fatal("not found after the first list was cut off")
	}
	if lists, gets := src.counts(); lists != 1 || gets != 0 {
		t.Errorf("lists, gets = %d, %d; want the list taken again (1 answered) and no get", lists, gets)
	}
}

func TestGet_scopesAreListedApart(t *testing.T) {
	src := newSource("a")
	c := New(0)
	other := scope
	other.Cluster = "paris"
	for _, s := range []Scope{scope, other, scope, other} {
		if _, found, err := c.Get(context.Background(), s, src, "a"); err != nil || !found {
			t.Fatalf("Get in %s = %v, %v", s, found, err)
		}
	}
	if lists, _ := src.counts(); lists != 2 {
		t.Errorf("lists = %d, want one per scope", lists)
	}
}

func TestGet_aNilCacheReadsByName(t *testing.T) {
	src := newSource("a")
	var c *Cache
	if !mustGet(t, c, src, "a") || mustGet(t, c, src, "b") {
		t.Fatal("a nil cache answers wrongly")
	}
	c.Forget(scope, "a")
	if lists, gets := src.counts(); lists != 0 || gets != 2 {
		t.Errorf("lists, gets = %d, %d; want 0, 2", lists, gets)
	}
}

func TestGet_returnsCopies(t *testing.T) {
	src := newSource("a")
	c := New(0)
	obj, _, _ := c.Get(context.Background(), scope, src, "a")
	obj.SetName("changed")
	if !mustGet(t, c, src, "a") {
		t.Fatal("a caller's change to a returned object reached the cache")
	}
}

func TestGetListed(t *testing.T) {
	tests := []struct {
		name    string
		listErr error
		written bool
		created bool // an object created after the list
		want    bool
		gets    int
	}{
		{name: "a name the list lacks is absent without a read", created: true, want: false, gets: 0},
		{name: "a name written in this run is read by name", created: true, written: true, want: true, gets: 1},
		{name: "a failed list falls back to a read by name", created: true, want: true, gets: 1,
			listErr: apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no list"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := newSource("a")
			src.listErr = tc.listErr
			c := New(0)
			if _, found, err := c.GetListed(context.Background(), scope, src, "a"); err != nil || !found {
				t.Fatalf("GetListed(a) = %v, %v", found, err)
			}
			_, gets0 := src.counts()
			if tc.created {
				src.mu.Lock()
				src.objects["late"] = map[string]string{"kubefed.io/managed": "true"}
				src.mu.Unlock()
			}
			if tc.written {
				c.Forget(scope, "late")
			}
			_, found, err := c.GetListed(context.Background(), scope, src, "late")
			if err != nil || found != tc.want {
				t.Fatalf("GetListed(late) = %v, %v; want %v", found, err, tc.want)
			}
			if _, gets := src.counts(); gets-gets0 != tc.gets {
				t.Errorf("gets = %d, want %d", gets-gets0, tc.gets)
			}
		})
	}
}

func TestGetListed_aResourceNotServedHasNoObjects(t *testing.T) {
	src := newSource("a")
	src.listErr = apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "")
	c := New(0)
	for _, name := range []string{"a", "b"} {
		if _, found, err := c.GetListed(context.Background(), scope, src, name); err != nil || found {
			t.Fatalf("GetListed(%s) = %v, %v; want absent", name, found, err)
		}
	}
	if lists, gets := src.counts(); lists != 1 || gets != 0 {
		t.Errorf("lists, gets = %d, %d; want 1, 0", lists, gets)
	}
	c.Forget(scope, "a")
	if _, found, err := c.GetListed(context.Background(), scope, src, "a"); err != nil || !found {
		t.Fatalf("GetListed(a) after a write = %v, %v; want it read by name", found, err)
	}
	if found := mustGet(t, c, src, "b"); found {
		t.Fatal("Get(b) found an object the source lacks")
	}
	if _, gets := src.counts(); gets != 2 {
		t.Errorf("gets = %d, want 2: reads of a resource not served still go by name", gets)
	}
}
