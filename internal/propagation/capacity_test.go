package propagation

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

func TestSelectorFrom(t *testing.T) {
	for _, tc := range []struct {
		name    string
		raw     map[string]any
		matches labels.Set
		misses  labels.Set
		wantErr string
	}{
		{name: "a label selector with labels and expressions",
			raw: map[string]any{"matchLabels": map[string]any{"app": "web"},
				"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"front"}}}},
			matches: labels.Set{"app": "web", "tier": "front"}, misses: labels.Set{"app": "web", "tier": "back"}},
		{name: "a replication controller's map of labels", raw: map[string]any{"app": "web"},
			matches: labels.Set{"app": "web", "x": "y"}, misses: labels.Set{"app": "api"}},
		{name: "a map of labels with a number", raw: map[string]any{"app": int64(1)}, wantErr: `label "app"`},
		{name: "an expression with an unknown operator",
			raw: map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "Near"}}}, wantErr: "Near"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			selector, err := selectorFrom(tc.raw)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !selector.Matches(tc.matches) || selector.Matches(tc.misses) {
				t.Errorf("%s matches %v: %v, %v: %v; want true, false", selector, tc.matches, selector.Matches(tc.matches),
					tc.misses, selector.Matches(tc.misses))
			}
		})
	}
}

func TestListAllFollowsPagesAndStartsOverWhenTheyExpire(t *testing.T) {
	expired := apierrors.NewResourceExpired("continue token too old")
	for _, tc := range []struct {
		name  string
		pages map[string]func() ([]int, string, error)
		want  []int
	}{
		{name: "one page", pages: map[string]func() ([]int, string, error){
			"": func() ([]int, string, error) { return []int{1, 2}, "", nil }}, want: []int{1, 2}},
		{name: "pages in turn", pages: map[string]func() ([]int, string, error){
			"":   func() ([]int, string, error) { return []int{1}, "p2", nil },
			"p2": func() ([]int, string, error) { return []int{2}, "p3", nil },
			"p3": func() ([]int, string, error) { return []int{3}, "", nil }}, want: []int{1, 2, 3}},
		{name: "an expired continuation lists again in one piece, without the pages read before", pages: map[string]func() ([]int, string, error){
			"":   func() ([]int, string, error) { return []int{1}, "p2", nil },
			"p2": func() ([]int, string, error) { return nil, "", expired }}, want: []int{7, 8, 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := listAll(context.Background(), "status.phase!=Failed", func(_ context.Context, opts metav1.ListOptions) ([]int, string, error) {
				if opts.FieldSelector != "status.phase!=Failed" {
					t.Errorf("field selector %q lost", opts.FieldSelector)
				}
				if opts.Limit == 0 {
					return []int{7, 8, 9}, "", nil
				}
				return tc.pages[opts.Continue]()
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// A member that refuses to list its nodes is reported as forbidden, by
// name, with the permission to grant; the other members are read.
func TestReadCapacityReportsAForbiddingMember(t *testing.T) {
	refusing := fake.NewClientset()
	refusing.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("RBAC: no list"))
	})
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	answering := fake.NewClientset(node)
	members := []Member{
		{Name: "tokyo", Clients: &kube.Clients{Kubernetes: refusing, Config: &rest.Config{Host: "https://tokyo.example:6443"}}},
		{Name: "berlin", Clients: &kube.Clients{Kubernetes: answering, Config: &rest.Config{Host: "https://berlin.example:6443"}}},
	}
	got := ReadCapacity(context.Background(), members, nil, Options{MaxParallel: 2})
	if len(got) != 2 || got[0].Cluster != "berlin" || got[1].Cluster != "tokyo" {
		t.Fatalf("results %+v, want berlin then tokyo", got)
	}
	if got[0].Err != nil || len(got[0].Nodes) != 1 || got[0].WorkloadFound {
		t.Errorf("berlin: %+v, want its node and no workload", got[0])
	}
	tokyo := got[1]
	if !tokyo.Forbidden || tokyo.Err == nil {
		t.Fatalf("tokyo: %+v, want forbidden", tokyo)
	}
	for _, phrase := range []string{`listing nodes on cluster "tokyo"`, "403 Forbidden", "list on nodes and on pods"} {
		if !strings.Contains(tokyo.Err.Error(), phrase) {
			t.Errorf("tokyo's error %q does not say %q", tokyo.Err, phrase)
		}
	}
}
