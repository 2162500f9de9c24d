package provider

import (
	"slices"
	"sync"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

// planOrder remembers the federated objects planned so far in a run that
// place by a label selector. Terraform plans resources that do not depend on
// each other in any order: an object planned before a cluster registered or
// relabelled in the same run does not see that cluster, and the cluster's
// plan names such objects, so that the user can make them depend on it.
type planOrder struct {
	mu      sync.Mutex
	objects map[string]federation.Placement
}

// planned records an object's selector placement.
func (o *planOrder) planned(object string, p federation.Placement) {
	if p.Clusters != nil || p.Selector == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.objects == nil {
		o.objects = map[string]federation.Placement{}
	}
	o.objects[object] = p
}

// missed returns, sorted, the objects planned so far whose placement of the
// named cluster changes with its planned labels: before, the cluster's
// labels as registered, or nil for a cluster not registered yet.
func (o *planOrder) missed(cluster string, before, after map[string]string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for object, p := range o.objects {
		if selects(p, cluster, before) != selects(p, cluster, after) {
			out = append(out, object)
		}
	}
	slices.Sort(out)
	return out
}

func selects(p federation.Placement, cluster string, labels map[string]string) bool {
	if labels == nil {
		return false
	}
	placed, err := p.Select([]federation.Cluster{{Name: cluster, Labels: labels}}, nil)
	return err == nil && slices.Contains(placed, cluster)
}
