package objectset

import (
	"encoding/json"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// Outcome is what a plan says of one object's status and health on each
// cluster that will hold it. A cluster the apply leaves alone keeps what
// the apply records for it: status OK and the health the state had. A
// cluster the apply writes to or waits for has its health left to the
// apply (nil); its status is OK when it held the object already, since an
// apply that returns without an error leaves every such cluster OK (any
// other outcome is a failure, which is an error), and is left to the apply
// for a cluster that receives the object for the first time or whose last
// write was cut off.
type Outcome struct {
	Status map[string]*reconcile.Status
	// Health holds only the clusters that keep a health entry (see
	// reportsHealth).
	Health map[string]*rollout.Health
}

// PlanOutcome is the Outcome of an object the apply takes from held to
// planned on the placed clusters, with the prior status and health. It is
// false when which clusters have entries is itself up to the apply: a
// cluster leaves the object (a removal that fails keeps it), or a placed
// cluster is not rendered for (its entry says why it was skipped).
func PlanOutcome(o *Object, held, planned map[string]string, placed []string,
	priorStatus map[string]reconcile.Status, priorHealth map[string]rollout.Health) (Outcome, bool) {
	for cluster := range held {
		if _, stays := planned[cluster]; !stays {
			return Outcome{}, false
		}
	}
	for _, cluster := range placed {
		if _, ok := planned[cluster]; !ok {
			return Outcome{}, false
		}
	}
	pending := PendingRollouts(o, priorStatus)
	out := Outcome{Status: map[string]*reconcile.Status{}, Health: map[string]*rollout.Health{}}
	for cluster, want := range planned {
		was, holds := held[cluster]
		if was != want || want == reconcile.Unknown || pending[cluster] {
			out.Status[cluster] = nil
			if holds && was != reconcile.Unknown && want != reconcile.Unknown {
				out.Status[cluster] = &reconcile.Status{Status: reconcile.StatusOK}
			}
			if reportsHealth(want, nil) {
				out.Health[cluster] = nil
			}
			continue
		}
		out.Status[cluster] = &reconcile.Status{Status: reconcile.StatusOK}
		if h, ok := priorHealth[cluster]; ok {
			out.Health[cluster] = &h
		}
	}
	return out, true
}

// PlanSetOutcome is the Outcome of each object of a set (see PlanOutcome),
// by key. It is false when which objects or clusters have entries is up to
// the apply: an object leaves the set, or the clusters of one object are.
func PlanSetOutcome(set *Set, held, planned map[string]map[string]string, placed []string,
	priorStatus map[string]map[string]reconcile.Status, priorHealth map[string]map[string]rollout.Health) (map[string]Outcome, bool) {
	for key := range held {
		if set.Get(key) == nil {
			return nil, false
		}
	}
	out := make(map[string]Outcome, len(set.Objects))
	for _, o := range set.Objects {
		key := o.Key.String()
		outcome, known := PlanOutcome(o, held[key], planned[key], placed, priorStatus[key], priorHealth[key])
		if !known {
			return nil, false
		}
		out[key] = outcome
	}
	return out, true
}

// reportsHealth says whether a cluster keeps a health entry for the object
// it holds as applied (canonical JSON), or, when that is not known, as it
// was seen there: only an object with a rollout or a replica count has
// one.
func reportsHealth(applied string, seen map[string]any) bool {
	var obj map[string]any
	if json.Unmarshal([]byte(applied), &obj) == nil && obj != nil {
		return rollout.Reports(obj)
	}
	return seen != nil && rollout.Reports(seen)
}

// ByObject turns a map by cluster of maps by object into one by object of
// maps by cluster, and back.
func ByObject[V any](in map[string]map[string]V) map[string]map[string]V {
	out := map[string]map[string]V{}
	for outer, inner := range in {
		for key, v := range inner {
			if out[key] == nil {
				out[key] = map[string]V{}
			}
			out[key][outer] = v
		}
	}
	return out
}
