package capacity

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
)

// ReplicaOf is one replica as the estimate sees it: the pod template's
// requests, tolerations, node selector and node affinity, with explicit
// requests in place of the template's when given. The error is about the
// attribute of the preference at fault (template or replica_requests).
func ReplicaOf(template string, hasTemplate bool, requests map[string]string, hasRequests bool) (Replica, scheduling.At, error) {
	var replica Replica
	if hasTemplate {
		var doc any
		err := yaml.Unmarshal([]byte(template), &doc)
		object, isObject := doc.(map[string]any)
		if err != nil || !isObject {
			return replica, scheduling.At{Attribute: "template"}, fmt.Errorf("the template is not one YAML or JSON object (%v); pass the same "+
				"document as the federated object's template", orNotAnObject(err))
		}
		spec, found, err := PodSpecOf(object)
		if err != nil {
			return replica, scheduling.At{Attribute: "template"}, err
		}
		if !found {
			return replica, scheduling.At{Attribute: "template"}, errors.New("the template has no pod template (spec.template.spec); give the " +
				"template of a workload such as a Deployment, or the requests in replica_requests")
		}
		replica = ReplicaFromPodSpec(spec)
	}
	if hasRequests {
		parsed, err := ParseRequests(requests)
		var requestErr *RequestError
		if errors.As(err, &requestErr) {
			return replica, scheduling.At{Attribute: "replica_requests", Key: requestErr.Resource},
				fmt.Errorf("replica_requests[%q]: %s", requestErr.Resource, requestErr.Reason)
		}
		if err != nil {
			return replica, scheduling.At{Attribute: "replica_requests"}, err
		}
		replica.Requests = parsed
	}
	return replica, scheduling.At{}, nil
}

func orNotAnObject(err error) any {
	if err != nil {
		return err
	}
	return "it is not an object"
}

// Bounds turns the estimates into the planner's capacities, and warns of
// the clusters of the split of id left unbounded.
func Bounds(id string, estimates map[string]ClusterEstimate) (map[string]int64, []scheduling.Warning) {
	bounds := map[string]int64{}
	var warnings []scheduling.Warning
	for _, name := range slices.Sorted(maps.Keys(estimates)) {
		e := estimates[name]
		if e.Unread == "" {
			bounds[name] = e.Replicas
			continue
		}
		warnings = append(warnings, scheduling.Warning{At: scheduling.At{Attribute: "capacity"},
			Summary: fmt.Sprintf("Capacity of cluster %q not known", name),
			Detail: fmt.Sprintf("The Nodes and Pods of cluster %q could not be read for %s: %s. The split treats its capacity as "+
				"unbounded; it may be planned more replicas than fit there.", name, id, e.Unread)})
	}
	return bounds, warnings
}

// CutWarnings say, for each cluster whose capacity cut its share of the
// split of id (see [scheduling.CutByCapacity]), what the estimate found.
func CutWarnings(id string, cut map[string]int64, estimates map[string]ClusterEstimate) []scheduling.Warning {
	var warnings []scheduling.Warning
	for _, name := range slices.Sorted(maps.Keys(cut)) {
		e := estimates[name]
		warnings = append(warnings, scheduling.Warning{At: scheduling.At{Attribute: "estimated_capacity", Key: name},
			Summary: fmt.Sprintf("Cluster %q is planned what it can hold", name),
			Detail: fmt.Sprintf("Cluster %q can hold %d replicas of %s (%s), so it is planned %d rather than %d; the rest goes to the "+
				"other clusters. The estimate is a snapshot of the member, not a reservation.",
				name, e.Replicas, id, e.Reason, e.Replicas, cut[name])})
	}
	return warnings
}
